package eval

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestEvalCasePanicIsAFailure: a panic in one case's analysis becomes that
// case's failure for every method, and the evaluation goes on.
func TestEvalCasePanicIsAFailure(t *testing.T) {
	old := evalOneCase
	t.Cleanup(func() { evalOneCase = old })
	evalOneCase = func(string, []string, tcg.IncidentSpec, analysis.TimeSpec, tcg.Options, causal.Options, bool) []caseResult {
		var m map[string]int
		m["boom"]++ // a nil-map write: a runtime panic
		return nil
	}
	out := evalCaseSafe("cases/a/broken-case", []string{"tcg", "baro"}, tcg.IncidentSpec{}, analysis.TimeSpec{}, tcg.Options{}, causal.Options{}, false)
	if len(out) != 2 {
		t.Fatalf("%d results, want one per method (2)", len(out))
	}
	for _, r := range out {
		if r.Case != "broken-case" || !strings.Contains(r.Error, "panic") || r.Rank != 0 {
			t.Errorf("result %+v: want the case's failure naming the panic", r)
		}
	}
}
