package tcg_test

import (
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestCallPairs: the call topology compare orders regressions along is the
// graph's: dependencies and call-edge series (measured or derived from
// spans, aligned as the graph's nodes are), one pair each, sorted, self-calls
// left out, other series ignored.
func TestCallPairs(t *testing.T) {
	edge := func(caller, callee string) *ingest.Series {
		return &ingest.Series{Name: "edge_latency", Signal: ingest.SignalLatency, Aligned: true,
			Entity: ingest.Entity{Kind: ingest.KindEdge, Name: caller + "->" + callee, Caller: caller, Callee: callee}}
	}
	b := &ingest.Bundle{
		Deps: []ingest.Dependency{{Parent: "frontend", Child: "cart"}, {Parent: "cart", Child: "cart"}},
		Series: []*ingest.Series{
			edge("frontend", "checkout"), edge("checkout", "payment"), edge("frontend", "cart"), edge("payment", "payment"),
			{Name: "cpu", Signal: ingest.SignalCPU, Entity: ingest.Entity{Kind: ingest.KindService, Name: "cart", Service: "cart"}},
		},
	}
	want := [][2]string{{"checkout", "payment"}, {"frontend", "cart"}, {"frontend", "checkout"}}
	if got := tcg.CallPairs(b); !slices.Equal(got, want) {
		t.Errorf("CallPairs = %v, want %v", got, want)
	}
	if got := tcg.CallPairs(&ingest.Bundle{}); len(got) != 0 {
		t.Errorf("an empty bundle has pairs %v", got)
	}
}
