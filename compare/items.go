package compare

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// itemWork is an item being computed: the report's Item plus what its
// verdict needs beyond it.
type itemWork struct {
	item  model.Item
	short string // why it cannot be decided ("" when it can)
	// degenerate marks a comparison without variance (no errors on either
	// side, two constant equal series): no test, unchanged.
	degenerate string
	xs, ys     []float64 // sorted samples (distributions and series), for plots
	// afterSeq is a series' AFTER points in time order, bursts whether its
	// baseline holds points beyond MinShift robust σ of its level in the
	// bad direction, and family the key of the same series of every pod of
	// its workload: whether the series is episodic (run.episodic) when its
	// baseline is short.
	afterSeq []float64
	bursts   bool
	family   string
	// levels are a series' medians in the disjoint baseline windows as
	// long as the compared ones (every other band window): whether a short
	// baseline's own levels already vary as far as AFTER went (episodic).
	levels []float64
	// nearOne marks a series that should stay near 1 (bad direction
	// down, every point in [0, 1], some above ½): its material change is
	// measured on the shortfall from 1.
	nearOne bool
	// disturbed marks a series whose baseline holds points beyond
	// MinShift robust σ of its level: its band stops there.
	disturbed bool
	// few is why a distribution has too few spans for the usual tests
	// (fewSpans tests its time cells instead): the item's reason when that
	// test finds no change.
	few string
	// fullLevel is a series' band from every baseline point, disturbed
	// windows included (Band.Level without them): the band that BEFORE
	// must leave to have been broken, and a series without a bad
	// direction to have changed.
	fullLevel [2]float64
	signal    ingest.SignalKind
	stat      string // a series' aggregation ("p99", "mean", ...), to pick the target's series
}

// quantiles are the quantiles reported and tested for distributions.
var quantiles = []float64{0.5, 0.9, 0.99}

func nan() float64 { return math.NaN() }

func nanStats() model.Stats {
	return model.Stats{P50: nan(), P90: nan(), P99: nan(), Mean: nan(), Median: nan(), Scale: nan(), Ratio: nan(), Rate: nan(), Seconds: nan()}
}

func nanTest(method string) model.Test {
	return model.Test{Method: method, Z: nan(), P: nan(), Q: nan(), U: nan(), KSD: nan(), KSP: nan(), KSQ: nan(), Deff: nan(),
		CliffDelta: nan(), HodgesLehmann: nan(), Shift: nan(), CohenH: nan(), RateRatio: nan(), Quantiles: []model.QuantileChange{}}
}

func nanBand() model.Band {
	n2 := [2]float64{nan(), nan()}
	return model.Band{P50: n2, P90: n2, P99: n2, Level: n2, Ratio: n2, Spread: nan()}
}

func facetSuffix(f string) string {
	if f == "" {
		return ""
	}
	return "/" + f
}

// buildItems turns the extracted sides into items: for every span set a
// latency distribution and, for entry spans and an edge's server side,
// its error proportion and traffic rate; for every metric series its
// level. A pod is compared as itself only when it has data on both sides;
// otherwise its spans count only for its service, and its series are
// pooled with the other unmatched pods of the workload.
func (r *run) buildItems() {
	ids := map[string]bool{}
	for id := range r.bd.sets {
		ids[id] = true
	}
	for id := range r.ad.sets {
		ids[id] = true
	}
	// Items are independent (each has its own random stream), so the span
	// items are computed in parallel and collected in ID order.
	keys := slices.Sorted(maps.Keys(ids))
	jobs := make([][]*itemWork, len(keys))
	// A panic in one item reaches this goroutine (parallel.For), where the
	// caller's recover (MCP's per call) sees it.
	parallel.For(len(keys), 1, func(k int) {
		id := keys[k]
		m, ok := r.bd.setMeta[id]
		if !ok {
			m = r.ad.setMeta[id]
		}
		if m.pod != "" && !r.bothSides(m.pod) {
			return
		}
		b, a, base := r.bd.sets[id], r.ad.sets[id], r.base.sets[id]
		out := []*itemWork{r.distItem(m, b, a, base)}
		if m.facet == "" || m.facet == "server" || m.clientOnly {
			out = append(out, r.propItem(m, b, a, base), r.rateItem(m, b, a, base))
		}
		jobs[k] = out
	})
	for _, out := range jobs {
		r.work = append(r.work, out...)
	}
	r.seriesItems()
	r.logItems()
	sort.SliceStable(r.work, func(i, j int) bool { return r.work[i].item.ID < r.work[j].item.ID })
}

