package model

import (
	"math/rand/v2"
	"testing"
)

// TestSpanTableMatchesMap checks the table against a Go map: spans with
// repeated IDs (AddFrom keeps the first), one and several shards, trace IDs
// that differ only in one half, lookups of present and absent keys, and
// Insert of fresh keys.
func TestSpanTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, shards := range []int{1, 2, 4} {
		for _, n := range []int{0, 1, 10, 5000} {
			spans := make([]Span, n)
			for i := range spans {
				spans[i] = Span{TraceID: TraceID{High: uint64(r.IntN(3)), Low: uint64(r.IntN(50))}, SpanID: SpanID(r.IntN(n/2 + 1))}
			}
			tab := NewSpanTable(n, shards)
			want := map[SpanKey]int32{}
			for i := range spans {
				_, slot := tab.Home(spans[i].TraceID, spans[i].SpanID)
				k := SpanKey{spans[i].TraceID, spans[i].SpanID}
				_, seen := want[k]
				if !seen {
					want[k] = int32(i)
				}
				if got := tab.AddFrom(spans, int32(i), slot); got == seen {
					t.Fatalf("shards %d, n %d: AddFrom of span %d inserted %v, want %v", shards, n, i, got, !seen)
				}
			}
			for i := 0; i < 2*n+10; i++ {
				k := SpanKey{TraceID{High: uint64(r.IntN(4)), Low: uint64(r.IntN(60))}, SpanID(r.IntN(n/2 + 3))}
				w, ok := want[k]
				if !ok {
					w = -1
				}
				if got := tab.Lookup(spans, k.Trace, k.Span); got != w {
					t.Fatalf("shards %d, n %d: Lookup(%v) = %d, want %d", shards, n, k, got, w)
				}
			}
		}
	}
	// Insert: every span of distinct IDs is found at its index.
	spans := make([]Span, 3000)
	for i := range spans {
		spans[i] = Span{TraceID: TraceID{Low: r.Uint64()}, SpanID: SpanID(i)}
	}
	tab := NewSpanTable(len(spans), 1)
	for i := range spans {
		tab.Insert(spans, int32(i))
	}
	for i := range spans {
		if got := tab.Lookup(spans, spans[i].TraceID, spans[i].SpanID); got != int32(i) {
			t.Fatalf("Insert then Lookup of span %d gave %d", i, got)
		}
	}
}
