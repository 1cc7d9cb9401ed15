package causal

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

var originT0 = ingest.FromTime(time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC))

// originIncident analyses a bundle with frontend's errors as the target,
// the incident window over the last 20 of 80 one-minute cells.
func originIncident(t *testing.T, b *ingest.Bundle) (*tcg.Graph, *Result) {
	t.Helper()
	features.Finalize(b, ingest.Options{Step: time.Minute}, features.Options{})
	at := originT0.Add(65 * time.Minute)
	inc := tcg.Incident{Target: tcg.Target{Service: "frontend", Signal: ingest.SignalErrors}, At: at,
		WindowStart: originT0.Add(60 * time.Minute), WindowEnd: b.End, BaselineStart: b.Start}
	g, err := tcg.Build(b, inc, tcg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ex strings.Builder
	res, err := Analyze(g, b, Options{Explain: &ex})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n" + ex.String())
		}
	})
	return g, res
}

// ratioSeries is a success ratio with its request counts per cell: at 1
// (with a little jitter) until onset, then fail of the requests failing.
func ratioSeries(ent ingest.Entity, labels ingest.Labels, reqs float64, onset int, fail float64) []*ingest.Series {
	r := &ingest.Series{Name: "request_success_ratio", Entity: ent, Signal: ingest.SignalErrors, Stat: "success_ratio", Unit: "ratio",
		Labels: labels, Source: "test"}
	c := &ingest.Series{Name: "requests", Entity: ent, Signal: ingest.SignalTraffic, Labels: append(labels, ingest.Label{Name: "stat", Value: "Sum"}),
		Source: "test"}
	for i := 0; i < 80; i++ {
		tm := originT0.Add(time.Duration(i) * time.Minute)
		v := 1.0 - 0.002*float64(i%3)
		if onset >= 0 && i >= onset {
			v = 1 - fail
		}
		r.T, r.V = append(r.T, tm), append(r.V, v)
		c.T, c.V = append(c.T, tm), append(c.V, reqs)
	}
	return []*ingest.Series{r, c}
}

func svcEnt(name string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindService, Name: name, Service: name}
}

// TestErrorOriginEdgeMetrics: per-service success ratios with their
// request counts and a call graph (a mesh's or CloudWatch's metrics),
// frontend → checkout → cart, all failing from the same minute: the
// callers whose failures are their callee's failures passed on own none of
// them (not half, as a parent that merely moved first would leave them)
// and the deepest failing service is the first cause; when the callee did
// not fail, the caller's own failures are its own.
func TestErrorOriginEdgeMetrics(t *testing.T) {
	deps := []ingest.Dependency{{Parent: "frontend", Child: "checkout", CallCount: 100}, {Parent: "checkout", Child: "cart", CallCount: 100}}
	t.Run("the callee's failures passed on", func(t *testing.T) {
		b := &ingest.Bundle{Deps: deps}
		b.Series = append(b.Series, ratioSeries(svcEnt("frontend"), nil, 400, 63, 0.3)...)
		b.Series = append(b.Series, ratioSeries(svcEnt("checkout"), nil, 400, 63, 0.3)...)
		b.Series = append(b.Series, ratioSeries(svcEnt("cart"), nil, 400, 63, 0.3)...)
		g, res := originIncident(t, b)
		ev := Evidence(g)
		co := ev[g.NodeByID("service/checkout:errors")]
		if !(co.ZPhys <= 1) {
			t.Errorf("checkout's own failures %.1f scales, want about 0: they are cart's", co.ZPhys)
		}
		if ca := ev[g.NodeByID("service/cart:errors")]; ca.ZPhys == ca.ZPhys && ca.ZPhys < 3 {
			t.Errorf("cart's own failures %.1f scales: nothing it calls failed", ca.ZPhys)
		}
		if len(res.Candidates) == 0 || res.Candidates[0].Service != "cart" {
			t.Fatalf("first cause %+v, want cart", res.Candidates[:min(1, len(res.Candidates))])
		}
		if sh := res.Candidates[0].Intervention.ExplainedShare; !(sh > 0.8) {
			t.Errorf("cart explains %.2f of frontend's failures, want nearly all", sh)
		}
	})
	t.Run("the caller's own failures", func(t *testing.T) {
		b := &ingest.Bundle{Deps: deps}
		b.Series = append(b.Series, ratioSeries(svcEnt("frontend"), nil, 400, 64, 0.3)...)
		b.Series = append(b.Series, ratioSeries(svcEnt("checkout"), nil, 400, 64, 0.3)...)
		b.Series = append(b.Series, ratioSeries(svcEnt("cart"), nil, 400, -1, 0)...)
		g, res := originIncident(t, b)
		if len(res.Candidates) == 0 || res.Candidates[0].Service != "checkout" {
			t.Errorf("first cause %+v, want checkout: its callee did not fail", res.Candidates[:min(1, len(res.Candidates))])
		}
		if n := g.Nodes[g.NodeByID("service/cart:errors")]; n.Anomalous {
			t.Fatalf("cart's errors anomalous (%.1f σ), want quiet", n.Score)
		}
		for _, c := range res.Candidates {
			if c.Service == "cart" && c.Signal == ingest.SignalErrors {
				t.Errorf("cart's errors are a candidate: %s", c.NodeID)
			}
		}
	})
}