func (s *spanSet) len() int {
	if s == nil {
		return 0
	}
	return len(s.v)
}

// cellsOf counts the distinct time cells of ts from start.
func (r *run) cellsOf(ts []ingest.Time, start ingest.Time) int {
	n, last := 0, int64(math.MinInt64)
	for _, t := range ts { // time order
		c := int64(t-start) / int64(r.opt.Cell)
		if c != last {
			n++
			last = c
		}
	}
	return n
}

// distStats summarises a side already sorted by newDistSide.
func distStats(d distSide) model.Stats { return sortedStats(d.v, d.k) }

// distStats summarises a span set (sorting a copy of its values, which it
// also returns) whose times fall in cells from start.
func (r *run) distStats(s *spanSet, start ingest.Time) (model.Stats, []float64) {
	if s.len() == 0 {
		return nanStats(), nil
	}
	xs := slices.Clone(s.v)
	slices.Sort(xs)
	return sortedStats(xs, r.cellsOf(s.t, start)), xs
}

// sortedStats summarises sorted values spread over cells time cells.
func sortedStats(xs []float64, cells int) model.Stats {
	st := nanStats()
	if len(xs) == 0 {
		return st
	}
	st.N, st.Cells = len(xs), cells
	st.P50, st.P90, st.P99 = measure.QuantileSorted(xs, 0.5), measure.QuantileSorted(xs, 0.9), measure.QuantileSorted(xs, 0.99)
	sum := 0.0
	for _, v := range xs {
		sum += v
	}
	st.Mean = sum / float64(len(xs))
	return st
}

// distItem compares the span durations of one set.
func (r *run) distItem(m setMeta, b, a, base *spanSet) *itemWork {
	w := &itemWork{signal: ingest.SignalLatency, item: model.Item{ID: m.entity + ":latency" + facetSuffix(m.facet), Kind: model.KindDistribution,
		Entity: m.entity, EntityKind: m.entityKind, Service: m.service, Signal: "latency", Facet: m.facet, Unit: "s",
		Depth: r.depthOf(m.service), Direction: +1, Effect: nan(), LogRatio: nan(), Test: nanTest("mann-whitney+ks"), Band: nanBand()}}
	it := &w.item
	var dsB, dsA distSide
	if b.len() > 0 {
		dsB = newDistSide(b.v, b.t, r.before.Start, r.opt.Cell)
	}
	if a.len() > 0 {
		dsA = newDistSide(a.v, a.t, r.after.Start, r.opt.Cell)
	}
	it.Before, it.After = distStats(dsB), distStats(dsA)
	it.Baseline, _ = r.distStats(base, r.baseStart)
	w.xs, w.ys = dsB.v, dsA.v
	it.Band = r.distBand(base, r.opt.MinSamples)
	if w.short = r.shortOf(it.Before.N, it.Before.Cells, it.After.N, it.After.Cells, r.opt.MinSamples, "spans"); w.short != "" {
		if r.shortB == "" && r.shortA == "" && it.Before.N > 0 && it.After.N > 0 {
			r.fewSpans(w, dsB, dsA, base)
		}
		return w
	}
	n, mm := len(dsB.v), len(dsA.v)
	ranks := make([]float64, n+mm)
	mw := mannWhitney(dsB.v, dsA.v, 1, ranks)
	side := make([]uint8, n+mm)
	cell := make([]int32, n+mm)
	copy(cell, dsB.cell)
	for i, c := range dsA.cell {
		side[n+i], cell[n+i] = 1, c
	}
	deff := designEffect(ranks, side, cell)
	t := &it.Test
	t.U, t.CliffDelta, t.Deff = mw.U, mw.Delta, deff
	t.Z = mw.Z / math.Sqrt(deff)
	t.P = twoSided(t.Z)
	t.KSD, t.KSP = ksTwoSample(dsB.v, dsA.v, float64(n)/deff, float64(mm)/deff)
	t.HodgesLehmann = hodgesLehmann(dsB.v, dsA.v)
	rng := itemRand(r.opt.Seed, it.ID)
	bb := dsB.boot(quantiles, r.opt.Bootstrap, rng)
	ba := dsA.boot(quantiles, r.opt.Bootstrap, rng)
	for i, q := range quantiles {
		qc := model.QuantileChange{Q: q, Before: measure.QuantileSorted(dsB.v, q), After: measure.QuantileSorted(dsA.v, q)}
		qc.Diff = qc.After - qc.Before
		qc.Ratio = nan()
		if qc.Before > 0 && qc.After >= 0 {
			qc.Ratio = qc.After / qc.Before
		}
		diffs, ratios := make([]float64, r.opt.Bootstrap), make([]float64, r.opt.Bootstrap)
		for k := range diffs {
			diffs[k] = ba[i][k] - bb[i][k]
			ratios[k] = nan()
			if bb[i][k] > 0 && ba[i][k] >= 0 {
				ratios[k] = ba[i][k] / bb[i][k]
			}
		}
		qc.DiffCI, qc.RatioCI = percentileInterval(diffs), percentileInterval(ratios)
		qc.Usable = float64(n)*(1-q) >= 10 && float64(mm)*(1-q) >= 10
		t.Quantiles = append(t.Quantiles, qc)
	}
	return w
}

