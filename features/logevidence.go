package features

import (
	"cmp"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"math"
	"slices"
	"sort"
)

// maxEvidenceTraces is how many linked traces one template's evidence lists.
const maxEvidenceTraces = 3

// LogEvidence returns up to limit templates of the entity's log records
// (a service: all its streams; a pod: that pod's) whose rate changed from
// [baselineStart, baselineEnd) to [windowStart, windowEnd) (each clipped to
// the logs' time range): new error-level templates first, then new or
// vanished ones, then changed error-level ones, then the rest, each most
// surprising first (then the more severe, then by pattern); templates
// without change are left out. Trace links resolve to the span's service
// and operation when the span is in the bundle. The bundle must be
// finalized. O(records + spans).
func LogEvidence(b *ingest.Bundle, entity ingest.Entity, baselineStart, baselineEnd, windowStart, windowEnd ingest.Time, limit int) []ingest.LogTemplateEvidence {
	if limit <= 0 || len(b.Logs) == 0 || windowEnd <= windowStart {
		return nil
	}
	inEntity := make([]bool, len(b.LogStreams))
	found := false
	for i := range b.LogStreams {
		e := b.LogStreams[i].Entity()
		switch entity.Kind {
		case ingest.KindService:
			inEntity[i] = e.Service == entity.Name
		case ingest.KindPod:
			inEntity[i] = e.Kind == ingest.KindPod && e.Name == entity.Name
		case ingest.KindNode:
			inEntity[i] = e.Node == entity.Name
		}
		found = found || inEntity[i]
	}
	if !found {
		return nil
	}
	type acc struct {
		base, win    int
		first, winAt ingest.Time
		traces       []ingest.LogTraceLink
	}
	per := map[int32]*acc{}
	for i := range b.Logs {
		r := &b.Logs[i]
		if !inEntity[r.Stream] {
			continue
		}
		a := per[r.Template]
		if a == nil {
			a = &acc{first: r.Time}
			per[r.Template] = a
		}
		switch {
		case r.Time >= baselineStart && r.Time < baselineEnd:
			a.base++
		case r.Time >= windowStart && r.Time < windowEnd:
			if a.win == 0 {
				a.winAt = r.Time
			}
			a.win++
			if r.TraceID != (ingest.TraceID{}) && len(a.traces) < maxEvidenceTraces && !hasTrace(a.traces, r.TraceID) {
				a.traces = append(a.traces, ingest.LogTraceLink{TraceID: r.TraceID, SpanID: r.SpanID})
			}
		}
	}
	// Rates are over the parts of each period the logs cover.
	lo, hi := b.Logs[0].Time, b.Logs[len(b.Logs)-1].Time+1
	clip := func(s, e ingest.Time) float64 { return math.Max(0, min(e, hi).Sub(max(s, lo)).Minutes()) }
	baseMin := clip(baselineStart, baselineEnd)
	winMin := clip(windowStart, windowEnd)
	if winMin <= 0 {
		return nil
	}
	var out []ingest.LogTemplateEvidence
	for t, a := range per {
		if a.base == 0 && a.win == 0 {
			continue
		}
		tp := &b.LogTemplates[t]
		ev := ingest.LogTemplateEvidence{Template: t, Pattern: tp.Pattern, Example: tp.Example, Severity: tp.Severity(),
			BaselineCount: a.base, WindowCount: a.win, First: a.first, FirstInWindow: a.winAt, Traces: a.traces,
			WindowPerMin: float64(a.win) / winMin}
		if baseMin > 0 {
			ev.BaselinePerMin = float64(a.base) / baseMin
		}
		ev.New = a.base == 0 && a.win > 0
		ev.Missing = a.base > 0 && a.win == 0
		// Expected window count from the baseline rate (half a record when
		// the baseline has none, so a new template is surprising, not
		// infinitely so).
		mu := math.Max(ev.BaselinePerMin*winMin, 0.5*winMin/math.Max(baseMin, winMin))
		if a.win >= int(math.Ceil(mu)) {
			ev.Surprise = poissonExcess(a.win, mu)
		} else {
			ev.Surprise = poissonDeficit(a.win, mu)
		}
		if ev.Surprise < 1e-9 {
			continue
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(x, y ingest.LogTemplateEvidence) int {
		return cmp.Or(cmp.Compare(evidenceClass(y), evidenceClass(x)), cmp.Compare(y.Surprise, x.Surprise), cmp.Compare(y.Severity, x.Severity),
			cmp.Compare(x.Pattern, y.Pattern), cmp.Compare(x.Template, y.Template))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	resolveTraceLinks(b, out)
	return out
}

// evidenceClass orders evidence before its surprise: a new error-level
// template first, then any new or vanished template, then a changed
// error-level one, then the rest.
func evidenceClass(e ingest.LogTemplateEvidence) int {
	switch {
	case e.New && e.Severity >= ingest.SeverityError:
		return 3
	case e.New || e.Missing:
		return 2
	case e.Severity >= ingest.SeverityError:
		return 1
	}
	return 0
}

func hasTrace(ls []ingest.LogTraceLink, id ingest.TraceID) bool {
	for _, l := range ls {
		if l.TraceID == id {
			return true
		}
	}
	return false
}

// poissonExcess is −ln P(X ≥ x) for X ~ Poisson(mu), x ≥ 1.
func poissonExcess(x int, mu float64) float64 {
	if x <= 0 {
		return 0
	}
	// P(X ≥ x) = 1 − P(X ≤ x−1).
	cdf := math.Exp(logPoissonCDF(x-1, mu))
	if p := 1 - cdf; p > 0 {
		return -math.Log(p)
	}
	// Underflow: the leading term of the tail, −ln(e^−mu mu^x / x!).
	lg, _ := math.Lgamma(float64(x + 1))
	return mu - float64(x)*math.Log(mu) + lg
}

// resolveTraceLinks fills the service and operation of each link whose span
// (or, without a span ID, whose trace's first span) is in the bundle.
func resolveTraceLinks(b *ingest.Bundle, evs []ingest.LogTemplateEvidence) {
	type ref struct{ ev, link int }
	want := map[ingest.SpanKey][]ref{}
	traces := map[ingest.TraceID][]ref{}
	for i := range evs {
		for j, l := range evs[i].Traces {
			if l.SpanID != 0 {
				k := ingest.SpanKey{Trace: l.TraceID, Span: l.SpanID}
				want[k] = append(want[k], ref{i, j})
			} else {
				traces[l.TraceID] = append(traces[l.TraceID], ref{i, j})
			}
		}
	}
	if len(want) == 0 && len(traces) == 0 {
		return
	}
	for i := range b.Spans {
		s := &b.Spans[i]
		if rs, ok := want[ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID}]; ok {
			for _, r := range rs {
				l := &evs[r.ev].Traces[r.link]
				l.Service, l.Operation = s.Service.String(), s.Operation.String()
			}
			delete(want, ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID})
		}
		if rs, ok := traces[s.TraceID]; ok { // spans are sorted: the first is the earliest
			for _, r := range rs {
				l := &evs[r.ev].Traces[r.link]
				l.Service, l.Operation = s.Service.String(), s.Operation.String()
			}
			delete(traces, s.TraceID)
		}
	}
}

// LogWindow returns the index range [lo, hi) of the records with a time in
// [start, end) (records are sorted by time after Finalize).
func LogWindow(b *ingest.Bundle, start, end ingest.Time) (int, int) {
	lo := sort.Search(len(b.Logs), func(i int) bool { return b.Logs[i].Time >= start })
	hi := sort.Search(len(b.Logs), func(i int) bool { return b.Logs[i].Time >= end })
	return lo, hi
}
