package compare

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/cstats"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"gonum.org/v1/gonum/stat/distuv"
)

// seriesGroup is one series item's points on each side: one series, or
// the pooled series of a workload's unmatched pods.
type seriesGroup struct {
	meta       seriesMeta
	pooled     bool
	b, a, base []*points
}

// seriesItems builds one item per series (matched by name and labels, a
// pod only when it has data on both sides, other pods pooled per
// workload).
func (r *run) seriesItems() {
	both := r.bothSides
	groups := map[string]*seriesGroup{}
	collect := func(d *sideData, which int) {
		for _, k := range slices.Sorted(maps.Keys(d.series)) {
			m := d.seriesMeta[k]
			key, pooled := m.exact, false
			if m.pod != "" && !both(m.pod) {
				key, pooled = m.pooled, true
			}
			g := groups[key]
			if g == nil {
				g = &seriesGroup{meta: m, pooled: pooled}
				if pooled {
					g.meta.entity, g.meta.entityKind, g.meta.pod, g.meta.name = "workload/"+m.service, "workload", "", m.pooledName
					g.meta.query = m.pooledQuery
				}
				groups[key] = g
			}
			switch which {
			case 0:
				g.b = append(g.b, d.series[k])
			case 1:
				g.a = append(g.a, d.series[k])
			default:
				g.base = append(g.base, d.series[k])
			}
		}
	}
	collect(r.bd, 0)
	collect(r.ad, 1)
	collect(r.base, 2)
	first := len(r.work)
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		if len(g.b) == 0 && len(g.a) == 0 {
			continue
		}
		r.work = append(r.work, r.seriesItem(key, g))
	}
	r.burstyFamily = map[string]bool{}
	for _, w := range r.work[first:] {
		if w.bursts && w.family != "" {
			r.burstyFamily[w.family] = true
		}
	}
}

// bothSides reports whether a pod reports through enough of both windows
// to be compared as itself (sideData.present); otherwise its spans count
// for its service and its series are pooled with its workload's.
func (r *run) bothSides(pod string) bool {
	step := r.before.Bundle.Step
	if step <= 0 {
		step = r.opt.Cell
	}
	return r.bd.present(pod, step, covered(r.before.Bundle, r.before.Start, r.before.End), r.opt.MinCoverage) &&
		r.ad.present(pod, step, covered(r.after.Bundle, r.after.Start, r.after.End), r.opt.MinCoverage)
}

