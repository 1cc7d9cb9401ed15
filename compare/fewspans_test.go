package compare

import (
	"math"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
)

// TestExactMannWhitney: the exact two-sided p-value against the complete
// null distribution (enumerated by hand for 3 against 4: C(7,3) = 35
// arrangements), and complete separation of 10 against 12 (2/C(22,10)).
func TestExactMannWhitney(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		want float64
	}{
		{sorted(1, 2, 3), sorted(4, 5, 6, 7), 2.0 / 35},
		{sorted(1, 2, 5), sorted(3, 4, 6, 7), 2 * 4.0 / 35}, // U = 10: P(U ≥ 10) = 4/35
		{sorted(1, 3, 5, 7), sorted(2, 4, 6), 1},
		{sorted(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), sorted(11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22), 2 / 646646.0},
	} {
		if got := exactMannWhitney(c.x, c.y); !near(got, c.want, 1e-9) {
			t.Errorf("exactMannWhitney(%v, %v) = %g, want %g", c.x, c.y, got, c.want)
		}
	}
	if got := exactMannWhitney(nil, sorted(1)); !math.IsNaN(got) {
		t.Errorf("empty side: %g, want NaN", got)
	}
}

// TestFewSpans: a service with about 20 spans per 5-minute window (fewer
// than MinSamples) is tested on its time cells (fewSpans): its latency
// 50× slower regresses, 1.15× slower (under a material change) is not
// called a regression (1.5× may be: it is one, and then power decides), and quiet
// pairs stay quiet (at most 1 in 20 with any change, and the few-span
// items are insufficient data, not unchanged, when nothing moved).
func TestFewSpans(t *testing.T) {
	run := func(seed uint64, slow float64, faultAt int) (model.Verdict, model.Item) {
		s := defaultSynth()
		s.seed, s.rate, s.slow, s.faultAt = seed, 0.07, slow, faultAt
		b := s.build(t)
		rep, err := Run(Side{Bundle: b, Start: at(20), End: at(25)}, Side{Bundle: b, Start: at(25), End: at(30)}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rep.Items {
			if it.ID == "service/backend:latency" {
				return rep.Verdict.Verdict, it
			}
		}
		t.Fatalf("seed %d: no backend latency item", seed)
		return "", model.Item{}
	}
	const runs = 20
	big, mid, small, alarms := 0, 0, 0, 0
	for seed := range uint64(runs) {
		if _, it := run(seed+1, 50, 25); it.Verdict == model.Regressed {
			big++
		} else if seed == 0 {
			t.Logf("50× slower: %s (%s; %d and %d spans)", it.Verdict, it.Reason, it.Before.N, it.After.N)
		}
		if _, it := run(seed+1, 1.5, 25); it.Verdict == model.Regressed {
			mid++
		}
		if _, it := run(seed+1, 1.15, 25); it.Verdict == model.Regressed {
			small++
		}
		s := defaultSynth()
		s.seed, s.rate = seed+1000, 0.07
		b := s.build(t)
		rep, err := Run(Side{Bundle: b, Start: at(20), End: at(25)}, Side{Bundle: b, Start: at(25), End: at(30)}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rep.Items {
			if it.Kind == model.KindDistribution && it.Verdict != model.Insufficient && it.Test.Method == "cell-rank" {
				alarms++
				t.Logf("seed %d: %s %s: %s", seed+1000, it.Verdict, it.ID, it.Reason)
				break
			}
		}
	}
	t.Logf("about 20 spans a window: 50× slower regressed %d/%d, 1.5× %d/%d, 1.15× %d/%d, quiet pairs with a few-span change %d/%d", big, runs, mid, runs, small, runs, alarms, runs)
	if big < runs*9/10 {
		t.Errorf("50× slower with about 20 spans a window regressed in %d of %d runs; want at least 90%%", big, runs)
	}
	if small > 1 {
		t.Errorf("1.15× slower with about 20 spans a window regressed in %d of %d runs; want at most 1", small, runs)
	}
	if alarms > 1 {
		t.Errorf("%d of %d quiet pairs with about 20 spans a window reported a change; at most 1 in 20 allowed", alarms, runs)
	}
}
