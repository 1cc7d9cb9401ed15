package tcg

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/radix"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"gonum.org/v1/gonum/stat/distuv"
)

// Anomaly is a node's verdict on the incident window against its baseline.
type Anomaly struct {
	Anomalous bool
	// Score is the robust deviation toward the bad direction: the median of
	// the window's values after onset minus the baseline median, divided by
	// the baseline scale. Larger is worse; ≤ 0 means no bad deviation.
	Score float64
	// Peak is the largest single-step robust deviation in the window.
	Peak     float64
	Onset    ingest.Time
	OnsetIdx int // grid index of the onset (-1 when not anomalous)
	// Baseline and Incident are the series' typical values before and after
	// onset (medians), in the series' unit.
	Baseline, Incident float64
	Scale              float64 // robust baseline scale (MAD·1.4826 with floors)
	// Tail is the distribution-free tail-shift test on span samples, when
	// the node has them.
	Tail *TailShift
	// Recurrence is set when the series' baseline already reached the
	// episode's level and Score was capped by its rate (recurrenceCap).
	Recurrence *Recurrence
}

// Recurrence says how often a series reached an episode's level: Level
// (in the series' unit) in BaselineHits of BaselineN baseline samples and
// in WindowHits of WindowN window samples from onset; Score is that rate's
// Poisson tail as a standard deviate, and Raw the spike's size in robust σ
// it replaced.
type Recurrence struct {
	Level                   float64
	BaselineHits, BaselineN int
	WindowHits, WindowN     int
	Score, Raw              float64
}

// TailShift is a DKW test of a latency tail: with N baseline samples, the
// empirical CDF is within eps = sqrt(ln(2/α)/(2N)) of the true one with
// probability 1-α, so the baseline q-quantile's exceedance probability is at
// most (1-q)+eps. The tail shifted when the incident's exceedance fraction is
// above that bound (plus the incident sample's own eps).
type TailShift struct {
	Q                   float64 // quantile tested, e.g. 0.9
	Threshold           float64 // baseline q-quantile (seconds)
	BaselineN, WindowN  int
	Exceed              float64 // fraction of incident samples above Threshold
	Bound               float64 // (1-q) + eps_baseline + eps_window
	Shifted             bool
	BaselineQ, WindowQ  float64 // q-quantiles of both samples
	BaselineMed, WinMed float64
}

// MaxShareFloor floors every series' scale, as a share of its largest
// magnitude: no deviation reads as more than 1/MaxShareFloor robust σ —
// also a departure from a baseline without spread (constant, often 0),
// which has no scale of its own.
const MaxShareFloor = 0.01

// robust returns the median and a robust scale of xs (NaN skipped): MAD
// scaled to σ, floored by IQR/1.349, by 5% of |median| and by minScale.
func robust(xs []float64, minScale float64) (med, scale float64, n int) {
	med, spread, n := robustSpread(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return med, floorScale(spread, minScale), n
}

// robustSpread returns the median of xs (NaN skipped) and its spread
// before any floor of the caller's: measure.RobustSpread (MAD scaled to σ,
// floored by IQR/1.349 and by 5% of |median|; a flat baseline's own
// resolution when MAD and IQR are zero). n is 0 (and both NaN) when nothing is defined.
func robustSpread(xs []float64) (med, spread float64, n int) {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN(), 0
	}
	radix.Float64s(v)
	med, mad := measure.MedianMAD(v, nil)
	iqr := measure.QuantileSorted(v, 0.75) - measure.QuantileSorted(v, 0.25)
	return med, measure.RobustSpread(v, med, mad, iqr), len(v)
}

// floorScale floors a spread at minScale, and a zero scale at 1e-9.
func floorScale(spread, minScale float64) float64 {
	scale := math.Max(spread, minScale)
	if scale == 0 {
		scale = 1e-9
	}
	return scale
}

// detect computes the anomaly of values (on the grid) with baseline cells
// [b0,b1) and window cells [w0,w1). dir is +1 when up is bad, -1 when down
// is bad, 0 when both are. threshold is the robust-z cut.
func detect(values []float64, b0, b1, w0, w1, dir int, threshold float64, grid []ingest.Time) Anomaly {
	return detectHeld(values, b0, b1, w0, w1, dir, threshold, grid, 1)
}

