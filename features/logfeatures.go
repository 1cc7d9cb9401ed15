package features

import (
	"cmp"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"math"
	"slices"
	"time"
)

// deriveDefaultLogSeries derives the log series with the first
// fo.ReferenceShare of the grid (60%) as reference; fo has its defaults.
func deriveDefaultLogSeries(b *ingest.Bundle, fo Options) {
	if len(b.Logs) == 0 || len(b.Grid) == 0 {
		return
	}
	n := len(b.Grid)
	end := max(1, int(math.Round(float64(n)*fo.ReferenceShare)))
	refEnd := b.Grid[0] + ingest.Time(int64(end)*int64(b.Step))
	DeriveLogSeries(b, b.Grid[0], refEnd, fo)
}

// logEntityKey names an entity the log series are derived for.
type logEntityKey struct {
	kind ingest.EntityKind
	name string
}

// DeriveLogSeries (re)derives the log series of every service and pod with
// log records, taking [baselineStart, baselineEnd) as the reference period;
// earlier log series are replaced. It needs a finalized bundle; without
// grid or logs it only removes old log series. Deterministic: series are
// added sorted by entity and name. fo's zero fields take their defaults.
func DeriveLogSeries(b *ingest.Bundle, baselineStart, baselineEnd ingest.Time, fo Options) {
	fo = fo.withDefaults()
	b.Series = slices.DeleteFunc(b.Series, func(s *ingest.Series) bool { return s.Source == ingest.DerivedSource && s.Signal == ingest.SignalLogs })
	if len(b.Logs) == 0 || len(b.Grid) == 0 {
		return
	}
	n := len(b.Grid)
	g0, step := int64(b.Grid[0]), int64(b.Step)
	cellOf := func(t ingest.Time) int { // the grid point at or after t, as the span series do
		c := (int64(t) - g0 + step - 1) / step
		if c < 0 || c >= int64(n) {
			return -1
		}
		return int(c)
	}
	lw := logWindows{n: n, fo: fo}
	// The missing-template score counts over trailing windows of about a
	// minute.
	lw.missing = max(1, int((time.Minute+b.Step/2)/b.Step))
	lw.r0, lw.r1 = cellOf(baselineStart), cellOf(baselineEnd)
	if lw.r0 < 0 {
		lw.r0 = 0
	}
	if lw.r1 < 0 {
		lw.r1 = n
		if baselineEnd < b.Grid[0] {
			lw.r1 = 0
		}
	}
	// Coverage: cells from the first to the last record.
	lw.c0, lw.c1 = cellOf(b.Logs[0].Time), cellOf(b.Logs[len(b.Logs)-1].Time)
	if lw.c0 < 0 {
		lw.c0 = 0
	}
	if lw.c1 < 0 {
		lw.c1 = n - 1
	}
	streamEnts, ents := logEntities(b)
	if len(ents) == 0 {
		return
	}
	counts := make([]*logCounts, len(ents))
	for i := range counts {
		counts[i] = &logCounts{all: make([]int32, n), errs: make([]int32, n), tpl: map[int32][]int32{}}
	}
	for i := range b.Logs {
		r := &b.Logs[i]
		c := cellOf(r.Time)
		if c < 0 {
			continue
		}
		for _, e := range streamEnts[r.Stream] {
			if e < 0 {
				continue
			}
			counts[e].add(r, c, n)
		}
	}
	order := make([]int, len(ents))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(ents[x].ID(), ents[y].ID()) })
	for _, ei := range order {
		addLogSeries(b, ents[ei], counts[ei], lw)
	}
}

// logWindows are the grid cells DeriveLogSeries works on: n cells, the
// reference [r0, r1), the records' coverage [c0, c1] and the
// missing-template window in cells.
type logWindows struct {
	n, r0, r1, c0, c1, missing int
	fo                         Options // with its defaults
}

// logCounts are one entity's log counts per cell (all, errors) and per
// (template, cell).
type logCounts struct {
	all, errs []int32
	tpl       map[int32][]int32
}

// add counts record r in cell c (of n).
func (ec *logCounts) add(r *ingest.LogRecord, c, n int) {
	ec.all[c]++
	if r.Severity >= ingest.SeverityError {
		ec.errs[c]++
	}
	tc := ec.tpl[r.Template]
	if tc == nil {
		tc = make([]int32, n)
		ec.tpl[r.Template] = tc
	}
	tc[c]++
}