// merged is the points of several series in time order.
func merged(ps []*points) points {
	if len(ps) == 1 {
		return *ps[0]
	}
	type tv struct {
		t ingest.Time
		v float64
	}
	var all []tv
	for _, p := range ps {
		for i := range p.v {
			all = append(all, tv{p.t[i], p.v[i]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t < all[j].t })
	var out points
	for _, x := range all {
		out.t = append(out.t, x.t)
		out.v = append(out.v, x.v)
	}
	return out
}

// bandMinPoints is how many baseline points a series needs for a band
// from its percentiles (3 minutes at a 15 s step, an hour at 5 minutes);
// with shortBandPoints to bandMinPoints−1 its band is a prediction
// interval widened for the short baseline (seriesItem), with fewer it has
// none.
const (
	bandMinPoints   = 12
	shortBandPoints = 6
	// minQuietWindows is the fewest baseline windows from which disturbed
	// ones are left out of the band (quietBaseline): with fewer, a burst is
	// as likely the series' normal variation.
	minQuietWindows = 5
)

// seriesItem compares a series' level in the two windows: medians, robust
// σ from the baseline (else the two windows), a z-test of the median shift
// whose standard error accounts for autocorrelation and, when the
// baseline has a band, for the drift seen between its windows.
func (r *run) seriesItem(key string, g *seriesGroup) *itemWork {
	m := g.meta
	w := &itemWork{signal: m.signal, stat: m.stat, item: model.Item{ID: key, Kind: model.KindSeries, Entity: m.entity, EntityKind: m.entityKind,
		Service: m.service, Signal: m.signal.String(), Facet: m.facet, Series: m.name, Query: m.query, Unit: m.unit,
		Depth: r.depthOf(m.service), Direction: m.dir, Effect: nan(), LogRatio: nan(), Test: nanTest("robust-shift"), Band: nanBand()}}
	it := &w.item
	w.fullLevel = it.Band.Level
	var pb, pa, pbase points
	if len(g.b) > 0 {
		pb = merged(g.b)
	}
	if len(g.a) > 0 {
		pa = merged(g.a)
	}
	if len(g.base) > 0 {
		pbase = merged(g.base)
	}
	stats := func(p points) (model.Stats, []float64) {
		st := nanStats()
		if len(p.v) == 0 {
			return st, nil
		}
		xs := slices.Clone(p.v)
		slices.Sort(xs)
		st.N = len(xs)
		st.Median, st.Scale = measure.QuantileSorted(xs, 0.5), robustScale(xs)
		sum := 0.0
		for _, v := range xs {
			sum += v
		}
		st.Mean = sum / float64(len(xs))
		return st, xs
	}
	var xs, ys, hs []float64
	it.Before, xs = stats(pb)
	it.After, ys = stats(pa)
	it.Baseline, hs = stats(pbase)
	w.xs, w.ys = xs, ys
	w.afterSeq = pa.v
	if m.pod != "" && !g.pooled {
		w.family = m.pooled
	}
	if len(hs) > 0 {
		c := measure.QuantileSorted(hs, 0.5)
		worst := hs[len(hs)-1] - c // how far the baseline went in the bad direction
		if m.dir < 0 {
			worst = c - hs[0]
		}
		w.bursts = m.dir != 0 && worst > r.opt.MinShift*math.Max(robustScale(hs), math.Max(0.01*math.Abs(c), 1e-12))
	}
	w.nearOne = it.Direction < 0 && cstats.NearOne(xs, ys, hs)
	// The level is the median (measure.QuantileSorted at 0.5), also for a
	// ratio that should stay near 1: its mean would catch a two-minute
	// burst of failures, but a single burst in a quiet pod then regresses
	// whenever the baseline happened to hold none (TestShortBaselineNull
	// with bursts in 2% of minutes: 43–46 of 60 quiet pairs with 8–20
	// baseline minutes alarmed with the mean, none with the median).
	// The band of a series is the range of its baseline points (1st to
	// 99th percentile): what the signal does in normal operation. The
	// spread of the baseline's window medians is the drift between
	// windows that the test must allow for.
	// The band is what normal looks like: a baseline that holds a
	// disturbance of its own (an earlier incident) is read without it.
	// Only a regression is judged against the quiet band: to say that
	// BEFORE was broken (fixed, improved) or that a series without a bad
	// direction changed, AFTER or BEFORE must lie beyond everything the
	// baseline did (fullLevel), disturbances included.
	bandPts := hs
	// A baseline of few independent windows cannot tell a disturbance
	// from its normal variation: its band keeps every point.
	nWin := 0
	r.bandWindows(func(lo, hi ingest.Time) { nWin++ })
	if quiet := r.quietBaseline(pbase, w.nearOne); nWin >= minQuietWindows && len(quiet) >= bandMinPoints && len(quiet) < len(hs) {
		bandPts, w.disturbed = quiet, true
	}
	switch {
	case len(hs) >= bandMinPoints:
		it.Band.Points = len(bandPts)
		it.Band.Level = [2]float64{measure.QuantileSorted(bandPts, 0.01), measure.QuantileSorted(bandPts, 0.99)}
		it.Band.Known = true
		w.fullLevel = [2]float64{measure.QuantileSorted(hs, 0.01), measure.QuantileSorted(hs, 0.99)}
	case len(hs) >= shortBandPoints:
		// A short baseline (a run that starts minutes before its change)
		// still says what normal looks like, with more uncertainty: its
		// band is widened to the 98% Student-t prediction interval of one
		// more point, level ± t(0.99, n−1)·s·√(1+1/n), which allows for
		// the level and scale being estimated from n points, and holds
		// every baseline point.
		n := float64(len(hs))
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.99) * robustScale(hs) * math.Sqrt(1+1/n)
		c := measure.QuantileSorted(hs, 0.5)
		it.Band.Points = len(hs)
		it.Band.Level = [2]float64{math.Min(hs[0], c-half), math.Max(hs[len(hs)-1], c+half)}
		it.Band.Known = true
		w.fullLevel = it.Band.Level
	}
	var meds []float64
	nth := 0
	r.bandWindows(func(lo, hi ingest.Time) {
		nth++
		i, j := between(pbase.t, lo, hi)
		if j-i < r.opt.MinPoints {
			return
		}
		c := slices.Clone(pbase.v[i:j])
		slices.Sort(c)
		meds = append(meds, measure.QuantileSorted(c, 0.5))
		if nth%2 == 1 { // band windows step by half a window
			w.levels = append(w.levels, meds[len(meds)-1])
		}
	})
	it.Band.Windows = len(meds)
	// The drift between windows comes from the spread of the baseline's
	// window medians; with fewer than BandWindows of them it cannot be told
	// from a change (two equal medians would say "no drift at all"), and
	// the baseline is insufficient (below): never a regression at +7σ from
	// a few minutes of baseline.
	if len(meds) >= r.opt.BandWindows {
		slices.Sort(meds)
		it.Band.Spread = robustScale(meds)
	}
	switch {
	case r.shortB != "":
		w.short = r.shortB
	case r.shortA != "":
		w.short = r.shortA
	case len(xs) == 0:
		w.short = "no points in BEFORE"
	case len(ys) == 0:
		w.short = "no points in AFTER"
	case len(xs) < r.opt.MinPoints:
		w.short = plural(len(xs), "point") + " in BEFORE (fewer than " + itoa(r.opt.MinPoints) + ")"
	case len(ys) < r.opt.MinPoints:
		w.short = plural(len(ys), "point") + " in AFTER (fewer than " + itoa(r.opt.MinPoints) + ")"
	case !it.Band.Known:
		w.short = "no baseline band (" + plural(len(hs), "baseline point") + ", fewer than " + itoa(shortBandPoints) + ") to tell a change from the series' normal variation"
	case len(meds) < r.opt.BandWindows:
		w.short = "insufficient baseline: " + plural(len(meds), "baseline window") + " as long as the compared ones before BEFORE; " +
			itoa(r.opt.BandWindows) + " or more tell the drift between windows from a change"
	}
	if w.short != "" {
		return w
	}
	mB, mA := it.Before.Median, it.After.Median
	var sigma, rho float64
	if len(hs) >= 8 {
		sigma = robustScale(hs)
		if !g.pooled {
			rho = lag1(pbase.v)
		}
	} else {
		sigma = math.Sqrt((it.Before.Scale*it.Before.Scale + it.After.Scale*it.After.Scale) / 2)
		if !g.pooled {
			rho = (lag1(pb.v) + lag1(pa.v)) / 2
		}
	}
	level := math.Max(math.Abs(mB), math.Abs(mA))
	sigma = math.Max(sigma, math.Max(0.01*level, 1e-12))
	if mB == mA && it.Before.Scale == 0 && it.After.Scale == 0 {
		w.degenerate = "constant and equal on both sides"
		it.Test.Shift, it.Test.CliffDelta = 0, 0
		return w
	}
	rho = math.Max(0, math.Min(0.9, rho))
	deff := (1 + rho) / (1 - rho)
	se := math.Sqrt(math.Pi / 2 * sigma * sigma * deff * (1/float64(len(xs)) + 1/float64(len(ys))))
	if it.Band.Spread == it.Band.Spread {
		se = math.Max(se, math.Sqrt2*it.Band.Spread)
	}
	t := &it.Test
	t.Deff = deff
	t.Shift = (mA - mB) / sigma
	t.Z = (mA - mB) / se
	t.P = twoSided(t.Z)
	t.CliffDelta = mannWhitney(xs, ys, 1, nil).Delta
	return w
}

// quietBaseline returns the sorted baseline points of a series outside its
// disturbed baseline windows, nil when none is disturbed (or the baseline
// has too few windows to tell). The baseline windows are the band's
// (bandWindows: the compared window's length, stepping by half of it, at
// least MinPoints points each); one is disturbed when its median lies
// farther from the median of the windows' medians than a regression must
// move — MinShift robust σ of those medians (at least 1% of their level)
// and a material change (MinRatio/(1+MinRatio) of the larger level, or of
// the larger shortfall from 1 for a ratio that should stay near 1). They
// are left out only when they are fewer than half the windows (a baseline
// that is mostly disturbed is what normal is), and only those of an
// episode (a run of consecutive disturbed windows) whose level no other
// episode shares: a level the baseline visits twice or more — each
// episode's point farthest from the windows' level, equal within a
// material change — is a mode (a cron job's), which the band must hold
// (TestDisturbedBaseline). A series with earlier incidents in its
// baseline, each at its own level, loses their windows, whose points
// would otherwise widen its band to their level (nezha-ob's
// ob-20220822-065256: three earlier injections at 0.17, 5.9 and 0.37 s
// held frontend→recommendationservice's 15 ms → 750 ms within the band).
func (r *run) quietBaseline(p points, nearOne bool) []float64 {
	type win struct {
		i, j int
		med  float64
		bad  bool
	}
	var wins []win
	r.bandWindows(func(lo, hi ingest.Time) {
		i, j := between(p.t, lo, hi)
		if j-i < r.opt.MinPoints {
			return
		}
		c := slices.Clone(p.v[i:j])
		slices.Sort(c)
		wins = append(wins, win{i: i, j: j, med: measure.QuantileSorted(c, 0.5)})
	})
	if len(wins) < r.opt.BandWindows {
		return nil
	}
	meds := make([]float64, len(wins))
	for k, x := range wins {
		meds[k] = x.med
	}
	slices.Sort(meds)
	cm := measure.QuantileSorted(meds, 0.5)
	sm := math.Max(robustScale(meds), 0.01*math.Abs(cm))
	material := r.opt.MinRatio / (1 + r.opt.MinRatio)
	drop := make([]bool, len(p.v))
	bad := 0
	for wi, x := range wins {
		a, b := x.med, cm
		if nearOne {
			a, b = 1-a, 1-b
		}
		big := math.Max(math.Abs(a), math.Abs(b))
		if math.Abs(x.med-cm) <= r.opt.MinShift*sm || big == 0 || math.Abs(a-b) < material*big {
			continue
		}
		bad++
		wins[wi].bad = true
		for k := x.i; k < x.j; k++ {
			drop[k] = true
		}
	}
	if bad == 0 || 2*bad >= len(wins) {
		return nil
	}
	// Episodes: runs of consecutive disturbed windows, each with its level
	// (the median of its points). An episode whose level another episode
	// shares (within a material change) is a mode the series returns to:
	// its windows stay in the band.
	type episode struct {
		lo, hi int     // point index range
		level  float64 // its point farthest from the windows' level
	}
	var eps []episode
	for k := range wins {
		if !wins[k].bad {
			continue
		}
		if k > 0 && wins[k-1].bad {
			eps[len(eps)-1].hi = max(eps[len(eps)-1].hi, wins[k].j)
			continue
		}
		eps = append(eps, episode{lo: wins[k].i, hi: wins[k].j, level: cm})
	}
	for e := range eps {
		for _, v := range p.v[eps[e].lo:eps[e].hi] {
			if math.Abs(v-cm) > math.Abs(eps[e].level-cm) {
				eps[e].level = v
			}
		}
	}
	same := func(a, b float64) bool {
		if nearOne {
			a, b = 1-a, 1-b
		}
		big := math.Max(math.Abs(a), math.Abs(b))
		return big == 0 || math.Abs(a-b) < material*big
	}
	dropped := false
	for e := range eps {
		mode := false
		for f := range eps {
			mode = mode || f != e && same(eps[e].level, eps[f].level)
		}
		if mode {
			for k := eps[e].lo; k < eps[e].hi; k++ {
				drop[k] = false
			}
		} else {
			dropped = true
		}
	}
	if !dropped {
		return nil
	}
	var out []float64
	for k, v := range p.v {
		if !drop[k] {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