// shortOf explains why an item has too few samples, or "".
func (r *run) shortOf(nB, cB, nA, cA, minN int, what string) string {
	switch {
	case r.shortB != "":
		return r.shortB
	case r.shortA != "":
		return r.shortA
	case nB == 0 && nA == 0:
		return "no " + what + " on either side"
	case nB == 0:
		return "no " + what + " in BEFORE"
	case nA == 0:
		return "no " + what + " in AFTER"
	case nB < minN:
		return plural(nB, what) + " in BEFORE (fewer than " + itoa(minN) + ")"
	case nA < minN:
		return plural(nA, what) + " in AFTER (fewer than " + itoa(minN) + ")"
	case cB >= 0 && cB < r.opt.MinCells:
		return what + " in only " + plural(cB, "time cell") + " of BEFORE (fewer than " + itoa(r.opt.MinCells) + ")"
	case cA >= 0 && cA < r.opt.MinCells:
		return what + " in only " + plural(cA, "time cell") + " of AFTER (fewer than " + itoa(r.opt.MinCells) + ")"
	}
	return ""
}

// bandWindows calls f for every baseline window [t, t+W), stepping by
// W/2, that fits in the baseline.
func (r *run) bandWindows(f func(lo, hi ingest.Time)) {
	if r.baseStart == 0 || r.window <= 0 {
		return
	}
	step := ingest.Time(r.window / 2)
	for t := r.baseStart; t.Add(r.window) <= r.before.Start; t += step {
		f(t, t.Add(r.window))
	}
}

// between returns the index range of sorted times ts in [lo, hi).
func between(ts []ingest.Time, lo, hi ingest.Time) (int, int) {
	i := sort.Search(len(ts), func(k int) bool { return ts[k] >= lo })
	j := sort.Search(len(ts), func(k int) bool { return ts[k] >= hi })
	return i, j
}

// widen extends a [min, max] range by v.
func widen(b *[2]float64, v float64) {
	if v != v {
		return
	}
	if b[0] != b[0] || v < b[0] {
		b[0] = v
	}
	if b[1] != b[1] || v > b[1] {
		b[1] = v
	}
}

// fewSpans tests a distribution whose windows hold fewer spans (or time
// cells) than MinSamples (MinCells) asks for: the time cells are the
// units, as the design effect says they are (spans of one cell are not
// independent), and their medians are compared by the exact Mann–Whitney
// test, whose power depends on the counts: 10 cells against 12, every
// one of them slower, is p ≈ 3·10⁻⁶; 3 against 20 can never be below
// 1.1·10⁻³, and overlapping cells are nowhere near. The item joins the
// Benjamini–Hochberg family like any other. A change is called only when
// it is significant, |δ| ≥ MinDelta over the spans and the median moved
// by a material change (MinRatio); otherwise the item stays insufficient
// data (decide): few spans cannot say "unchanged". Its band is that of
// the baseline windows with at least as many spans as the smaller side
// (windows that few spans make noisy widen the band: it errs towards no
// regression).
func (r *run) fewSpans(w *itemWork, dsB, dsA distSide, base *spanSet) {
	it := &w.item
	w.few, w.short = w.short, ""
	mB, mA := cellMedians(dsB), cellMedians(dsA)
	t := &it.Test
	t.Method = "cell-rank"
	mw := mannWhitney(dsB.v, dsA.v, 1, nil)
	t.U, t.CliffDelta = mw.U, mw.Delta
	t.HodgesLehmann = hodgesLehmann(dsB.v, dsA.v)
	t.P = exactMannWhitney(mB, mA)
	// The median's change, for the report and the ordering of causes (no
	// quantile test: too few spans beyond any quantile).
	qc := model.QuantileChange{Q: 0.5, Before: it.Before.P50, After: it.After.P50, Ratio: nan(), DiffCI: [2]float64{nan(), nan()}, RatioCI: [2]float64{nan(), nan()}}
	qc.Diff = qc.After - qc.Before
	if qc.Before > 0 && qc.After >= 0 {
		qc.Ratio = qc.After / qc.Before
	}
	t.Quantiles = []model.QuantileChange{qc}
	it.Band = r.distBand(base, min(it.Before.N, it.After.N))
}