// TestErrorOriginSpans: spans with error status (OTLP status, Jaeger's
// error tag, as the readers set Span.Error), frontend → checkout → cart:
// a third of the requests fail from the same minute at every hop, the
// callers' because their calls failed: the failures began at cart, which
// explains nearly all of the frontend's.
func TestErrorOriginSpans(t *testing.T) {
	b := &ingest.Bundle{}
	svcs := []ingest.Sym{ingest.Intern("frontend"), ingest.Intern("checkout"), ingest.Intern("cart")}
	ops := []ingest.Sym{ingest.Intern("GET /checkout"), ingest.Intern("PlaceOrder"), ingest.Intern("ListItems")}
	var id uint64
	for i := 0; i < 80; i++ {
		for k := 0; k < 20; k++ {
			id++
			start := originT0.Add(time.Duration(i)*time.Minute + time.Duration(k)*2*time.Second)
			fail := i >= 63 && k%3 == 0 // a third of the requests from 03:03 on
			tr := ingest.TraceID{Low: id}
			var parent ingest.SpanID
			for h := range svcs {
				sid := ingest.SpanID(4*id + uint64(h) + 1)
				b.Spans = append(b.Spans, ingest.Span{TraceID: tr, SpanID: sid, ParentID: parent, Start: start.Add(time.Duration(h) * time.Millisecond),
					Duration: time.Duration(40-10*h) * time.Millisecond, Service: svcs[h], Operation: ops[h], Kind: ingest.SpanServer, Error: fail})
				parent = sid
			}
		}
	}
	g, res := originIncident(t, b)
	if g.Target < 0 || !g.Nodes[g.Target].Anomalous {
		t.Fatalf("target %d not anomalous", g.Target)
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Service != "cart" {
		var got []string
		for _, c := range res.Candidates {
			got = append(got, c.NodeID)
		}
		t.Fatalf("causes %v, want cart first", got)
	}
	if sh := res.Candidates[0].Intervention.ExplainedShare; !(sh > 0.8) {
		t.Errorf("cart explains %.2f of frontend's failures, want nearly all", sh)
	}
}

// TestErrorOriginTargetInNoise: frontend's success ratio wanders in its
// baseline (0 to 1.2% failures), so the 0.8% of the window is no anomaly;
// what it calls, lists, failed a clean 2% of its requests from a success
// ratio of exactly 1, the same failed requests; a step function it also
// calls got six times slower in the same minutes, a larger deviation that
// cannot fail a request. The target barely moved, but its failures still
// have an origin: lists explains them (its share of the window's failures,
// targetFailureShares) and ranks first; the latency explains none.
func TestErrorOriginTargetInNoise(t *testing.T) {
	deps := []ingest.Dependency{{Parent: "frontend", Child: "lists", CallCount: 100}, {Parent: "frontend", Child: "stepfn", CallCount: 100}}
	b := &ingest.Bundle{Deps: deps}
	ratio := func(name string, reqs float64, v func(i int) float64) {
		ent := svcEnt(name)
		r := &ingest.Series{Name: "request_success_ratio", Entity: ent, Signal: ingest.SignalErrors, Stat: "success_ratio", Unit: "ratio", Source: "test"}
		c := &ingest.Series{Name: "requests", Entity: ent, Signal: ingest.SignalTraffic, Labels: ingest.Labels{{Name: "stat", Value: "Sum"}}, Source: "test"}
		for i := 0; i < 80; i++ {
			tm := originT0.Add(time.Duration(i) * time.Minute)
			r.T, r.V = append(r.T, tm), append(r.V, v(i))
			c.T, c.V = append(c.T, tm), append(c.V, reqs)
		}
		b.Series = append(b.Series, r, c)
	}
	ratio("frontend", 700, func(i int) float64 {
		if i >= 64 {
			return 0.992
		}
		return 1 - 0.004*float64(i%4)
	})
	ratio("lists", 180, func(i int) float64 {
		if i >= 64 {
			return 0.98
		}
		return 1
	})
	latency := func(name string, base, window float64) {
		lat := &ingest.Series{Name: "request_duration_seconds", Entity: svcEnt(name), Signal: ingest.SignalLatency, Stat: "p90", Unit: "s", Source: "test"}
		for i := 0; i < 80; i++ {
			v := base * (1 + 0.04*float64(i%5))
			if i >= 63 {
				v = window
			}
			lat.T, lat.V = append(lat.T, originT0.Add(time.Duration(i)*time.Minute)), append(lat.V, v)
		}
		b.Series = append(b.Series, lat)
	}
	latency("stepfn", 0.5, 3)
	latency("frontend", 0.1, 0.1)
	g, res := originIncident(t, b)
	if targetMoved(g) {
		t.Fatalf("frontend's errors moved (%.1f σ): the test needs a target within its noise", g.Nodes[g.Target].Score)
	}
	if n := g.Nodes[g.NodeByID("service/lists:errors")]; !n.Anomalous {
		t.Fatalf("lists' clean break is not anomalous (%.1f σ)", n.Score)
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Service != "lists" {
		t.Fatalf("first cause %+v, want lists: its failures are frontend's", res.Candidates[:min(1, len(res.Candidates))])
	}
	if sh := res.Candidates[0].Terms[TermTargetShare]; !(sh > 0.5) {
		t.Errorf("lists' share of frontend's failures %.2f, want most of them", sh)
	}
	for _, c := range res.Candidates {
		if c.Service == "stepfn" && c.Terms[TermTargetShare] != 0 {
			t.Errorf("stepfn's latency takes a share %.2f of frontend's failures", c.Terms[TermTargetShare])
		}
	}
}