// detectHeld is detect for a series whose every sample fills hold grid
// cells (a minute's metric on a 15-second grid is carried over four):
// its onset needs two of its next three samples, not cells, beyond the
// threshold — one sample is one observation, however many cells it fills.
func detectHeld(values []float64, b0, b1, w0, w1, dir int, threshold float64, grid []ingest.Time, hold int) Anomaly {
	a := Anomaly{OnsetIdx: -1}
	// The scale is floored at MaxShareFloor of the largest magnitude seen:
	// a deviation of more than 1/MaxShareFloor σ carries no more evidence
	// (a near-constant baseline otherwise turns any change into millions).
	mx := 0.0
	for i := b0; i < w1 && i < len(values); i++ {
		if !math.IsNaN(values[i]) {
			mx = math.Max(mx, math.Abs(values[i]))
		}
	}
	med, spread, n := robustSpread(values[b0:b1])
	if n < 2 {
		return a
	}
	return detectAtHeld(values, med, floorScale(spread, MaxShareFloor*mx), w0, w1, dir, threshold, grid, hold)
}

// detectAt is detect with the baseline's location and scale given: the
// window cells [w0,w1) of values are tested against med and scale (> 0).
// A contrast with peers (package peers) is tested this way: its location
// is the member's usual difference from its peers, its scale how far a
// member strays from them, neither of which its own baseline cells hold.
func detectAt(values []float64, med, scale float64, w0, w1, dir int, threshold float64, grid []ingest.Time) Anomaly {
	return detectAtHeld(values, med, scale, w0, w1, dir, threshold, grid, 1)
}

// detectAtHeld is detectAt with samples that fill hold cells each (see
// detectHeld).
func detectAtHeld(values []float64, med, scale float64, w0, w1, dir int, threshold float64, grid []ingest.Time, hold int) Anomaly {
	hold = max(hold, 1)
	a := Anomaly{OnsetIdx: -1, Baseline: med, Scale: scale}
	z := func(x float64) float64 { return badDeviation(x, med, scale, dir) }
	// Onset: the first cell of the window from which the deviation holds
	// (two of the next three cells beyond threshold, or the window's last
	// cells beyond it).
	cnt := 0
	for i := w0; i < w1; i++ {
		x := values[i]
		if math.IsNaN(x) {
			continue
		}
		cnt++
		zi := z(x)
		if zi > a.Peak {
			a.Peak = zi
		}
		if a.OnsetIdx < 0 && zi >= threshold {
			hits, seen := 0, 0
			for j := i; j < w1 && seen < 3; j += hold {
				if math.IsNaN(values[j]) {
					continue
				}
				seen++
				if z(values[j]) >= threshold*0.6 {
					hits++
				}
			}
			if hits >= 2 || (seen == hits && seen >= 1) {
				a.OnsetIdx = i
			}
		}
	}
	if cnt == 0 {
		return a
	}
	from := w0
	if a.OnsetIdx >= 0 {
		from = a.OnsetIdx
	}
	// The incident value is the median of the anomalous episode: the cells
	// from onset while the deviation holds (at 0.6·threshold; one cell
	// below is tolerated, two end it). A brief burst is judged by the
	// burst, a sustained shift by all of it; without an onset, the whole
	// window.
	var after []float64
	below := 0
	for i := from; i < w1; i++ {
		x := values[i]
		if math.IsNaN(x) {
			continue
		}
		if a.OnsetIdx >= 0 {
			if z(x) < threshold*0.6 {
				below++
				if below >= 2 {
					break
				}
				continue
			}
			below = 0
		}
		after = append(after, x)
	}
	if len(after) == 0 {
		return a
	}
	sort.Float64s(after)
	a.Incident = measure.QuantileSorted(after, 0.5)
	a.Score = z(a.Incident)
	if a.OnsetIdx >= 0 && a.Score >= threshold*0.5 {
		a.Anomalous = true
		if a.OnsetIdx < len(grid) {
			a.Onset = grid[a.OnsetIdx]
		}
	} else {
		a.OnsetIdx = -1
	}
	return a
}

