package tcg

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
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
			b := &ingest.Bundle{Spans: []ingest.Span{{TraceID: ingest.TraceID{Low: 1}, SpanID: 1, Service: ingest.Intern("front"), Operation: ingest.Intern("GET /"),
				Kind: ingest.SpanServer, Start: t0.Add(7 * time.Second), Duration: 20 * time.Millisecond, Source: ingest.Intern("one.json")}}}
			features.Finalize(b, ingest.Options{}, features.Options{})
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

// TestResolveIncidentBounds: a window wholly outside the data is refused
// (clamping it would give a window that ends before it starts), a window
// that starts before the data gets an empty baseline (never one that ends
// before it starts), and many firing alerts are counted in how the target
// was chosen.
func TestResolveIncidentBounds(t *testing.T) {
	b := chainBundle(t) // 100 cells of 15 s from t0
	tgt := Target{Service: "frontend", Signal: ingest.SignalLatency}
	for _, at := range []ingest.Time{b.End.Add(10 * time.Minute), b.Start.Add(-time.Hour)} {
		if inc, err := ResolveIncident(b, IncidentSpec{At: at, Target: tgt}); err == nil {
			t.Errorf("at %v: no error, window %v → %v", at, inc.WindowStart, inc.WindowEnd)
		}
	}
	inc, err := ResolveIncident(b, IncidentSpec{At: b.Start.Add(time.Minute), Window: 10 * time.Minute, Target: tgt})
	if err != nil {
		t.Fatal(err)
	}
	if inc.BaselineStart > inc.WindowStart || inc.WindowStart > inc.WindowEnd {
		t.Errorf("baseline %v → %v, window %v → %v", inc.BaselineStart, inc.WindowStart, inc.WindowStart, inc.WindowEnd)
	}
	for i := 0; i < 10_000; i++ {
		b.Alerts = append(b.Alerts, ingest.Alert{Name: "A", Status: "firing", StartsAt: t0.Add(time.Duration(20*60+i) * time.Second),
			Service: "frontend", Signal: ingest.SignalLatency, Source: "alert.json"})
	}
	inc, err = ResolveIncident(b, IncidentSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "the earliest of 10000 firing alerts"; !strings.Contains(inc.TargetChosenBy, want) || !strings.Contains(inc.AtChosenBy, want) {
		t.Errorf("chosen by %q / %q, want %q", inc.TargetChosenBy, inc.AtChosenBy, want)
	}
}
