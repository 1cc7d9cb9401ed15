package tcg

import (
	"math"
	"testing"
)

// spiky is a flat series (0.03 s) with a 12 s spike every 15 samples in
// its baseline [0,60) and the given window values after it.
func spiky(window []float64) []float64 {
	v := make([]float64, 0, 60+len(window))
	for i := range 60 {
		x := 0.03 + 0.01*float64(i%3)
		if i%15 == 7 {
			x = 12
		}
		v = append(v, x)
	}
	return append(v, window...)
}

func TestRecurrenceCapRoutineSpike(t *testing.T) {
	// One spike in five window samples (the last: an onset the data end
	// on), as often as the baseline spikes: no evidence beyond the
	// baseline's own rate.
	v := spiky([]float64{0.03, 0.04, 0.03, 0.05, 13})
	raw := detect(v, 0, 60, 60, 65, 1, 3, nil)
	if !raw.Anomalous || raw.Score < 50 {
		t.Fatalf("without the cap the spike should read as a large deviation, got %+v", raw)
	}
	capped := recurrenceCap(raw, v, 0, 60, 60, 65, 1, 1, DefaultRecurrenceShare)
	if capped.Score > 3 {
		t.Errorf("a spike at the baseline's rate scores %.1f, want ≤ 3 (raw %.1f)", capped.Score, raw.Score)
	}
	// The evidence says how often: 4 spikes in 60 baseline samples, 1 of
	// the window's samples from onset.
	if r := capped.Recurrence; r == nil || r.BaselineHits != 4 || r.BaselineN != 60 || r.WindowHits != 1 || r.Raw != raw.Score || r.Score != capped.Score {
		t.Errorf("recurrence %+v, want 4 of 60 baseline samples, 1 in the window, raw %.1f", r, raw.Score)
	}
	// Four spikes in five samples against one in fifteen: far above the
	// baseline's rate, so still strong evidence, but not 100 σ.
	v = spiky([]float64{13, 12.5, 14, 0.03, 13})
	raw = detect(v, 0, 60, 60, 65, 1, 3, nil)
	capped = recurrenceCap(raw, v, 0, 60, 60, 65, 1, 1, DefaultRecurrenceShare)
	if capped.Score < 3 || capped.Score >= raw.Score {
		t.Errorf("spikes at 12× the baseline's rate score %.1f, want in [3, %.1f)", capped.Score, raw.Score)
	}
}

func TestRecurrenceCapKeepsNewLevels(t *testing.T) {
	// A shift far beyond anything the baseline did keeps its score.
	v := spiky([]float64{60, 61, 59, 62, 60})
	raw := detect(v, 0, 60, 60, 65, 1, 3, nil)
	capped := recurrenceCap(raw, v, 0, 60, 60, 65, 1, 1, DefaultRecurrenceShare)
	if capped.Score != raw.Score || capped.Recurrence != nil {
		t.Errorf("a level never seen in the baseline: score %.1f → %.1f (recurrence %+v), want unchanged", raw.Score, capped.Score, capped.Recurrence)
	}
	// The cap off (share ≤ 0) changes nothing.
	v = spiky([]float64{0.03, 0.04, 0.03, 0.05, 13})
	raw = detect(v, 0, 60, 60, 65, 1, 3, nil)
	if off := recurrenceCap(raw, v, 0, 60, 60, 65, 1, 1, -1); off.Score != raw.Score {
		t.Errorf("cap off: score %.1f → %.1f", raw.Score, off.Score)
	}
}

func TestPoissonUpper(t *testing.T) {
	for _, c := range []struct{ m, lambda, want float64 }{
		{0, 1, 1},
		{1, 1, 1 - math.Exp(-1)},
		{2, 0.5, 1 - math.Exp(-0.5)*1.5},
	} {
		if got := poissonUpper(c.m, c.lambda); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("P(X ≥ %v | λ=%v) = %v, want %v", c.m, c.lambda, got, c.want)
		}
	}
	if z := normalUpperQuantile(0.025); math.Abs(z-1.959964) > 1e-5 {
		t.Errorf("upper 2.5%% point %v", z)
	}
}
