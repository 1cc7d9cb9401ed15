package tcg

import (
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestTailTestsWindowOutsideData: an incident window after (or before) all
// the data leaves no baseline cells, and B0 can be len(Grid). tailTests
// indexed the grid before checking that (index out of range on a one-span
// file analysed with --at a few minutes later: the span starts between grid
// points, so BaselineStart maps to cell 1 of a one-cell grid); Build must
// not panic.
func TestTailTestsWindowOutsideData(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   time.Duration // after the span's start
	}{
		{"one span, at +3m", 3 * time.Minute},
		{"one span, at +10m", 10 * time.Minute},
		{"one span, at -1h", -time.Hour},
		{"one span, at the span", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &ingest.Bundle{Spans: []ingest.Span{{TraceID: ingest.TraceID{Low: 1}, SpanID: 1, Service: "front", Operation: "GET /",
				Kind: ingest.SpanServer, Start: t0.Add(7 * time.Second), Duration: 20 * time.Millisecond, Source: "one.json"}}}
			if err := b.Finalize(ingest.Options{}); err != nil {
				t.Fatal(err)
			}
			at := t0.Add(tc.at)
			inc := Incident{Target: Target{Service: "front", Signal: ingest.SignalLatency}, At: at,
				WindowStart: at - ingest.Time(150*time.Second), WindowEnd: at + ingest.Time(150*time.Second), BaselineStart: b.Start}
			g, err := Build(b, inc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.B0 > g.B1 || g.W1 > len(g.Grid) {
				t.Errorf("cells B[%d,%d) W[%d,%d) on a grid of %d", g.B0, g.B1, g.W0, g.W1, len(g.Grid))
			}
		})
	}
}