// logEntities lists the entities log series are derived for (each
// stream's service and its pod) and, per stream, their indexes (-1: none).
func logEntities(b *ingest.Bundle) ([][2]int, []ingest.Entity) {
	streamEnts := make([][2]int, len(b.LogStreams))
	index := map[logEntityKey]int{}
	var ents []ingest.Entity
	entity := func(e ingest.Entity) int {
		if e.Kind == ingest.KindUnknown || e.Name == "" {
			return -1
		}
		k := logEntityKey{e.Kind, e.Name}
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(ents)
		ents = append(ents, e)
		return len(ents) - 1
	}
	for i := range b.LogStreams {
		e := b.LogStreams[i].Entity()
		streamEnts[i] = [2]int{-1, -1}
		switch e.Kind {
		case ingest.KindPod:
			streamEnts[i][0] = entity(ingest.Entity{Kind: ingest.KindService, Name: e.Service, Service: e.Service})
			streamEnts[i][1] = entity(e)
		case ingest.KindService:
			streamEnts[i][0] = entity(e)
		}
	}
	return streamEnts, ents
}

// addLogSeries appends entity e's log series: records, errors and new
// templates per cell, the template-mix shift and the missing-template
// deficit (when they can be judged); NaN outside the records' coverage.
func addLogSeries(b *ingest.Bundle, e ingest.Entity, ec *logCounts, lw logWindows) {
	n, r0, r1, c0, c1 := lw.n, lw.r0, lw.r1, lw.c0, lw.c1
	labels := ingest.Labels{{Name: "service", Value: e.Service}}
	if e.Kind == ingest.KindPod {
		labels = ingest.Labels{{Name: "pod", Value: e.Name}, {Name: "service", Value: e.Service}}
	}
	add := func(name, stat, unit string, v []float64) {
		ls := append(append(ingest.Labels{}, labels...), ingest.Label{Name: "stat", Value: stat})
		b.Series = append(b.Series, &ingest.Series{Name: name, Labels: ls, Entity: e, Signal: ingest.SignalLogs, Stat: stat, Unit: unit,
			Source: ingest.DerivedSource, T: b.Grid, V: v, Aligned: true})
	}
	covered := func(f func(c int) float64) []float64 {
		v := make([]float64, n)
		for c := range v {
			if c < c0 || c > c1 {
				v[c] = math.NaN()
			} else {
				v[c] = f(c)
			}
		}
		return v
	}
	tpls := make([]int32, 0, len(ec.tpl))
	for t := range ec.tpl {
		tpls = append(tpls, t)
	}
	slices.Sort(tpls)
	newPer := logNewPerCell(ec.tpl, tpls, r0, r1, lw.missing, n)
	add(ingest.LogRecords, "count", "", covered(func(c int) float64 { return float64(ec.all[c]) }))
	add(ingest.LogErrors, "count", "", covered(func(c int) float64 { return float64(ec.errs[c]) }))
	add(ingest.LogNewTemplates, "count", "", covered(func(c int) float64 { return float64(newPer[c]) }))
	if v, ok := logMixShift(ec.tpl, tpls, ec.all, r0, r1, n, lw.fo); ok {
		add(ingest.LogMixShift, "mix", "z", covered(func(c int) float64 { return v[c] }))
	}
	if v, ok := logMissing(ec.tpl, tpls, ec.all, r0, r1, c0, c1, lw.missing, n, lw.fo); ok {
		add(ingest.LogMissingTemplates, "deficit", "nats", covered(func(c int) float64 { return v[c] }))
	}
}

// logNewPerCell counts, per cell, the records whose template is new
// (LogNewTemplates): outside the reference [r0, r1), a template with no
// record in the reference; inside it, a template with no record in the
// reference outside the cells within h of the cell. O(templates × cells)
// with prefix sums.
func logNewPerCell(tpl map[int32][]int32, tpls []int32, r0, r1, h, n int) []int32 {
	newPer := make([]int32, n)
	prefix := make([]int, n+1) // prefix[c] = records of the template in [r0, c)
	for _, t := range tpls {
		x := tpl[t]
		for c := 0; c < n; c++ {
			prefix[c+1] = prefix[c]
			if c >= r0 && c < r1 {
				prefix[c+1] += int(x[c])
			}
		}
		ref := prefix[n]
		for c, k := range x {
			if k == 0 {
				continue
			}
			if c < r0 || c >= r1 {
				if ref == 0 {
					newPer[c] += k
				}
				continue
			}
			lo, hi := max(r0, c-h), min(r1, c+h+1)
			if ref-(prefix[hi]-prefix[lo]) == 0 {
				newPer[c] += k
			}
		}
	}
	return newPer
}

