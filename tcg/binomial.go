package tcg

import (
	"math"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Counted ratios. A success or error ratio is a share of requests: its
// noise is the binomial noise of the requests it counts, not the spread of
// its own baseline. A ratio that sat at exactly 1.000 for two hours has no
// spread at all, and the robust scale's floors (5% of the median, 1% of the
// largest magnitude) turn a fall to 0.98 — hundreds of failed requests a
// period — into a deviation under 1 σ. When the bundle holds the requests
// the ratio is a share of (a count or a rate of the same entity), the
// ratio is tested as the counts it is: failures per cell against the
// baseline's failure rate, a Poisson tail of the failures (a binomial with
// a small rate) made overdispersed by the baseline's own excess variance
// (quasi-Poisson), turned into a standard deviate per cell for the onset
// and over the whole episode for the score. The anomaly is then on the one
// scale every other signal is judged on (robust σ as a standard deviate),
// its Baseline and Incident in the ratio's own units.

// requestCounts finds, per entity ID, the series that counts the entity's
// requests per grid cell: a span-derived request rate, a rate series, or a
// count per period (a CloudWatch Sum or SampleCount statistic), in that
// order; the returned factor turns a value into requests per cell (the
// step in seconds for a rate, 1 for a count). O(series).
func requestCounts(series []*ingest.Series, step time.Duration) map[string]CountSeries {
	out := map[string]CountSeries{}
	rank := map[string]int{}
	for _, s := range series {
		if s.Signal != ingest.SignalTraffic || !s.Aligned || s.Entity.Kind == ingest.KindUnknown {
			continue
		}
		factor, r := 0.0, 0
		switch st := strings.ToLower(s.Labels.Get("stat")); {
		case s.Name == ingest.TraceRequests:
			factor, r = step.Seconds(), 3
		case s.Stat == "rate" || s.Unit == "1/s":
			factor, r = step.Seconds(), 2
		case st == "sum" || st == "samplecount" || s.Stat == "count":
			factor, r = 1, 1
		}
		if factor <= 0 {
			continue
		}
		id := s.Entity.ID()
		if r > rank[id] {
			rank[id] = r
			out[id] = CountSeries{Series: s, Factor: factor}
		}
	}
	return out
}

// CountSeries is a series of request counts: Series.V[t] × Factor
// requests in grid cell t.
type CountSeries struct {
	Series *ingest.Series
	Factor float64
}

// At is the requests in cell t (NaN when unknown).
func (c CountSeries) At(t int) float64 {
	if c.Series == nil || t < 0 || t >= len(c.Series.V) {
		return math.NaN()
	}
	return c.Series.V[t] * c.Factor
}

// countedRatio reports whether a series is a ratio of requests (a success
// or error ratio) that a count can make binomial.
func countedRatio(s *ingest.Series) bool {
	return s.Signal == ingest.SignalErrors && s.Unit == "ratio"
}

// binomialAnomaly tests a success or error ratio (dir −1: a fall is bad,
// a success ratio; +1: an error ratio) against the baseline's failure rate,
// given the requests per cell. ok is false when the counts do not cover
// the baseline or the window.
func binomialAnomaly(ratio []float64, cs CountSeries, b0, b1, w0, w1, dir int, threshold float64, grid []ingest.Time, hold int) (Anomaly, bool) {
	if dir == 0 {
		return Anomaly{}, false
	}
	fail := func(t int) (f, n float64, ok bool) {
		if t >= len(ratio) {
			return 0, 0, false
		}
		r, c := ratio[t], cs.At(t)
		if math.IsNaN(r) || math.IsNaN(c) || c <= 0 || r < 0 || r > 1 {
			return 0, 0, false
		}
		if dir < 0 {
			r = 1 - r
		}
		return r * c, c, true
	}
	var F0, N0 float64
	var base [][2]float64
	for t := b0; t < b1; t++ {
		if f, n, ok := fail(t); ok {
			F0, N0 = F0+f, N0+n
			base = append(base, [2]float64{f, n})
		}
	}
	if len(base) < 3 || N0 <= 0 {
		return Anomaly{}, false
	}
	// The baseline's failure rate, with half a failure of prior weight (a
	// baseline without failures has a rate, not zero).
	p0 := (F0 + 0.5) / (N0 + 1)
	// Overdispersion: the baseline cells' Pearson χ² over its degrees of
	// freedom, at least 1 (periods whose failure rate wanders more than
	// counting noise lend the window the same slack).
	chi := 0.0
	for _, c := range base {
		mu := c[1] * p0
		chi += (c[0] - mu) * (c[0] - mu) / (mu * (1 - p0))
	}
	phi := math.Max(1, chi/float64(len(base)-1))
	// A cell's failures as a standard deviate: the signed root of the
	// Poisson deviance of f failures against n·p0 expected, over the
	// overdispersion (numerically stable however far in the tail, where a
	// normal quantile of the tail probability underflows).
	z := func(f, n float64) float64 {
		return poissonDeviate(f, n*p0) / math.Sqrt(phi)
	}
	// The per-cell deviates locate the onset and the episode as every
	// other series' do (0 and 1 are their location and scale).
	zs := make([]float64, len(ratio))
	for i := range zs {
		zs[i] = math.NaN()
	}
	seen := false
	for t := w0; t < w1 && t < len(zs); t++ {
		if f, n, ok := fail(t); ok {
			zs[t] = z(f, n)
			seen = true
		}
	}
	if !seen {
		return Anomaly{}, false
	}
	an := detectAtHeld(zs, 0, 1, w0, w1, 1, threshold, grid, hold)
	// The episode's typical cell is what its score says (the median of its
	// cells' deviates, as every series' score is the median of its
	// episode); its failure rate, over all its cells, is what the card
	// shows.
	from := w0
	if an.OnsetIdx >= 0 {
		from = an.OnsetIdx
	}
	var F, N float64
	below := 0
	for t := from; t < w1; t++ {
		f, n, ok := fail(t)
		if !ok {
			continue
		}
		if an.OnsetIdx >= 0 {
			if zs[t] < threshold*0.6 {
				below++
				if below >= 2 {
					break
				}
				continue
			}
			below = 0
		}
		F, N = F+f, N+n
	}
	if N <= 0 {
		return Anomaly{}, false
	}
	rate := F / N
	base0, inc := p0, rate
	if dir < 0 {
		base0, inc = 1-p0, 1-rate
	}
	an.Baseline, an.Incident = base0, inc
	an.Scale = math.Sqrt(phi * p0 * (1 - p0) / math.Max(N, 1))
	if an.Score > 0 && inc != base0 {
		an.Scale = math.Abs(inc-base0) / an.Score
	}
	if an.Anomalous && an.Score < threshold*0.5 {
		an.Anomalous, an.OnsetIdx, an.Onset = false, -1, 0
	}
	return an, true
}

// poissonDeviate is the signed root of the Poisson deviance of a count f
// against its expectation lambda: sign(f−λ)·√(2(f·ln(f/λ) − (f−λ))), a
// standard deviate for counts (exact in the limit, stable in the tails).
func poissonDeviate(f, lambda float64) float64 {
	lambda = math.Max(lambda, 1e-12)
	d := -(f - lambda)
	if f > 0 {
		d = f*math.Log(f/lambda) - (f - lambda)
	}
	d = math.Sqrt(math.Max(2*d, 0))
	if f < lambda {
		return -d
	}
	return d
}
