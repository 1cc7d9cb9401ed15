package causal

import (
	"math"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestStatOf: the statistic a series measures, from its Stat or from the
// labels real exporters write (CloudWatch's stat, Prometheus summaries'
// quantile).
func TestStatOf(t *testing.T) {
	for _, c := range []struct {
		stat   string
		labels ingest.Labels
		want   string
	}{
		{"p90", ingest.Labels{{Name: "stat", Value: "p50"}}, "p90"}, // Stat wins
		{"", ingest.Labels{{Name: "node", Value: "PetSite"}, {Name: "stat", Value: "Average"}}, "mean"},
		{"", ingest.Labels{{Name: "stat", Value: "p95"}}, "p95"},
		{"", ingest.Labels{{Name: "quantile", Value: "0.99"}}, "p99"},
		{"", ingest.Labels{{Name: "quantile", Value: "0.5"}}, "p50"},
		{"", ingest.Labels{{Name: "quantile", Value: "0.999"}}, "p99.9"},
		{"", ingest.Labels{{Name: "stat", Value: "Sum"}}, ""},
		{"", ingest.Labels{{Name: "stat", Value: "pod"}}, ""},
		{"", nil, ""},
	} {
		if got := statOf(&ingest.Series{Stat: c.stat, Labels: c.labels}); got != c.want {
			t.Errorf("statOf(Stat %q, %v) = %q, want %q", c.stat, c.labels, got, c.want)
		}
	}
}

// mapT0 is the start of the service-map bundles below (5-minute cells, as
// CloudWatch's periods).
var mapT0 = ingest.FromTime(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))

// mapLatency is one service's latency statistic as a service map's
// metrics carry it (aws_latency_seconds{node, stat}; no Stat of its own):
// base with a little jitter, base+rise from cell onset on.
func mapLatency(svc, stat string, base, rise float64, onset int) *ingest.Series {
	s := &ingest.Series{Name: "aws_latency_seconds", Entity: svcEnt(svc), Signal: ingest.SignalLatency, Unit: "s", Source: "test",
		Labels: ingest.Labels{{Name: "node", Value: svc}, {Name: "stat", Value: stat}}}
	for i := 0; i < 40; i++ {
		v := base * (1 + 0.02*float64(i%4))
		if i >= onset {
			v += rise
		}
		s.T, s.V = append(s.T, mapT0.Add(time.Duration(i)*5*time.Minute)), append(s.V, v)
	}
	return s
}

// mapRequests is a service's request count per period.
func mapRequests(svc string, n float64) *ingest.Series {
	s := &ingest.Series{Name: "aws_requests", Entity: svcEnt(svc), Signal: ingest.SignalTraffic, Source: "test",
		Labels: ingest.Labels{{Name: "node", Value: svc}, {Name: "stat", Value: "Sum"}}}
	for i := 0; i < 40; i++ {
		s.T, s.V = append(s.T, mapT0.Add(time.Duration(i)*5*time.Minute)), append(s.V, n*(1+0.01*float64(i%3)))
	}
	return s
}

