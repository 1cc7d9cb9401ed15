package ingest

import (
	"math"
	"slices"
	"time"
)

// Time arithmetic that saturates instead of wrapping, and the data's robust
// time range: derived grids and timelines take their length from the bulk
// of the data, so one record dated 1970 (or shifted by a zone of +99:99)
// can neither stretch the common grid over decades nor make a GPU timeline
// allocate buckets for the whole int64 range.

// PlausibleTime reports whether t is a time some incident data can have:
// from 1970 up to 2200 (the range checkValues keeps). Times a user types
// (--at, --before-at) are checked against it.
func PlausibleTime(t Time) bool { return t > 0 && t <= maxDataTime }

// PlausibleRange is the range PlausibleTime accepts, for messages.
const PlausibleRange = "1970-01-01 … 2200-01-01"

// OutlierMinMargin is the least distance beyond the bulk of the data at
// which a time counts as an outlier: as wide as disjointSlack, so a day of
// quiet between a baseline and an incident never drops data.
const OutlierMinMargin = int64(disjointSlack)

// OutlierSamples is the most times RobustRange looks at: the records of a
// big bundle are sampled at an even stride (deterministic).
const OutlierSamples = 1 << 16

// RobustRange returns the range outside which a time in sorted is an
// outlier: the times between the 1st and 99th percentiles are the bulk
// (at least one time trimmed at each end once there are five), and the range
// reaches beyond the bulk by its own length, and by at least minMargin, on
// each side. A tail holding more than 1% of the times therefore widens the
// bulk instead of being cut. sorted must be sorted; with fewer than three
// times everything is kept.
func RobustRange(sorted []int64, minMargin int64) (lo, hi int64) {
	m := len(sorted)
	if m < 3 {
		return math.MinInt64, math.MaxInt64
	}
	k := m / 100
	if m >= 5 {
		k = max(k, 1)
	}
	blo, bhi := sorted[k], sorted[m-1-k]
	margin := max(SatSub(bhi, blo), minMargin)
	return SatSub(blo, margin), SatAdd(bhi, margin)
}

// timeSampler collects an evenly strided sample of the times of a bundle's
// records: every stride-th time offered is kept.
type timeSampler struct {
	stride, seen int
	ts           []int64
}

func newTimeSampler(total int) *timeSampler {
	stride := max(1, (total+OutlierSamples-1)/OutlierSamples)
	return &timeSampler{stride: stride, ts: make([]int64, 0, total/stride+1)}
}

func (s *timeSampler) add(t Time) {
	if s.seen%s.stride == 0 {
		s.ts = append(s.ts, int64(t))
	}
	s.seen++
}

// gridSeries reports whether a series' points are placed on the common
// grid (and so count for its range): profile timelines finer than 1 s
// keep their own clock (see chooseStep).
func gridSeries(s *Series) bool { return len(s.T) <= 1 || seriesStep(s) >= time.Second }

// dropTimeOutliers drops the spans, points, events and log records timed
// far outside the robust range of all of them (see RobustRange), with one
// ErrBadValue warning per kind saying what was dropped and the range kept,
// and returns a filter for the times that may extend the common grid
// (alerts outside the range are kept, but do not stretch the grid).
// History events (hist[i] for b.Events[i], nil when none; see
// historyEvents) are not sampled: a snapshot's ReplicaSets of last year
// are history, not stray timestamps, and must not widen the range. Those
// outside the range are older than the look-back every later stage uses
// (a day, or the data's own length, before the data) and are left out
// without a warning: a snapshot always holds them, and the input's event
// count says how many were read. hist is compacted with the events it
// marks.
// Cost: one pass to sample at most OutlierSamples times, O(S log S) to
// sort them, one pass to filter.
func dropTimeOutliers(b *Bundle, hist []bool) func(Time) bool {
	isHist := func(i int) bool { return hist != nil && hist[i] }
	total := len(b.Spans) + len(b.Events) + len(b.Logs)
	for _, s := range b.Series {
		if gridSeries(s) {
			total += len(s.T)
		}
	}
	sm := newTimeSampler(total)
	for i := range b.Spans {
		sm.add(b.Spans[i].Start)
	}
	for _, s := range b.Series {
		if gridSeries(s) {
			for _, t := range s.T {
				sm.add(t)
			}
		}
	}
	for i := range b.Events {
		if !isHist(i) {
			sm.add(b.Events[i].Time)
		}
	}
	for i := range b.Logs {
		sm.add(b.Logs[i].Time)
	}
	slices.Sort(sm.ts)
	lo, hi := RobustRange(sm.ts, OutlierMinMargin)
	in := func(t Time) bool { return int64(t) >= lo && int64(t) <= hi }
	if lo == math.MinInt64 && hi == math.MaxInt64 {
		return in
	}
	kept := func(what string, n int) {
		if n > 0 {
			b.Warn(ErrBadValue, "", n, "%d %s timed far outside the data's range (%v → %v) dropped: one stray timestamp must not stretch the timeline",
				n, what, Time(max(lo, 0)), Time(min(hi, int64(maxDataTime))))
		}
	}
	before := len(b.Spans)
	b.Spans = slices.DeleteFunc(b.Spans, func(s Span) bool { return !in(s.Start) })
	kept("spans", before-len(b.Spans))
	points := 0
	for _, s := range b.Series {
		if !gridSeries(s) {
			continue
		}
		n := 0
		for j, t := range s.T {
			if in(t) {
				s.T[n], s.V[n] = t, s.V[j]
				n++
			}
		}
		points += len(s.T) - n
		s.T, s.V = s.T[:n], s.V[:n]
	}
	kept("points", points)
	n, stray := 0, 0
	for i, e := range b.Events {
		switch {
		case in(e.Time):
			b.Events[n] = e
			if hist != nil {
				hist[n] = hist[i] // kept aligned for chooseStep
			}
			n++
		case !isHist(i):
			stray++
		}
	}
	clear(b.Events[n:])
	b.Events = b.Events[:n]
	kept("events", stray)
	before = len(b.Logs)
	b.Logs = slices.DeleteFunc(b.Logs, func(r LogRecord) bool { return !in(r.Time) })
	kept("log records", before-len(b.Logs))
	far := 0
	for _, a := range b.Alerts {
		if a.StartsAt != 0 && !in(a.StartsAt) {
			far++
		}
	}
	if far > 0 {
		b.Warn(ErrBadValue, "", far, "%d alerts start far outside the data's range (%v → %v): kept, but the timeline is not stretched to them",
			far, Time(max(lo, 0)), Time(min(hi, int64(maxDataTime))))
	}
	return in
}
