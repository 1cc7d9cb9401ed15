package compare

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Log templates: each (service, mined template) with records in a window
// is one rate item, matched across the sides by the service and the
// template's pattern (Drain's masked tokens, so the same statement matches
// whatever its variables), tested like traffic (a Poisson rate test over
// the seconds that held any log record, with the counts' over-dispersion).
// A template whose records are mostly error- or fatal-level (or warnings)
// has a bad direction, up: more of it is a regression, fewer an
// improvement, and fixed when back within its baseline band; any other
// template's significant change is "changed". Two bundles mined apart can
// split one statement into different patterns; a pattern on one side only
// is then a change from or to zero, which the reason says.

// logSet is one template's records on one side: their times.
type logSet struct {
	t []ingest.Time
}

// logMeta describes a log-template item.
type logMeta struct {
	service  string
	pattern  string
	severity ingest.Severity
}

// logKey is a log-template item's key: the service and the pattern.
func logKey(service, pattern string) string { return service + "\x00" + pattern }

// extractLogs fills d's log sets with the records in [start, end) whose
// stream names a service. O(records in range).
func (ix *bundleIndex) extractLogs(d *sideData, start, end ingest.Time) {
	b := ix.b
	d.logSets, d.logMeta = map[string]*logSet{}, map[string]logMeta{}
	lo := sort.Search(len(b.Logs), func(i int) bool { return b.Logs[i].Time >= start })
	hi := sort.Search(len(b.Logs), func(i int) bool { return b.Logs[i].Time >= end })
	lastCell := int64(-1)
	for i := lo; i < hi; i++ {
		rec := &b.Logs[i]
		if int(rec.Stream) >= len(b.LogStreams) || int(rec.Template) >= len(b.LogTemplates) || rec.Template < 0 {
			continue
		}
		st := &b.LogStreams[rec.Stream]
		svc := st.Service
		if svc == "" && st.Pod != "" {
			svc = ingest.WorkloadOf(st.Pod)
		}
		if svc == "" {
			continue
		}
		tpl := &b.LogTemplates[rec.Template]
		k := logKey(svc, tpl.Pattern)
		s := d.logSets[k]
		if s == nil {
			s = &logSet{}
			d.logSets[k] = s
			d.logMeta[k] = logMeta{service: svc, pattern: tpl.Pattern, severity: tpl.Severity()}
		}
		s.t = append(s.t, rec.Time)
		d.logs++
		if c := int64(rec.Time-start) / int64(d.cell); c != lastCell {
			d.logActive = append(d.logActive, c)
			lastCell = c
		}
	}
}

// badLogSeverity reports whether more records of a template of severity s
// is worse.
func badLogSeverity(s ingest.Severity) bool {
	return s == ingest.SeverityWarn || s == ingest.SeverityError || s == ingest.SeverityFatal
}

// logItems appends one rate item per template with records on either
// side. O(templates + records).
func (r *run) logItems() {
	keys := map[string]bool{}
	for k := range r.bd.logSets {
		keys[k] = true
	}
	for k := range r.ad.logSets {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		m, ok := r.bd.logMeta[k]
		if !ok {
			m = r.ad.logMeta[k]
		}
		if am, ok := r.ad.logMeta[k]; ok && badLogSeverity(am.severity) {
			m.severity = am.severity // bad on either side is bad
		}
		r.work = append(r.work, r.logItem(m, r.bd.logSets[k], r.ad.logSets[k], r.base.logSets[k]))
	}
}

// logItemID is a short stable ID for a template item (the pattern can be
// long): the service and an FNV-64 hash of the pattern.
func logItemID(service, pattern string) string {
	h := fnv.New64a()
	h.Write([]byte(pattern))
	return fmt.Sprintf("service/%s:logs/template/%016x", service, h.Sum64())
}

// logSeconds is the seconds of a side that held any log record.
func (r *run) logSeconds(d *sideData) float64 {
	return float64(len(d.logActive)) * r.opt.Cell.Seconds()
}

// logActiveIn counts a side's log-active cells that start in [lo, hi).
func (d *sideData) logActiveIn(lo, hi ingest.Time, cell int64) float64 {
	a := int64(lo-d.start) / cell
	b := int64(hi-d.start+ingest.Time(cell)-1) / cell
	i := sort.Search(len(d.logActive), func(i int) bool { return d.logActive[i] >= a })
	j := sort.Search(len(d.logActive), func(i int) bool { return d.logActive[i] >= b })
	return float64(j - i)
}