// cellMedians returns the median of each time cell of a side.
func cellMedians(d distSide) []float64 {
	by := make([][]float64, d.k)
	for i, c := range d.cell {
		by[c] = append(by[c], d.v[i]) // d.v is sorted: each cell's values too
	}
	out := make([]float64, 0, d.k)
	for _, xs := range by {
		if len(xs) > 0 {
			out = append(out, measure.QuantileSorted(xs, 0.5))
		}
	}
	slices.Sort(out)
	return out
}

// distBand is the band of p50/p90/p99 over the baseline windows with at
// least minN spans (MinSamples; a quantile counts only where 10 spans lie
// beyond it).
func (r *run) distBand(base *spanSet, minN int) model.Band {
	bd := nanBand()
	if base.len() == 0 {
		return bd
	}
	r.bandWindows(func(lo, hi ingest.Time) {
		i, j := between(base.t, lo, hi)
		if j-i < max(1, minN) {
			return
		}
		xs := slices.Clone(base.v[i:j])
		slices.Sort(xs)
		bd.Windows++
		widen(&bd.P50, measure.QuantileSorted(xs, 0.5))
		if float64(len(xs))*0.1 >= 10 {
			widen(&bd.P90, measure.QuantileSorted(xs, 0.9))
		}
		if float64(len(xs))*0.01 >= 10 {
			widen(&bd.P99, measure.QuantileSorted(xs, 0.99))
		}
	})
	bd.Known = bd.Windows >= r.opt.BandWindows
	return bd
}

// propItem compares the error proportions of one set (errors per request,
// so a quieter side does not look healthier).
func (r *run) propItem(m setMeta, b, a, base *spanSet) *itemWork {
	w := &itemWork{signal: ingest.SignalErrors, item: model.Item{ID: m.entity + ":errors", Kind: model.KindProportion, Entity: m.entity,
		EntityKind: m.entityKind, Service: m.service, Signal: "errors", Unit: "ratio", Depth: r.depthOf(m.service), Direction: +1,
		Effect: nan(), LogRatio: nan(), Test: nanTest("two-proportion"), Band: nanBand()}}
	it := &w.item
	prop := func(s *spanSet, start ingest.Time) model.Stats {
		st := nanStats()
		if s.len() == 0 {
			return st
		}
		st.N, st.Cells = s.len(), r.cellsOf(s.t, start)
		for _, e := range s.err {
			if e {
				st.Events++
			}
		}
		st.Ratio = float64(st.Events) / float64(st.N)
		return st
	}
	it.Before, it.After, it.Baseline = prop(b, r.before.Start), prop(a, r.after.Start), prop(base, r.baseStart)
	if base.len() > 0 {
		r.bandWindows(func(lo, hi ingest.Time) {
			i, j := between(base.t, lo, hi)
			if j-i < r.opt.MinSamples {
				return
			}
			e := 0
			for _, x := range base.err[i:j] {
				if x {
					e++
				}
			}
			it.Band.Windows++
			widen(&it.Band.Ratio, float64(e)/float64(j-i))
		})
		it.Band.Known = it.Band.Windows >= r.opt.BandWindows
	}
	if w.short = r.shortOf(it.Before.N, -1, it.After.N, -1, r.opt.MinSamples, "requests"); w.short != "" {
		return w
	}
	if it.Before.Events == 0 && it.After.Events == 0 {
		w.degenerate = "no errors on either side"
		it.Test.CliffDelta, it.Test.CohenH = 0, 0
		return w
	}
	var vals []float64
	var side []uint8
	var cell []int32
	for si, s := range []*spanSet{b, a} {
		start := r.before.Start
		if si == 1 {
			start = r.after.Start
		}
		for k, e := range s.err {
			v := 0.0
			if e {
				v = 1
			}
			vals = append(vals, v)
			side = append(side, uint8(si))
			cell = append(cell, int32(int64(s.t[k]-start)/int64(r.opt.Cell)))
		}
	}
	deff := designEffect(vals, side, cell)
	t := &it.Test
	t.Deff = deff
	t.Z, t.P, t.CohenH = twoProportion(float64(it.Before.Events), float64(it.Before.N), float64(it.After.Events), float64(it.After.N), deff)
	t.CliffDelta = it.After.Ratio - it.Before.Ratio // δ of 0/1 outcomes
	return w
}

