package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// compareCase is a simulated incident (25 minutes, so that BEFORE has a
// baseline band) and its fixed follow-up, written once beside smallCase's
// (and removed with it by TestMain).
var compareCase struct {
	once            sync.Once
	incident, fixed string
	err             error
}

func compareDirs(t *testing.T) (incident, fixed string) {
	t.Helper()
	c := &compareCase
	root := filepath.Dir(smallCase(t))
	c.once.Do(func() {
		c.incident, c.fixed = filepath.Join(root, "cmp-incident"), filepath.Join(root, "cmp-fixed")
		spec := fixtures.Spec{Fault: "tool_api_slow", Seed: 7, SampleRate: 0.08}
		if _, c.err = fixtures.Write(c.incident, spec); c.err != nil {
			return
		}
		spec.Fixed = true
		_, c.err = fixtures.Write(c.fixed, spec)
	})
	if c.err != nil {
		t.Fatalf("simulate: %v", c.err)
	}
	return c.incident, c.fixed
}

// report is the part of the JSON comparison these tests look at.
type report struct {
	Verdict struct {
		Verdict     string `json:"verdict"`
		Regressions int    `json:"regressions"`
	} `json:"verdict"`
	Target struct {
		Verdict string `json:"verdict"`
	} `json:"target"`
	Causes []struct {
		Label   string `json:"label"`
		Verdict string `json:"verdict"`
	} `json:"causes"`
	CausesFrom  string `json:"causes_from"`
	Regressions []struct {
		Label string `json:"label"`
	} `json:"regressions"`
	Inputs []struct {
		Side string `json:"side"`
	} `json:"inputs"`
}

func parseReport(t *testing.T, s string) report {
	t.Helper()
	var r report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
	return r
}

// TestCompareFixed is `compare INCIDENT FIXED` end to end: the fixed
// follow-up of a simulated tool_api_slow incident is fixed, its top
// cause back within its band; the other way round it regressed, and the
// gates exit 3 or 0 as documented.
func TestCompareFixed(t *testing.T) {
	inc, fixed := compareDirs(t)
	r := runCmd(nil, "compare", "-q", "-o", "json", inc, fixed)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	rep := parseReport(t, r.stdout)
	if rep.Verdict.Verdict != "fixed" || rep.Verdict.Regressions != 0 {
		t.Errorf("verdict %+v, want fixed with no regression", rep.Verdict)
	}
	if len(rep.Causes) == 0 || !strings.HasPrefix(rep.CausesFrom, "analysis of BEFORE") {
		t.Errorf("causes %+v from %q", rep.Causes, rep.CausesFrom)
	}
	toolHit := false
	for _, c := range rep.Causes {
		toolHit = toolHit || strings.Contains(c.Label, "tool-api") && (c.Verdict == "fixed" || c.Verdict == "improved")
	}
	if !toolHit {
		t.Errorf("no tool-api cause fixed or improved: %+v", rep.Causes)
	}
	if sides := map[string]bool{}; true {
		for _, in := range rep.Inputs {
			sides[in.Side] = true
		}
		if !sides["before"] || !sides["after"] {
			t.Errorf("inputs sides %v", sides)
		}
	}
	for _, gate := range []string{"regressed", "unchanged"} {
		if r := runCmd(nil, "compare", "-q", "--fail-on", gate, inc, fixed); r.code != 0 {
			t.Errorf("--fail-on %s on a fix: exit %d", gate, r.code)
		}
	}
	back := runCmd(nil, "compare", "-q", "-o", "json", "--no-causes", fixed, inc)
	if back.code != 0 {
		t.Fatalf("reverse: exit %d: %s", back.code, back.stderr)
	}
	if rb := parseReport(t, back.stdout); rb.Verdict.Verdict != "regressed" || len(rb.Regressions) == 0 ||
		!strings.Contains(rb.Regressions[0].Label+rb.Regressions[min(1, len(rb.Regressions)-1)].Label, "tool-api") && !strings.Contains(back.stdout, "router → tool-api") {
		t.Errorf("reverse: verdict %+v, regressions %+v", rb.Verdict, rb.Regressions)
	}
	if r := runCmd(nil, "compare", "-q", "--no-causes", "--fail-on", "regressed", fixed, inc); r.code != 3 {
		t.Errorf("--fail-on regressed on a regression: exit %d, want 3", r.code)
	}
}

// TestCompareSameData compares two windows of one input, and an AFTER
// window without data (insufficient data, exit 4 under a gate).
func TestCompareSameData(t *testing.T) {
	inc, _ := compareDirs(t)
	r := runCmd(nil, "compare", "-q", "--no-causes", "--before-at", "now-10m", "--after-at", "now-2m30s", "-o", "json", inc)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if rep := parseReport(t, r.stdout); rep.Verdict.Verdict != "regressed" {
		t.Errorf("healthy window vs incident: %+v", rep.Verdict)
	}
	if !strings.Contains(r.stdout, `"side": "both"`) {
		t.Error("one input's files are not marked side both")
	}
	r = runCmd(nil, "compare", "-q", "--no-causes", "--before-at", "now-20m", "--after-at", "now+1h", "--fail-on", "regressed", inc)
	if r.code != 4 || !strings.Contains(r.stdout, "insufficient data") {
		t.Errorf("AFTER without data: exit %d (want 4), output:\n%s", r.code, r.stdout)
	}
}

// TestCompareUsage checks the usage errors (exit 2) and a missing input (1).
func TestCompareUsage(t *testing.T) {
	inc, fixed := compareDirs(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no input", []string{"compare"}, 2, "want BEFORE AFTER"},
		{"one input without times", []string{"compare", inc}, 2, "needs both --before-at and --after-at"},
		{"three inputs", []string{"compare", inc, fixed, inc}, 2, "want BEFORE AFTER"},
		{"bad gate", []string{"compare", "--fail-on", "critical", inc, fixed}, 2, "--fail-on"},
		{"bad format", []string{"compare", "-o", "pdf", inc, fixed}, 2, "--output-format"},
		{"bad time", []string{"compare", "--before-at", "yesterday", inc, fixed}, 2, "--before-at"},
		{"--at", []string{"compare", "--at", "now", inc, fixed}, 2, "--before-at and --after-at"},
		{"missing input", []string{"compare", "-q", filepath.Join(inc, "nope"), fixed}, 1, "BEFORE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.msg)
			}
		})
	}
	if r := runCmd(nil, "compare", "--help"); r.code != 0 || !strings.Contains(r.stdout, "pipeline-analyze compare [flags] BEFORE AFTER") {
		t.Errorf("--help: exit %d", r.code)
	}
}

// TestCompareFormats renders every format and exports one atomically.
func TestCompareFormats(t *testing.T) {
	inc, fixed := compareDirs(t)
	for _, f := range []string{"text", "markdown", "html"} {
		r := runCmd(nil, "compare", "-q", "--no-causes", "-o", f, inc, fixed)
		if r.code != 0 || r.stdout == "" {
			t.Errorf("%s: exit %d, %d bytes", f, r.code, len(r.stdout))
		}
	}
	out := filepath.Join(t.TempDir(), "verify.html")
	if r := runCmd(nil, "compare", "-q", "--no-causes", "-o", "html", "--export", out, inc, fixed); r.code != 0 {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("exported page: %v", err)
	}
}
