package mcp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
)

// The MCP compare tool's profile mode: compare --profile BASE CAND with the
// server's limits (its live sources mean nothing to captures), the report
// cut to the verdict and the top findings.

// compareProfile runs the CLI's profiler A/B (the Runner) on two paths
// under the roots.
func (s *Server) compareProfile(ctx context.Context, in CompareInput, paths []string, full bool) (*CompareOutput, string, error) {
	if in.BeforeAt != "" || in.AfterAt != "" || in.Window != "" || in.Target != "" || in.Canary != "" || in.BaselineGroup != "" {
		return nil, "", errors.New("profile: paths are BASE CAND; before_at, after_at, window, target, canary and baseline_group do not apply")
	}
	if len(paths) != 2 {
		return nil, "", fmt.Errorf("profile: want paths BASE CAND (two captures or directories of ranks), got %d", len(paths))
	}
	rep, err := s.Runner.Profile(ctx, paths)
	if err != nil {
		return nil, "", err
	}
	out := profileResult(rep, full)
	return out, out.Verdict, nil
}

// profileResult is the compare tool's result of a profiler A/B's report:
// with detail full, the whole report in the JSON the CLI's -o json writes
// (docs/profdiff.schema.json).
func profileResult(rep *profdiff.Report, full bool) *CompareOutput {
	v := rep.Verdict
	out := &CompareOutput{Mode: "profile", Verdict: v.Text, WarningsTotal: len(rep.Warnings),
		Target: &findingOut{Label: "step", Verdict: v.Step, Text: v.Text},
		Counts: map[string]int{}}
	for k, n := range map[string]int{"slower": v.Slower, "faster": v.Faster, "unchanged": v.Unchanged, "insufficient data": v.Insufficient} {
		if n > 0 {
			out.Counts[k] = n
		}
	}
	// A number the JSON report writes as null reads as 0.
	finite := func(f float64) float64 {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return f
	}
	finding := func(verdict string, i int, r profdiff.Ref) findingOut {
		return findingOut{Rank: i + 1, Label: r.Kind + " " + r.Name, Item: r.Name, Verdict: verdict,
			Text: fmt.Sprintf("median ×%.2f, %+.3g s of GPU time per step", finite(r.Ratio), finite(r.PerStep))}
	}
	for i, r := range firstN(rep.Regressions, mcpFindings, full) {
		out.Regressions = append(out.Regressions, finding("slower", i, r))
	}
	for i, r := range firstN(rep.Improvements, mcpFindings, full) {
		out.Improvements = append(out.Improvements, finding("faster", i, r))
	}
	out.Warnings = firstN(rep.Warnings, mcpWarnings, full)
	if full {
		out.Report = profileJSON{rep}
	}
	return out
}

// profileJSON is a profiler A/B's report in its documented JSON
// (profdiff.Render's json).
type profileJSON struct{ r *profdiff.Report }

// MarshalJSON writes the report as -o json does.
func (p profileJSON) MarshalJSON() ([]byte, error) { return reportfmt.MarshalJSONValue(*p.r) }
