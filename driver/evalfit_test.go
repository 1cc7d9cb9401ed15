package driver

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEvalLeaveOneOutAsRanked runs eval --fit --leave-one-out on two small
// simulated "sets" and checks the held-out table as the method ranks: one
// row per set with its case count, and the very numbers a plain eval of
// that set gives with the fold's weights (--param), which the score-only
// table above it printed.
func TestEvalLeaveOneOutAsRanked(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses four cases")
	}
	root := t.TempDir()
	for _, c := range []struct{ set, fault, seed string }{
		{"a", "gpu_throttling", "3"}, {"a", "vectordb_slow", "3"},
		{"b", "kv_cache_exhaustion", "5"}, {"b", "tool_api_slow", "7"},
	} {
		var so, se bytes.Buffer
		out := filepath.Join(root, c.set, c.fault+"-"+c.seed)
		if code := Run([]string{"simulate", "--fault", c.fault, "--seed", c.seed, "--out", out}, nil, &so, &se); code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", out, code, se.String())
		}
	}
	var so, se bytes.Buffer
	if code := Run([]string{"eval", "-q", "--methods", "tcg", "--fit", "--leave-one-out", filepath.Join(root, "a"), filepath.Join(root, "b")}, nil, &so, &se); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, se.String())
	}
	out := so.String()
	i := strings.Index(out, "held out, as the method ranks")
	if i < 0 {
		t.Fatalf("no held-out table as the method ranks:\n%s", out)
	}
	// The folds' weights, from the score-only table.
	fold := regexp.MustCompile(`(?m)^(a|b)\s+2\s+[\d.]+ [\d.]+ [\d.]+\s+[\d.]+\s+(target_share.*), none (-?[\d.]+)$`)
	folds := fold.FindAllStringSubmatch(out[:i], -1)
	row := regexp.MustCompile(`(?m)^(a|b)\s+(\d+)\s+([\d.]+ [\d.]+ [\d.]+\s+[\d.]+)\s+([\d.]+)\s+([\d.]+)$`)
	rows := row.FindAllStringSubmatch(out[i:], -1)
	if len(folds) != 2 || len(rows) != 2 {
		t.Fatalf("want a fold and a row per held-out set, got %d and %d:\n%s", len(folds), len(rows), out)
	}
	for k, r := range rows {
		if r[2] != "2" {
			t.Errorf("set %s: %s cases, want 2", r[1], r[2])
		}
		args := []string{"eval", "-q", "--methods", "tcg", "--param", "none_score=" + folds[k][3]}
		for _, kv := range strings.Split(folds[k][2], ", ") {
			name, val, _ := strings.Cut(kv, " ")
			if name != "reach" {
				args = append(args, "--param", name+"="+val)
			}
		}
		var po, pe bytes.Buffer
		if code := Run(append(args, filepath.Join(root, r[1])), nil, &po, &pe); code != 0 {
			t.Fatalf("eval %v: exit %d: %s", args, code, pe.String())
		}
		// overall  n AC@1 AC@3 AC@5 Avg@5 C@1 C@3
		m := regexp.MustCompile(`(?m)^overall\s+2\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)`).FindStringSubmatch(po.String())
		if m == nil {
			t.Fatalf("no overall row in:\n%s", po.String())
		}
		want := strings.Join(m[1:5], " ")
		got := strings.Join(strings.Fields(r[3]), " ")
		if got != want || r[4] != m[5] || r[5] != m[6] {
			t.Errorf("set %s held out as ranked: %s C@1 %s C@3 %s; eval with the fold's weights: %s C@1 %s C@3 %s", r[1], got, r[4], r[5], want, m[5], m[6])
		}
	}
}