// badDeviation is x's deviation from med in units of scale, toward the bad
// direction (dir +1: up is bad, −1: down, 0: either way).
func badDeviation(x, med, scale float64, dir int) float64 {
	d := (x - med) / scale
	switch {
	case dir > 0:
		return d
	case dir < 0:
		return -d
	}
	return math.Abs(d)
}

// tailShift runs the DKW test on baseline and window samples of durations.
func tailShift(base, win []float64, q, alpha float64) *TailShift {
	if len(base) < 10 || len(win) < 5 {
		return nil
	}
	radix.Float64s(base)
	radix.Float64s(win)
	t := &TailShift{Q: q, BaselineN: len(base), WindowN: len(win)}
	t.Threshold = measure.QuantileSorted(base, q)
	t.BaselineQ, t.WindowQ = t.Threshold, measure.QuantileSorted(win, q)
	t.BaselineMed, t.WinMed = measure.QuantileSorted(base, 0.5), measure.QuantileSorted(win, 0.5)
	above := len(win) - sort.SearchFloat64s(win, math.Nextafter(t.Threshold, math.Inf(1)))
	t.Exceed = float64(above) / float64(len(win))
	epsB := math.Sqrt(math.Log(2/alpha) / (2 * float64(len(base))))
	epsW := math.Sqrt(math.Log(2/alpha) / (2 * float64(len(win))))
	t.Bound = (1 - q) + epsB + epsW
	t.Shifted = t.Exceed > t.Bound
	return t
}

// recurrenceCap caps an anomaly's score by how often the series' own
// baseline already reached the episode's level. A baseline sample that
// deviates at least share·Score in the bad direction is a recurrence of the
// episode; when the baseline holds k of them in n samples, the episode's
// evidence is the count m of window samples (from onset) at that level
// against the k/n rate the baseline shows — the Poisson tail P(X ≥ m) as a
// standard deviate — not the size of the spikes in robust σ, which a
// flat baseline with routine spikes (a 12-second timeout four times an
// hour) turns into 100 σ. An episode beyond everything the baseline did
// (k = 0) keeps its score; the cap only lowers it, and the node stays
// anomalous (its onset still holds).
func recurrenceCap(an Anomaly, values []float64, b0, b1, w0, w1, dir, hold int, share float64) Anomaly {
	if !an.Anomalous || an.Score <= 0 || an.Scale <= 0 || share <= 0 {
		return an
	}
	level := share * an.Score
	dev := func(x float64) float64 { return badDeviation(x, an.Baseline, an.Scale, dir) }
	count := func(from, to int) (hits, seen int) {
		for i := from; i < to && i < len(values); i++ {
			if math.IsNaN(values[i]) {
				continue
			}
			seen++
			if dev(values[i]) >= level {
				hits++
			}
		}
		return hits, seen
	}
	k, n := count(b0, b1)
	if k == 0 || n == 0 {
		return an
	}
	from := w0
	if an.OnsetIdx >= 0 {
		from = an.OnsetIdx
	}
	m, w := count(from, w1)
	// Held samples fill hold cells each: count samples, not cells (the
	// baseline's rate k/n is the same either way).
	hold = max(hold, 1)
	h := float64(hold)
	lambda := float64(w) / h * float64(k) / float64(n)
	if z := normalUpperQuantile(poissonUpper(float64(m)/h, lambda)); z < an.Score {
		lv := an.Baseline + level*an.Scale
		if dir < 0 {
			lv = an.Baseline - level*an.Scale
		}
		an.Recurrence = &Recurrence{Level: lv, BaselineHits: (k + hold - 1) / hold, BaselineN: (n + hold - 1) / hold,
			WindowHits: (m + hold - 1) / hold, WindowN: (w + hold - 1) / hold, Score: math.Max(z, 0), Raw: an.Score}
		an.Score = math.Max(z, 0)
	}
	return an
}

// poissonUpper is P(X ≥ m) for X ~ Poisson(lambda), m rounded up.
func poissonUpper(m, lambda float64) float64 {
	mi := math.Ceil(m - 1e-9)
	if mi <= 0 {
		return 1
	}
	return math.Max(1-distuv.Poisson{Lambda: lambda}.CDF(mi-1), 1e-300)
}

// normalUpperQuantile is z with P(Z ≥ z) = p for a standard normal Z.
func normalUpperQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfinv(2*p-1)
}
