package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/canarytest"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestRolloutItems: a before/after comparison whose AFTER window holds a
// rollout judges the new version's pods against the old ones in the same
// minutes (no baseline band needed): the defective release regresses and is
// listed, the healthy one is unchanged; a comparison whose windows end
// before the rollout has no rollout item.
func TestRolloutItems(t *testing.T) {
	cs := canarytest.Healthy()
	cs.Success = func(svc string, v2 bool, _ int) float64 {
		if svc == "cart" && v2 {
			return 0.80
		}
		return 0.995
	}
	b, err := features.Read([]string{cs.Write(t)}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))
	at := func(m int) ingest.Time { return t0.Add(time.Duration(m) * time.Minute) }
	side := func(a, z int) Side { return Side{Bundle: b, Start: at(a), End: at(z)} }

	rep, err := Run(side(2, 9), side(15, 25), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.Verdict{}
	for _, it := range rep.Items {
		if it.Kind == model.KindRollout {
			got[it.Service] = it.Verdict
		}
	}
	if got["cart"] != model.Regressed || got["pay"] != model.Unchanged {
		t.Fatalf("rollout items %v, want cart regressed and pay unchanged", got)
	}
	listed := false
	for _, f := range rep.Regressions {
		listed = listed || strings.HasPrefix(f.Item, "rollout/cart") && strings.Contains(f.Text, "errors low")
	}
	if !listed || rep.Verdict.Regressions == 0 {
		t.Errorf("regressions %+v (verdict %q): want the cart rollout listed with its critical metric", rep.Regressions, rep.Verdict.Text)
	}

	quiet, err := Run(side(0, 4), side(4, 8), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range quiet.Items {
		if it.Kind == model.KindRollout {
			t.Errorf("windows before the rollout: rollout item %+v", it)
		}
	}
}

// TestFullRolloutItem: a rollout inside AFTER's window whose old pods went
// as the new ones came cannot be judged in the same minutes; it is judged
// before against after — regressed when its workload's latency or errors
// regressed (cart: p99 ×4 on the new version), unchanged otherwise (pay) —
// and a regressed rollout is listed first.
func TestFullRolloutItem(t *testing.T) {
	cs := canarytest.Healthy()
	cs.OldUntil = 11 // the old pods go a minute after the new one comes (minute 10)
	cs.Latency = func(svc string, v2 bool, _ int) float64 {
		if svc == "cart" && v2 {
			return 0.480
		}
		return 0.120
	}
	b, err := features.Read([]string{cs.Write(t)}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))
	at := func(m int) ingest.Time { return t0.Add(time.Duration(m) * time.Minute) }
	rep, err := Run(Side{Bundle: b, Start: at(7), End: at(10)}, Side{Bundle: b, Start: at(10), End: at(20)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range rep.Items {
		if it.Kind == model.KindRollout {
			got[it.Service] = string(it.Verdict) + ": " + it.Reason
		}
	}
	if !strings.HasPrefix(got["cart"], "regressed: a full rollout") || !strings.HasPrefix(got["pay"], "unchanged: a full rollout") {
		t.Fatalf("rollout items %q, want cart regressed and pay unchanged, as full rollouts", got)
	}
	if len(rep.Regressions) == 0 || !strings.HasPrefix(rep.Regressions[0].Item, "rollout/cart") {
		t.Errorf("regressions %+v: want the cart rollout first", rep.Regressions)
	}
}

// TestTargetMeasuredByItsCalls: a target with no series of its own for its
// signal (an ingress measured only by its mesh's per-edge series) is
// measured by its calls, caller side; those stay among the regressions,
// where they name the service called.
func TestTargetMeasuredByItsCalls(t *testing.T) {
	b := &ingest.Bundle{}
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))
	for _, callee := range []string{"cart", "pay"} {
		s := &ingest.Series{Name: "request_success_ratio", Unit: "ratio", Source: "metrics.json",
			Labels: ingest.Labels{{Name: "destination_workload", Value: callee}, {Name: "reporter", Value: "source"}, {Name: "source_workload", Value: "frontend"}}}
		for m := range 30 {
			v := 1 - 0.002*float64(m%3)
			if callee == "cart" && m >= 20 {
				v = 0.7
			}
			s.T, s.V = append(s.T, t0.Add(time.Duration(m)*time.Minute)), append(s.V, v)
		}
		ingest.ClassifySeries(s)
		b.Series = append(b.Series, s)
	}
	ingest.Finalize(b, ingest.Options{Step: time.Minute})
	opt := DefaultOptions()
	opt.Target.Service, opt.Target.Signal = "frontend", ingest.SignalErrors
	at := func(m int) ingest.Time { return t0.Add(time.Duration(m) * time.Minute) }
	rep, err := Run(Side{Bundle: b, Start: at(15), End: at(20)}, Side{Bundle: b, Start: at(20), End: at(25)}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Target.Verdict != model.Regressed || !strings.Contains(rep.Target.Text, "measured by its calls") {
		t.Errorf("target %s (%s), want regressed, measured by its calls", rep.Target.Verdict, rep.Target.Text)
	}
	if len(rep.Regressions) != 1 || !strings.HasPrefix(rep.Regressions[0].Item, "series/edge/frontend->cart:errors") || rep.Verdict.Regressions != 1 {
		t.Errorf("regressions %+v (%d), want the call to cart alone", rep.Regressions, rep.Verdict.Regressions)
	}
}

// TestCausesFirst: among regressions, a service's latency or errors that a
// regression of the same signal in a service it calls explains comes after
// it (an effect does not outrank its cause), each group in its order; a
// callee that got worse by much less explains nothing, and other signals
// and services on a call cycle keep their place.
func TestCausesFirst(t *testing.T) {
	r := &run{opt: DefaultOptions(), calls: map[string]map[string]bool{
		"gateway": {"cart": true, "auth": true}, "cart": {"db": true, "cache": true}, "cache": {"cart": true}, "auth": {"db": true},
	}}
	// w is a regressed series of svc's sig that rose by d (in seconds or
	// a share of requests failing).
	w := func(svc, sig string, d float64) *itemWork {
		return &itemWork{item: model.Item{ID: svc + ":" + sig, Service: svc, Signal: sig, Kind: model.KindSeries, Direction: +1, Unit: "s",
			Before: model.Stats{Median: 1}, After: model.Stats{Median: 1 + d}}}
	}
	regs := []*itemWork{w("gateway", "latency", 1.1), w("cart", "latency", 1), w("gateway", "cpu", 1), w("db", "latency", 1),
		w("cart", "errors", 0.2), w("cache", "latency", 0.5), w("gateway", "errors", 0.2), w("auth", "latency", 30),
		w("gateway", "logs", 50), w("db", "logs", 50)}
	var got []string
	for _, x := range r.causesFirst(regs) {
		got = append(got, x.item.ID)
	}
	// gateway's and cart's latency are explained by db's (below both, as
	// large); cache's by db's too (cache calls cart, which calls db);
	// gateway's errors by cart's; auth's 30 s not by db's 1 s; cart's
	// errors by none; cpu is not propagated; gateway's new log records by
	// the latency or errors of any service it calls (callers log their
	// callees' failures), db's by none (it calls nobody).
	want := []string{"gateway:cpu", "db:latency", "cart:errors", "auth:latency", "db:logs", "gateway:latency", "cart:latency", "cache:latency", "gateway:errors", "gateway:logs"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", got, want)
	}
}
