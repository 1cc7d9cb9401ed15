package tcg

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// callsBundle: a checkout service serving about 20 requests a minute calls
// a payment service (its only caller: counted by payment's requests) once
// per request and a currency service (counted on the call edge, as a
// service-graph metric) four times per request, over 60 one-minute cells.
// From cell onset on, stop says what changes: "payment" — checkout stops
// calling payment while its own requests go on (an exception thrown before
// the call); "load" — checkout's requests halve and its calls with them;
// "none". With spans, checkout's requests are also counted from spans that
// cover only the last 15 cells (a trace export around the incident).
func callsBundle(t *testing.T, onset int, stop string, spans bool) *ingest.Bundle {
	t.Helper()
	step := time.Minute
	rate := func(name string, ent ingest.Entity) *ingest.Series {
		return &ingest.Series{Name: name, Entity: ent, Signal: ingest.SignalTraffic, Stat: "rate", Unit: "1/s", Source: "test"}
	}
	checkout := rate("requests_rate", svc("checkout"))
	payment := rate("requests_rate", svc("payment"))
	currency := rate("calls_rate", ingest.Entity{Kind: ingest.KindEdge, Name: "checkout->currency", Service: "currency", Caller: "checkout", Callee: "currency"})
	for i := 0; i < 60; i++ {
		tm := t0.Add(time.Duration(i) * step)
		reqs := 20 + float64(i%5) // per minute
		paid := reqs - float64(i%2)
		conv := 4*reqs + float64(i%3)
		switch {
		case i >= onset && stop == "payment":
			paid = 0
		case i >= onset && stop == "load":
			reqs, paid, conv = reqs/2, paid/2, conv/2
		}
		for _, p := range []struct {
			s *ingest.Series
			v float64
		}{{checkout, reqs}, {payment, paid}, {currency, conv}} {
			p.s.T, p.s.V = append(p.s.T, tm), append(p.s.V, p.v/60)
		}
	}
	series := []*ingest.Series{checkout, payment, currency}
	if spans {
		traced := &ingest.Series{Name: ingest.TraceRequests, Entity: svc("checkout"), Signal: ingest.SignalTraffic, Stat: "rate", Unit: "1/s",
			Source: ingest.DerivedSource}
		for i, tm := range checkout.T[len(checkout.T)-15:] {
			traced.T, traced.V = append(traced.T, tm), append(traced.V, checkout.V[len(checkout.V)-15+i])
		}
		series = append(series, traced)
	}
	b := &ingest.Bundle{Series: series,
		Deps: []ingest.Dependency{{Parent: "frontend", Child: "checkout"}, {Parent: "checkout", Child: "payment"}}}
	features.Finalize(b, ingest.Options{Step: step}, features.Options{})
	return b
}

// TestCallsPerRequest: a service that stops making a call its requests
// make, while its requests go on, is anomalous in its calls per request —
// a large, certain change in the bad direction, from the cell it stopped —
// also where spans count its requests around the incident only (the
// metrics' counts, which cover the baseline, judge it). Fewer requests
// making fewer calls, or nothing changing, is not anomalous.
func TestCallsPerRequest(t *testing.T) {
	const onset = 55
	for _, tc := range []struct {
		stop      string
		spans     bool
		anomalous bool
	}{{"payment", false, true}, {"payment", true, true}, {"load", false, false}, {"none", false, false}} {
		t.Run(fmt.Sprintf("%s/spans=%v", tc.stop, tc.spans), func(t *testing.T) {
			b := callsBundle(t, onset, tc.stop, tc.spans)
			at := t0.Add(onset * time.Minute)
			inc := Incident{Target: Target{Service: "checkout", Signal: ingest.SignalLatency}, At: at,
				WindowStart: at - ingest.Time(2*time.Minute), WindowEnd: b.End, BaselineStart: b.Start}
			g, err := Build(b, inc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			i := g.NodeByID("service/checkout:errors/calls")
			if i < 0 {
				t.Fatal("no calls node for checkout")
			}
			n := g.Nodes[i]
			if n.Anomalous != tc.anomalous {
				t.Fatalf("anomalous %v (score %.1f), want %v", n.Anomalous, n.Score, tc.anomalous)
			}
			if !tc.anomalous {
				return
			}
			if n.Dir != -1 || n.Score < 5 || g.Grid[n.OnsetIdx] != ingest.Time(at) {
				t.Errorf("dir %d score %.1f onset %v, want −1, ≥ 5 σ, onset at %v", n.Dir, n.Score, g.Grid[n.OnsetIdx], at)
			}
			if g.NodeByID("service/payment:errors/calls") >= 0 {
				t.Error("payment calls nothing, yet has a calls node")
			}
		})
	}
}

// TestPoissonResidual: the signed deviance residual is 0 at the expected
// count, negative below it, and √(2e) for none of e expected.
func TestPoissonResidual(t *testing.T) {
	for _, tc := range []struct{ k, e, want float64 }{
		{10, 10, 0}, {0, 8, -4}, {0, 2, -2},
	} {
		if got := poissonResidual(tc.k, tc.e); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("poissonResidual(%v, %v) = %v, want %v", tc.k, tc.e, got, tc.want)
		}
	}
	if r := poissonResidual(5, 10); !(r < 0) {
		t.Errorf("5 of 10 expected: %v, want < 0", r)
	}
	if r := poissonResidual(15, 10); !(r > 0) {
		t.Errorf("15 of 10 expected: %v, want > 0", r)
	}
	if r := poissonResidual(3, 0); !math.IsNaN(r) {
		t.Errorf("none expected: %v, want NaN", r)
	}
}