// activeSeconds is how long a side's spans cover its window: the time
// cells holding any span, times the cell width (so a trace export with
// gaps does not read as a traffic drop).
func (r *run) activeSeconds(d *sideData) float64 {
	return float64(d.activeCells) * r.opt.Cell.Seconds()
}

// rateItem compares the request (or call) rates of one set; traffic has
// no bad direction, so a significant change is "changed".
func (r *run) rateItem(m setMeta, b, a, base *spanSet) *itemWork {
	w := &itemWork{signal: ingest.SignalTraffic, item: model.Item{ID: m.entity + ":traffic", Kind: model.KindRate, Entity: m.entity,
		EntityKind: m.entityKind, Service: m.service, Signal: "traffic", Unit: "1/s", Depth: r.depthOf(m.service),
		Effect: nan(), LogRatio: nan(), Test: nanTest("poisson-rate"), Band: nanBand()}}
	it := &w.item
	rate := func(s *spanSet, d *sideData, start ingest.Time) model.Stats {
		st := nanStats()
		st.N = s.len()
		st.Seconds = r.activeSeconds(d)
		if s.len() > 0 {
			st.Cells = r.cellsOf(s.t, start)
		}
		if st.Seconds > 0 {
			st.Rate = float64(st.N) / st.Seconds
		}
		return st
	}
	it.Before, it.After, it.Baseline = rate(b, r.bd, r.before.Start), rate(a, r.ad, r.after.Start), rate(base, r.base, r.baseStart)
	if base.len() > 0 {
		r.rateBand(it, base.t, func(lo, hi ingest.Time) float64 { return r.base.activeIn(lo, hi, r.opt.Cell) })
	}
	if w.short = r.rateShort(it, "no spans in one of the windows", "request"); w.short != "" {
		return w
	}
	deff := math.Max(r.bd.dispersion(b), r.ad.dispersion(a))
	t := &it.Test
	t.Deff = deff
	t.RateRatio, t.Z, t.P = poissonRate(float64(it.Before.N), it.Before.Seconds, float64(it.After.N), it.After.Seconds, deff)
	return w
}

// rateBand fills a rate item's baseline band: its rate in each baseline
// window (events ts over the window's active seconds, activeIn counting
// the active cells in [lo, hi)) that the data covers enough.
func (r *run) rateBand(it *model.Item, ts []ingest.Time, activeIn func(lo, hi ingest.Time) float64) {
	r.bandWindows(func(lo, hi ingest.Time) {
		i, j := between(ts, lo, hi)
		cells := activeIn(lo, hi)
		if cells*r.opt.Cell.Seconds() < r.opt.MinCoverage*r.window.Seconds() {
			return
		}
		it.Band.Windows++
		widen(&it.Band.Ratio, float64(j-i)/(cells*r.opt.Cell.Seconds()))
	})
	it.Band.Known = it.Band.Windows >= r.opt.BandWindows
}

// rateShort says why a rate item cannot be decided ("" when it can): a
// side too short, none (no activity in a window), or fewer than MinSamples
// events of unit on both sides.
func (r *run) rateShort(it *model.Item, none, unit string) string {
	switch {
	case r.shortB != "":
		return r.shortB
	case r.shortA != "":
		return r.shortA
	case it.Before.Seconds <= 0 || it.After.Seconds <= 0:
		return none
	case it.Before.N+it.After.N < r.opt.MinSamples:
		return plural(it.Before.N+it.After.N, unit) + " on both sides together (fewer than " + itoa(r.opt.MinSamples) + ")"
	}
	return ""
}

// dispersion is the variance-to-mean ratio of a set's counts per active
// cell of the side (≥ 1): how much more than Poisson the traffic varies.
func (d *sideData) dispersion(s *spanSet) float64 {
	if s.len() == 0 || len(d.active) < 2 {
		return 1
	}
	counts := map[int64]float64{}
	for _, c := range d.active {
		counts[c] = 0
	}
	for _, t := range s.t {
		c := int64(t-d.start) / int64(d.cell)
		if _, ok := counts[c]; ok {
			counts[c]++
		}
	}
	var sum, sum2 float64
	for _, v := range counts {
		sum += v
		sum2 += v * v
	}
	n := float64(len(counts))
	mean := sum / n
	if mean <= 0 {
		return 1
	}
	v := (sum2 - n*mean*mean) / (n - 1)
	return math.Max(1, v/mean)
}
