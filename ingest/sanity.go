package ingest

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Checks on what one input holds that no reader can make alone: times a
// Time cannot represent or that no incident has, durations that overflow,
// spans that are their own parent (checkValues, run by ReadFile on every
// reader's output); and inputs whose time range is far from all the others
// (disjointInputs, run by Read before the merge).

// maxDataTime is the latest plausible data time: 2200-01-01. Readers
// saturate unrepresentable times (years 1 or 9999) at the extremes of Time,
// so they fall outside [0, maxDataTime] and are dropped here, never wrapped
// into a plausible date.
var maxDataTime = FromTime(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC))

// validTime reports whether t is a plausible data time; 0 means "unknown"
// and is left to the readers' own handling.
func validTime(t Time) bool { return t >= 0 && t <= maxDataTime }

// checkValues drops or repairs, with one ErrBadValue warning per kind
// naming source: spans, points and events at impossible times (before 1970
// or after 2200, including saturated years 1 and 9999); span durations
// that end after 2200 or overflow (set to 0); spans that name themselves
// as their parent (made roots); alerts with an impossible start (start
// unknown).
func checkValues(b *Bundle, source string) {
	badStart, badDur, self := 0, 0, 0
	w := 0
	for i := range b.Spans {
		s := &b.Spans[i]
		if !validTime(s.Start) {
			badStart++
			continue
		}
		if s.Duration > 0 && (int64(s.Duration) > int64(maxDataTime-s.Start)) {
			badDur++
			s.Duration = 0
		}
		if s.ParentID != 0 && s.ParentID == s.SpanID {
			self++
			s.ParentID = 0
		}
		if w != i {
			b.Spans[w] = *s
		}
		w++
	}
	clear(b.Spans[w:])
	b.Spans = b.Spans[:w]
	if badStart > 0 {
		b.Warn(ErrBadValue, source, badStart, "%d spans start before 1970 or after 2200 (dropped)", badStart)
	}
	if badDur > 0 {
		b.Warn(ErrBadValue, source, badDur, "%d spans have a duration that ends after 2200 or overflows (set to 0)", badDur)
	}
	if self > 0 {
		b.Warn(ErrBadValue, source, self, "%d spans name themselves as their parent (made roots)", self)
	}
	points, series := 0, 0
	for _, s := range b.Series {
		if s == nil || len(s.T) != len(s.V) {
			continue
		}
		n := 0
		for j, t := range s.T {
			if validTime(t) {
				s.T[n], s.V[n] = t, s.V[j]
				n++
			}
		}
		if n < len(s.T) {
			points += len(s.T) - n
			series++
			s.T, s.V = s.T[:n], s.V[:n]
		}
	}
	if points > 0 {
		b.Warn(ErrBadValue, source, points, "%d points of %d series are timed before 1970 or after 2200 (dropped)", points, series)
	}
	before := len(b.Events)
	b.Events = slices.DeleteFunc(b.Events, func(e Event) bool { return !validTime(e.Time) })
	if n := before - len(b.Events); n > 0 {
		b.Warn(ErrBadValue, source, n, "%d events are timed before 1970 or after 2200 (dropped)", n)
	}
	before = len(b.Logs)
	b.Logs = slices.DeleteFunc(b.Logs, func(r LogRecord) bool { return !validTime(r.Time) })
	if n := before - len(b.Logs); n > 0 {
		b.Warn(ErrBadValue, source, n, "%d log records are timed before 1970 or after 2200 (dropped)", n)
	}
	alerts := 0
	for i := range b.Alerts {
		if !validTime(b.Alerts[i].StartsAt) {
			b.Alerts[i].StartsAt = 0
			alerts++
		}
	}
	if alerts > 0 {
		b.Warn(ErrBadValue, source, alerts, "%d alerts start before 1970 or after 2200 (start taken as unknown)", alerts)
	}
}

// disjointSlack is the smallest gap between two inputs' time ranges that
// makes them disjoint (see disjointInputs).
const disjointSlack = 24 * time.Hour

// disjointInputs finds inputs whose data lies far from the rest, such as
// a sample file of 2017 among the files of a 2022 incident: analysed
// together they stretch the data over years and drown the incident.
// Inputs of a History format (FormatSpec) are no part of it: their events
// never set the time range, so they can neither be left out for it nor
// bridge a stale file to the incident. The
// time ranges of the read inputs (those with times) are grouped: a range
// joins the group before it unless the gap between them exceeds
// disjointSlack and the length of either. When there is more than one
// group, the group with the most inputs is kept (ties: the most data, then
// the latest), and every input of the other groups gets a reason to be left
// out; reasons[i] is "" for the inputs kept. O(n log n).
func disjointInputs(parts []*Bundle, errs []error) []string {
	reasons := make([]string, len(parts))
	type rng struct {
		i          int
		start, end Time
		weight     int
	}
	var rs []rng
	for i, p := range parts {
		if errs[i] != nil || p == nil || len(p.Inputs) != 1 || p.Inputs[0].Skipped {
			continue
		}
		in := p.Inputs[0]
		if in.Start == 0 && in.End == 0 {
			continue
		}
		if sp := spec(in.Format); sp != nil && sp.History {
			continue
		}
		c := in.Counts
		rs = append(rs, rng{i, in.Start, max(in.End, in.Start), c.Spans + c.Points + c.Events + c.Alerts})
	}
	if len(rs) < 2 {
		return reasons
	}
	slices.SortStableFunc(rs, func(a, b rng) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	type group struct {
		first, last int // indexes in rs
		start, end  Time
		inputs      int
		weight      int
	}
	var gs []group
	for k, r := range rs {
		if n := len(gs); n > 0 {
			g := &gs[n-1]
			gap := time.Duration(r.start - g.end)
			if gap <= max(disjointSlack, time.Duration(g.end-g.start), time.Duration(r.end-r.start)) {
				g.last, g.end = k, max(g.end, r.end)
				g.inputs++
				g.weight = satAdd(g.weight, r.weight)
				continue
			}
		}
		gs = append(gs, group{first: k, last: k, start: r.start, end: r.end, inputs: 1, weight: r.weight})
	}
	if len(gs) == 1 {
		return reasons
	}
	best := 0
	for k, g := range gs {
		b := gs[best]
		if g.inputs > b.inputs || g.inputs == b.inputs && (g.weight > b.weight || g.weight == b.weight && g.start > b.start) {
			best = k
		}
	}
	kept := gs[best]
	for k, g := range gs {
		if k == best {
			continue
		}
		for _, r := range rs[g.first : g.last+1] {
			reasons[r.i] = fmt.Sprintf("its data (%v → %v) is disjoint in time from the other inputs' (%v → %v, %d inputs)",
				r.start, r.end, kept.start, kept.end, kept.inputs)
		}
	}
	return reasons
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
