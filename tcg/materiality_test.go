package tcg

import (
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestMaterialParts: a service's own processing time that rises far
// beyond its own flat baseline but by little in its latency's terms (2 ms
// on a latency that varies by 10 ms) is not an anomaly of its own; a rise
// that matters to the latency (60 ms) keeps its score.
func TestMaterialParts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rise      float64 // seconds of own time added from the onset
		anomalous bool
	}{{"immaterial", 0.002, false}, {"material", 0.060, true}} {
		t.Run(tc.name, func(t *testing.T) {
			const n, onset = 80, 70
			step := 15 * time.Second
			ent := svc("orders")
			lat := &ingest.Series{Name: ingest.TraceLatency, Entity: ent, Signal: ingest.SignalLatency, Stat: "mean", Unit: "s", Source: ingest.DerivedSource}
			self := &ingest.Series{Name: ingest.TraceSelf, Entity: ent, Signal: ingest.SignalLatency, Stat: "self", Unit: "s", Source: ingest.DerivedSource}
			for i := 0; i < n; i++ {
				tm := t0.Add(time.Duration(i) * step)
				own := 0.001 + 0.00001*float64(i%3)
				calls := 0.1 + 0.01*float64(i%5-2) // the calls vary by ±20 ms
				if i >= onset {
					own += tc.rise
				}
				lat.T, lat.V = append(lat.T, tm), append(lat.V, own+calls)
				self.T, self.V = append(self.T, tm), append(self.V, own)
			}
			b := &ingest.Bundle{Series: []*ingest.Series{lat, self}}
			features.Finalize(b, ingest.Options{Step: step}, features.Options{})
			at := t0.Add(onset * step)
			inc := Incident{Target: Target{Service: "orders", Signal: ingest.SignalLatency}, At: at,
				WindowStart: at - ingest.Time(2*step), WindowEnd: b.End, BaselineStart: b.Start}
			g, err := Build(b, inc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			i := g.NodeByID("service/orders:latency/self")
			if i < 0 {
				t.Fatal("no own-time node")
			}
			if nd := g.Nodes[i]; nd.Anomalous != tc.anomalous {
				t.Errorf("own time %v → %v: anomalous %v (score %.1f), want %v", nd.Baseline, nd.Incident, nd.Anomalous, nd.Score, tc.anomalous)
			}
		})
	}
}