// mapGraph builds the graph of a service-map bundle with web's latency as
// the target, the window over the last 8 of 40 cells.
func mapGraph(t *testing.T, b *ingest.Bundle) *tcg.Graph {
	t.Helper()
	features.Finalize(b, ingest.Options{Step: 5 * time.Minute}, features.Options{})
	inc := tcg.Incident{Target: tcg.Target{Service: "web", Signal: ingest.SignalLatency}, At: mapT0.Add(33 * 5 * time.Minute),
		WindowStart: mapT0.Add(32 * 5 * time.Minute), WindowEnd: b.End, BaselineStart: b.Start}
	g, err := tcg.Build(b, inc, tcg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLatencyComposesByStatistic: statistics compose only with their own
// kind. web's median rises 0.2 s of its own while the database it calls
// gets slower only in its tail (p99 +1 s, median unchanged): the tail does
// not account for web's median, so web owns its rise. When the database's
// median rises as much, it does.
func TestLatencyComposesByStatistic(t *testing.T) {
	deps := []ingest.Dependency{{Parent: "web", Child: "db", CallCount: 100}}
	build := func(dbMedianRise float64) (*tcg.Graph, []NodeEvidence) {
		b := &ingest.Bundle{Deps: deps}
		b.Series = append(b.Series,
			mapLatency("web", "p50", 0.2, 0.2, 33), mapLatency("web", "p99", 0.5, 0.25, 33),
			mapLatency("db", "p50", 0.01, dbMedianRise, 33), mapLatency("db", "p99", 0.05, 1, 33),
			mapRequests("web", 1000), mapRequests("db", 1000))
		g := mapGraph(t, b)
		return g, Evidence(g)
	}
	t.Run("the callee's tail", func(t *testing.T) {
		g, ev := build(0)
		web := ev[g.NodeByID("service/web:latency")]
		if !(web.ZPhys > 10) {
			t.Errorf("web's own seconds %.1f scales, want large: db's p99 does not add to web's median (parts %v)", web.ZPhys, web.Parts)
		}
	})
	t.Run("the callee's tail alone", func(t *testing.T) {
		b := &ingest.Bundle{Deps: deps}
		b.Series = append(b.Series, mapLatency("web", "p50", 0.2, 0.2, 33), mapLatency("db", "p99", 0.05, 1, 33),
			mapRequests("web", 1000), mapRequests("db", 1000))
		g := mapGraph(t, b)
		web := Evidence(g)[g.NodeByID("service/web:latency")]
		if !(web.ZPhys > 10) && !math.IsNaN(web.ZPhys) {
			t.Errorf("web's own seconds %.1f scales, want large or unmeasured: db reports no median to compose with (parts %v)", web.ZPhys, web.Parts)
		}
	})
	t.Run("the callee's median", func(t *testing.T) {
		g, ev := build(0.2)
		web := ev[g.NodeByID("service/web:latency")]
		if !(web.ZPhys < 3) {
			t.Errorf("web's own seconds %.1f scales, want about 0: db's median rose as much", web.ZPhys)
		}
	})
}

// TestCalleeShareAsync: a workflow web starts for one request in twenty
// (a state machine, a queue consumer) takes 2 s longer, while web's mean
// latency rises 0.3 s of its own: the workflow adds at most a twentieth
// of its rise to web's mean, so web owns most of its rise; called by
// every request, the same rise would explain it all.
func TestCalleeShareAsync(t *testing.T) {
	deps := []ingest.Dependency{{Parent: "web", Child: "flow", CallCount: 50}}
	build := func(flowRequests float64) (*tcg.Graph, []NodeEvidence) {
		b := &ingest.Bundle{Deps: deps}
		b.Series = append(b.Series,
			mapLatency("web", "Average", 0.1, 0.3, 33), mapLatency("flow", "Average", 1.5, 2, 33),
			mapRequests("web", 1000), mapRequests("flow", flowRequests))
		g := mapGraph(t, b)
		return g, Evidence(g)
	}
	g, ev := build(50)
	web := ev[g.NodeByID("service/web:latency")]
	flow := g.NodeByID("service/flow:latency")
	if !(web.ZPhys > 10) {
		t.Errorf("web's own seconds %.1f scales, want large: flow serves 5%% of its requests", web.ZPhys)
	}
	if got := web.Parts[flow]; !(math.Abs(got-0.1) < 0.02) {
		t.Errorf("flow's part of web's rise %.3f s, want 2 s × 50/1000 = 0.1 s", got)
	}
	g, ev = build(1000)
	if web := ev[g.NodeByID("service/web:latency")]; !(web.ZPhys < 0) {
		t.Errorf("called by every request, flow's 2 s leave web %.1f own scales, want none", web.ZPhys)
	}
	if s := calleeShare(g, nodesByEntity(g), g.Nodes[g.NodeByID("service/flow:latency")], g.Nodes[g.NodeByID("service/web:latency")], []int{34, 35}); !(s == 1) {
		t.Errorf("calleeShare %.3f for a callee serving every request, want 1 (capped)", s)
	}
}
