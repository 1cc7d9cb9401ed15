package tcg

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// onsetBundle: 120 cells of 15 s; frontend's latency shifts by shift from
// cell onset on, with the cells in gap (when given) back at baseline.
func onsetBundle(t *testing.T, onset int, gap []int) *ingest.Bundle {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	lat := series("frontend_latency", svc("frontend"), ingest.SignalLatency, "s", 120, 0.080, 0.004, 0.200, onset, rng)
	for _, i := range gap {
		lat.V[i] = 0.080
	}
	b := &ingest.Bundle{Series: []*ingest.Series{lat,
		series("frontend_cpu", svc("frontend"), ingest.SignalCPU, "", 120, 0.5, 0.02, 0, -1, rng)}}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	return b
}

// incidentAt is an incident of frontend's latency with its 5-minute window
// centred on cell at.
func incidentAt(b *ingest.Bundle, at int) Incident {
	t := t0.Add(time.Duration(at) * 15 * time.Second)
	return Incident{Target: Target{Service: "frontend", Signal: ingest.SignalLatency}, At: t,
		WindowStart: t - ingest.Time(150*time.Second), WindowEnd: t + ingest.Time(150*time.Second), BaselineStart: b.Start}
}

// TestExtendToOnset: a window centred on a late alert starts inside the
// incident; it reaches back to a sample before the target's onset, no
// farther than the deviation holds or the lookback allows, and not at all
// when the window saw the onset or the extension is off.
func TestExtendToOnset(t *testing.T) {
	cell := func(i int) ingest.Time { return t0.Add(time.Duration(i) * 15 * time.Second) }
	for _, tc := range []struct {
		name     string
		onset    int   // the target's shift begins here
		gap      []int // cells back at baseline
		lookback time.Duration
		reach    time.Duration // Options.MinOnsetReach
		want     int           // the window's first cell; -1: unchanged
	}{
		// The window centred on cell 100 starts at cell 90.
		{"onset 8 cells before the window", 82, nil, 0, 0, 81},
		{"onset inside the window", 95, nil, 0, 0, -1},
		{"one cell back at baseline is tolerated", 82, []int{86}, 0, 0, 81},
		{"two cells back at baseline end the deviation", 82, []int{84, 85}, 0, 0, 85},
		{"a deviation under MinOnsetReach before the window", 88, nil, 0, 0, -1},
		{"no MinOnsetReach: a sample back is enough", 88, nil, 0, -1, 87},
		{"lookback 1m bounds it", 82, nil, time.Minute, 0, 86},
		{"off", 82, nil, -1, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := onsetBundle(t, tc.onset, tc.gap)
			inc := incidentAt(b, 100)
			opt := Options{OnsetLookback: tc.lookback, MinOnsetReach: tc.reach}
			g, err := Build(b, inc, opt)
			if err != nil {
				t.Fatal(err)
			}
			ext, ok := ExtendToOnset(g, opt)
			if tc.want < 0 {
				if ok || ext.WindowStart != inc.WindowStart || ext.WindowChosenBy != "" {
					t.Fatalf("extended to %v (%q), want the window as it was", ext.WindowStart, ext.WindowChosenBy)
				}
				return
			}
			if !ok || ext.WindowStart != cell(tc.want) {
				t.Fatalf("window start %v (ok %v), want cell %d = %v", ext.WindowStart, ok, tc.want, cell(tc.want))
			}
			if ext.WindowEnd != inc.WindowEnd || ext.At != inc.At || !strings.HasPrefix(ext.WindowChosenBy, "reaches back") {
				t.Errorf("end %v at %v note %q", ext.WindowEnd, ext.At, ext.WindowChosenBy)
			}
			// The rebuilt graph sees the onset inside the window, against a
			// baseline without it (when the lookback reached it).
			if tc.want > tc.onset {
				return
			}
			g2, err := Build(b, ext, opt)
			if err != nil {
				t.Fatal(err)
			}
			n := g2.Nodes[g2.Target]
			if !n.Anomaly.Anomalous || n.Anomaly.OnsetIdx <= g2.W0 {
				t.Errorf("after: anomalous %v, onset cell %d, window from %d", n.Anomaly.Anomalous, n.Anomaly.OnsetIdx, g2.W0)
			}
		})
	}
}
