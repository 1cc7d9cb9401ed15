package scorecard

import (
	"strings"
	"sync"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Two methods registered by this test only, one of each kind (once per
// process: -count=N reruns the test).
var registerTestMethods sync.Once

const (
	testCausal     = "test-causal"
	testComparison = "test-comparison"
)

// TestMethodKindDecides checks that the card treats a method by its kind in
// causal's registry, not by its name: a newly registered causal method gets
// severities, confidences and a deciding verdict; a newly registered
// comparison method gets its Note in the verdict and none of those.
func TestMethodKindDecides(t *testing.T) {
	registerTestMethods.Do(func() {
		rank := func(*tcg.Graph, *ingest.Bundle, causal.Options) *causal.Result { return &causal.Result{} }
		causal.RegisterMethod(causal.Method{Name: testCausal, Kind: causal.KindCausal, Help: "test", Rank: rank})
		causal.RegisterMethod(causal.Method{Name: testComparison, Kind: causal.KindComparison, Help: "test", Note: "it ranks for a test", Rank: rank})
	})
	cands := []causal.Candidate{{Node: -1, Service: "cart", Component: "cart", Confidence: 0.9}}
	g := &tcg.Graph{Target: -1}

	r := &causal.Result{Method: testCausal, Candidates: cands, Confident: true}
	if got := severity(cands[0], r); got != SeverityCritical {
		t.Errorf("causal method: severity %q, want %q", got, SeverityCritical)
	}
	if v := verdict(g, r, &Card{}); !v.Confident || !strings.HasPrefix(v.Text, "root cause: ") {
		t.Errorf("causal method: verdict %+v", v)
	}
	if isComparison(&Card{Method: testCausal}) {
		t.Error("causal method's card reads as a comparison")
	}

	r = &causal.Result{Method: testComparison, Candidates: cands, Confident: true}
	if got := severity(cands[0], r); got != SeverityInfo {
		t.Errorf("comparison method: severity %q, want %q", got, SeverityInfo)
	}
	want := "no confident root cause: --method " + testComparison + " is a comparison baseline that does not decide: it ranks for a test (best guesses: cart)"
	if v := verdict(g, r, &Card{}); v.Confident || v.Text != want {
		t.Errorf("comparison method: verdict %q, want %q", v.Text, want)
	}
	if !isComparison(&Card{Method: testComparison}) {
		t.Error("comparison method's card does not read as a comparison")
	}
}
