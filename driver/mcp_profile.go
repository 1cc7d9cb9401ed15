package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The MCP compare tool's profile mode: compare --profile BASE CAND with the
// server's limit flags (its live sources mean nothing to captures), the
// report cut to the verdict and the top findings.

// compareProfile runs compare --profile on two paths under the roots.
func (s *mcpServer) compareProfile(in compareInput, paths []string, full bool) (*compareOutput, string, error) {
	if in.BeforeAt != "" || in.AfterAt != "" || in.Window != "" || in.Target != "" || in.Canary != "" || in.BaselineGroup != "" {
		return nil, "", errors.New("profile: paths are BASE CAND; before_at, after_at, window, target, canary and baseline_group do not apply")
	}
	if len(paths) != 2 {
		return nil, "", fmt.Errorf("profile: want paths BASE CAND (two captures or directories of ranks), got %d", len(paths))
	}
	args := []string{"-q", "-o", "json", "--profile"}
	for _, a := range s.flagArgs {
		if strings.HasPrefix(a, "--max-") || strings.HasPrefix(a, "--query-timeout=") || strings.HasPrefix(a, "--stall-timeout=") {
			args = append(args, a)
		}
	}
	args = append(append(args, "--"), paths...)
	var stdout, stderr bytes.Buffer
	se := newSafeWriter(&stderr, s.red, maxErrLine)
	code := runCompare(args, strings.NewReader(""), &stdout, se)
	se.Flush()
	if code != 0 {
		return nil, "", runError(stderr.String())
	}
	out, err := profileResult(stdout.Bytes(), full)
	if err != nil {
		return nil, "", err
	}
	return out, out.Verdict, nil
}

// profileResult is the compare tool's result of a profiler A/B's JSON
// report (docs/profdiff.schema.json).
func profileResult(data []byte, full bool) (*compareOutput, error) {
	type ref struct {
		Kind    string  `json:"kind"`
		Name    string  `json:"name"`
		Ratio   float64 `json:"ratio"`
		PerStep float64 `json:"per_step_seconds"`
	}
	var rep struct {
		Verdict struct {
			Step         string `json:"step"`
			Text         string `json:"text"`
			Slower       int    `json:"slower"`
			Faster       int    `json:"faster"`
			Unchanged    int    `json:"unchanged"`
			Insufficient int    `json:"insufficient"`
		} `json:"verdict"`
		Regressions  []ref    `json:"regressions"`
		Improvements []ref    `json:"improvements"`
		Warnings     []string `json:"warnings"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("the JSON report: %w", err)
	}
	v := rep.Verdict
	out := &compareOutput{Mode: "profile", Verdict: v.Text, WarningsTotal: len(rep.Warnings),
		Target: &findingOut{Label: "step", Verdict: v.Step, Text: v.Text},
		Counts: map[string]int{}}
	for k, n := range map[string]int{"slower": v.Slower, "faster": v.Faster, "unchanged": v.Unchanged, "insufficient data": v.Insufficient} {
		if n > 0 {
			out.Counts[k] = n
		}
	}
	finding := func(verdict string, i int, r ref) findingOut {
		return findingOut{Rank: i + 1, Label: r.Kind + " " + r.Name, Item: r.Name, Verdict: verdict,
			Text: fmt.Sprintf("median ×%.2f, %+.3g s of GPU time per step", r.Ratio, r.PerStep)}
	}
	for i, r := range firstN(rep.Regressions, mcpFindings, full) {
		out.Regressions = append(out.Regressions, finding("slower", i, r))
	}
	for i, r := range firstN(rep.Improvements, mcpFindings, full) {
		out.Improvements = append(out.Improvements, finding("faster", i, r))
	}
	out.Warnings = firstN(rep.Warnings, mcpWarnings, full)
	if full {
		var all map[string]any
		if err := json.Unmarshal(data, &all); err != nil {
			return nil, fmt.Errorf("the JSON report: %w", err)
		}
		out.Report = all
	}
	return out, nil
}