func (r *run) logItem(m logMeta, b, a, base *logSet) *itemWork {
	if b == nil {
		b = &logSet{}
	}
	if a == nil {
		a = &logSet{}
	}
	if base == nil {
		base = &logSet{}
	}
	dir := 0
	if badLogSeverity(m.severity) {
		dir = +1
	}
	entity := "service/" + m.service
	w := &itemWork{signal: ingest.SignalLogs, item: model.Item{ID: logItemID(m.service, m.pattern), Kind: model.KindRate, Entity: entity,
		EntityKind: "service", Service: m.service, Signal: "logs", Facet: "template", Series: m.pattern, Unit: "1/s",
		Depth: r.depthOf(m.service), Direction: dir, Effect: nan(), LogRatio: nan(), Test: nanTest("poisson-rate"), Band: nanBand()}}
	it := &w.item
	rate := func(s *logSet, d *sideData, start ingest.Time) model.Stats {
		st := nanStats()
		st.N = len(s.t)
		st.Seconds = r.logSeconds(d)
		if st.N > 0 {
			st.Cells = r.cellsOf(s.t, start)
		}
		if st.Seconds > 0 {
			st.Rate = float64(st.N) / st.Seconds
		}
		return st
	}
	it.Before, it.After, it.Baseline = rate(b, r.bd, r.before.Start), rate(a, r.ad, r.after.Start), rate(base, r.base, r.baseStart)
	if len(r.base.logActive) > 0 {
		cell := int64(r.opt.Cell)
		r.rateBand(it, base.t, func(lo, hi ingest.Time) float64 { return r.base.logActiveIn(lo, hi, cell) })
	}
	if w.short = r.rateShort(it, "no log records in one of the windows", "log record"); w.short != "" {
		return w
	}
	deff := math.Max(logDispersion(r.bd, b, int64(r.opt.Cell)), logDispersion(r.ad, a, int64(r.opt.Cell)))
	t := &it.Test
	t.Deff = deff
	t.RateRatio, t.Z, t.P = poissonRate(float64(it.Before.N), it.Before.Seconds, float64(it.After.N), it.After.Seconds, deff)
	return w
}

// logDispersion is the variance-to-mean ratio (≥ 1) of a template's
// counts per log-active cell of the side.
func logDispersion(d *sideData, s *logSet, cell int64) float64 {
	n := len(d.logActive)
	if len(s.t) == 0 || n < 2 {
		return 1
	}
	counts := map[int64]float64{}
	for _, t := range s.t {
		counts[int64(t-d.start)/cell]++
	}
	mean := float64(len(s.t)) / float64(n)
	ss := 0.0
	for _, c := range d.logActive {
		x := counts[c] - mean
		ss += x * x
	}
	v := ss / float64(n-1)
	return math.Max(1, v/mean)
}

// decideLogRate decides a log-template item: a bad-severity template by
// its direction (regressed, improved, fixed), any other as traffic is.
func (r *run) decideLogRate(w *itemWork) {
	it, t, o := &w.item, &w.item.Test, r.opt
	if it.Direction == 0 {
		r.decideRate(w)
		if it.Verdict == model.Changed {
			it.Reason = "log template ×" + fix(t.RateRatio, 2) + " (" + qText(t.Q) + ")" + zeroSide(it)
		}
		return
	}
	rr := t.RateRatio
	it.LogRatio = logRatio(rr, 1)
	band := it.Band.Ratio
	known := it.Band.Known && band[1] == band[1]
	switch {
	case !(t.Q < o.Alpha):
		it.Verdict, it.Reason = model.Unchanged, "no significant change ("+qText(t.Q)+")"
	case rr < 1+o.MinRatio && rr > 1/(1+o.MinRatio):
		it.Verdict, it.Reason = model.Unchanged, fmt.Sprintf("significant but small: ×%s (at least ×%s or ×%s needed)", fix(rr, 2), fix(1+o.MinRatio, 2), fix(1/(1+o.MinRatio), 2))
	case rr > 1 && known && it.After.Rate <= band[1]:
		it.Verdict, it.Reason = model.Unchanged, "more ×"+fix(rr, 2)+" but within the baseline band"
	case rr > 1:
		it.Verdict, it.Reason = model.Regressed, it.Series+" ×"+fix(rr, 2)+" ("+qText(t.Q)+")"+zeroSide(it)
	case known && it.Before.Rate > band[1] && it.After.Rate <= band[1]:
		it.Verdict, it.Reason = model.Fixed, "back within the baseline band: ×"+fix(rr, 2)+" ("+qText(t.Q)+")"
	default:
		it.Verdict, it.Reason = model.Improved, "fewer ×"+fix(rr, 2)+" ("+qText(t.Q)+")"+zeroSide(it)
	}
}

// zeroSide notes a template seen on one side only.
func zeroSide(it *model.Item) string {
	switch {
	case it.Before.N == 0:
		return "; not logged in BEFORE (new, or mined into another pattern there)"
	case it.After.N == 0:
		return "; not logged in AFTER (gone, or mined into another pattern there)"
	}
	return ""
}