// logMixShift computes LogMixShift for one entity; ok is false when the
// entity has fewer than two templates. It follows fo.MaxMixTemplates
// templates; rarer ones are pooled.
func logMixShift(tpl map[int32][]int32, tpls []int32, all []int32, r0, r1, n int, fo Options) ([]float64, bool) {
	if len(tpls) < 2 {
		return nil, false
	}
	total := func(t int32) int {
		s := 0
		for _, x := range tpl[t] {
			s += int(x)
		}
		return s
	}
	byCount := slices.Clone(tpls)
	tot := map[int32]int{}
	for _, t := range byCount {
		tot[t] = total(t)
	}
	slices.SortFunc(byCount, func(x, y int32) int { return cmp.Or(cmp.Compare(tot[y], tot[x]), cmp.Compare(x, y)) })
	k := min(len(byCount), fo.MaxMixTemplates)
	col := func(i int) int { return min(i, k-1) }
	ref := make([]float64, k)
	for i, t := range byCount {
		for c := r0; c < r1; c++ {
			ref[col(i)] += float64(tpl[t][c])
		}
	}
	mixShares(ref)
	v := make([]float64, n)
	row := make([]float64, k)
	for c := 0; c < n; c++ {
		if int(all[c]) < fo.MinMixSpans {
			v[c] = math.NaN()
			continue
		}
		clear(row)
		for i, t := range byCount {
			row[col(i)] += float64(tpl[t][c])
		}
		v[c] = mixDeviate(row, float64(all[c]), ref)
	}
	return v, true
}

// logMissing computes LogMissingTemplates for one entity over trailing
// windows of w steps (counts of request-driven log statements are sparse
// per step; a window of about a minute gathers enough to tell "stopped" from
// "quiet"); ok is false when the reference period holds fewer than
// MinSteadySteps windows or no template is steady in it. The reference is
// clipped to the cells the logs cover, [c0, c1].
func logMissing(tpl map[int32][]int32, tpls []int32, all []int32, r0, r1, c0, c1, w, n int, fo Options) ([]float64, bool) {
	r0 = max(r0, c0+w-1) // the first full window inside the logs
	r1 = min(r1, c1+1)
	steps := r1 - r0
	if steps < fo.MinSteadySteps {
		return nil, false
	}
	// win(x, c): the count in the w steps ending at c.
	win := func(x []int32, c int) int {
		s := 0
		for k := max(0, c-w+1); k <= c; k++ {
			s += int(x[k])
		}
		return s
	}
	// Only windows in which the entity logged anything count: request-driven
	// services log in bursts, and an idle window says nothing about any
	// one statement.
	var active []int
	refMean := 0.0
	for c := r0; c < r1; c++ {
		if x := win(all, c); x > 0 {
			active = append(active, c)
			refMean += float64(x)
		}
	}
	if len(active) < fo.MinSteadySteps {
		return nil, false
	}
	refMean /= float64(len(active))
	type steady struct {
		t      int32
		lambda float64
	}
	var st []steady
	for _, t := range tpls {
		present, sum := 0, 0
		for _, c := range active {
			if x := win(tpl[t], c); x > 0 {
				present++
				sum += x
			}
		}
		if float64(present) >= fo.SteadyShare*float64(len(active)) {
			st = append(st, steady{t, float64(sum) / float64(len(active))})
		}
	}
	if len(st) == 0 || refMean == 0 {
		return nil, false
	}
	v := make([]float64, n)
	for c := 0; c < n; c++ {
		total := win(all, c)
		if total == 0 || c < c0+w-1 {
			v[c] = math.NaN()
			continue
		}
		s := float64(total) / refMean
		score := 0.0
		for _, x := range st {
			score += missingDeficit(win(tpl[x.t], c), x.lambda*s)
		}
		v[c] = score
	}
	return v, true
}

// missingDeficit is how surprising a count x is under Poisson(mu) when low:
// −ln(2·P(X ≤ x)), floored at 0 — zero from about the median up (a step at
// its usual count scores nothing), mu − ln 2 when x = 0.
func missingDeficit(x int, mu float64) float64 {
	return math.Max(0, poissonDeficit(x, mu)-math.Ln2)
}

// poissonDeficit is −ln P(X ≤ x) for X ~ Poisson(mu): 0 when x is not below
// mu, mu when x = 0.
func poissonDeficit(x int, mu float64) float64 {
	if mu <= 0 || float64(x) >= mu {
		return 0
	}
	return -logPoissonCDF(x, mu)
}

// logPoissonCDF is ln P(X ≤ x) for X ~ Poisson(mu) > 0, x ≥ 0: the terms
// mu^k/k! summed from k = x down (each is the one above times k/mu), until
// they no longer count — O(√mu) terms when x < mu, one Lgamma.
func logPoissonCDF(x int, mu float64) float64 {
	lg, _ := math.Lgamma(float64(x + 1))
	logTop := float64(x)*math.Log(mu) - lg
	sum, r := 1.0, 1.0
	for k := x; k > 0; k-- {
		r *= float64(k) / mu
		sum += r
		if r < 1e-16*sum {
			break
		}
	}
	return math.Min(0, -mu+logTop+math.Log(sum))
}
