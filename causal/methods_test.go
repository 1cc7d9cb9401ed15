package causal

import (
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestMethodsOrder pins the built-in methods' order: --method's help,
// completion and eval's tables list them in it.
func TestMethodsOrder(t *testing.T) {
	want := []string{"tcg", "baro", "nsigma", "selftime", "traversal", "circa"}
	if got := Methods(); !slices.Equal(got, want) {
		t.Fatalf("Methods() = %v, want %v", got, want)
	}
	if Methods()[0] != DefaultMethod || KindOf(DefaultMethod) != KindCausal {
		t.Fatalf("the default method %q is not first or not causal", DefaultMethod)
	}
	for _, name := range want[1:] {
		m, ok := LookupMethod(name)
		if !ok || m.Kind != KindComparison || m.Help == "" {
			t.Errorf("%q: registered %v, kind %v, help %q", name, ok, m.Kind, m.Help)
		}
	}
	if KindOf("") != KindUnknown || KindOf("magic") != KindUnknown {
		t.Error("an unregistered name has a kind")
	}
}

// TestRegisterMethod registers a method from a test, with a trivial
// ranking: it is listed by Methods() and Analyze ranks through it — the
// registry is the one place a method is added.
func TestRegisterMethod(t *testing.T) {
	const name = "test-first-series"
	called := false
	RegisterMethod(Method{Name: name, Kind: KindComparison, Help: "the first series, for a test",
		Rank: func(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
			called = true
			if opt.Method != name {
				t.Errorf("the ranking got Options.Method %q", opt.Method)
			}
			return &Result{Candidates: []Candidate{{Node: -1, Service: "first", Score: 1}}, Total: 1}
		}})
	t.Cleanup(func() { unregisterMethod(name) })

	if got := Methods(); got[len(got)-1] != name {
		t.Fatalf("Methods() = %v: the new method is not last", got)
	}
	b, g := chain(t, true)
	res, err := Analyze(g, b, Options{Method: name})
	if err != nil {
		t.Fatal(err)
	}
	if !called || res.Method != name || res.Kind() != KindComparison || len(res.Candidates) != 1 || res.Candidates[0].Service != "first" {
		t.Fatalf("ranked through it %v: method %q, kind %v, candidates %+v", called, res.Method, res.Kind(), res.Candidates)
	}

	for _, bad := range []Method{
		{Name: name, Kind: KindComparison, Rank: analyzeTCG}, // taken
		{Name: "", Kind: KindComparison, Rank: analyzeTCG},
		{Name: "no-rank", Kind: KindComparison},
		{Name: "no-kind", Rank: analyzeTCG},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterMethod(%+v) did not panic", bad.Name)
				}
			}()
			RegisterMethod(bad)
		}()
	}
}
