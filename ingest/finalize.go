package ingest

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

// defaultStep is the grid step when no metric series suggests one.
const defaultStep = 15 * time.Second

// maxGridCells bounds the common grid (a hostile timestamp must not make us
// allocate a year of 1 s cells).
const maxGridCells = 20_000

// Prepare repairs a merged bundle and gives it its grid, leaving the
// series as read (not yet aligned):
//  1. series: points sorted, duplicate timestamps dropped, ±Inf → NaN;
//     spans, points, events and log records timed far outside the data's
//     robust range dropped (dropTimeOutliers); raw counters that drop
//     warned as counter resets;
//  2. spans: sorted; duplicate IDs, orphans and clock skew counted as
//     warnings; Bundle.Parent set;
//  3. the log step (the one package ingest/logs registers,
//     RegisterLogFinalizer: templates merged across files, records sorted,
//     linked to spans);
//  4. the common step (median metric step unless opt.Step) and time grid
//     (history events, see historyEvents, do not stretch it).
//
// What the features stage (package features) computes from the data runs
// between Prepare and Align, so that the series it derives are aligned
// like the rest: features.Finalize is Prepare, features.Derive, Align.
// Prepare must be called once per bundle, before Align.
func Prepare(b *Bundle, opt Options) {
	cleanSeries(b)
	hist := historyEvents(b)
	onGrid := dropTimeOutliers(b, hist)
	checkCounterResets(b)
	b.Parent = checkSpans(b)
	finalizeLogs(b, opt)
	chooseStep(b, opt.Step, onGrid, hist)
}

// Align finishes a prepared bundle (Prepare): every series of step ≥ 1 s
// aligned onto the grid (gaps warned; at most lim.MaxCells cells, see
// alignSeries), then the entity list built (Bundle.CollectEntities), from
// the entities the features stage matched when it ran. Call it once, after
// Prepare and the features stage.
func Align(b *Bundle, lim Limits) {
	alignSeries(b, lim.WithDefaults().MaxCells)
	b.CollectEntities()
}

// Finalize is Prepare then Align: a bundle built in memory made into one
// aligned bundle without the features stage (the decoders' own tests, a
// program that needs only what the inputs say). features.Finalize is the
// same with the features stage between the two. Call it once per bundle.
func Finalize(b *Bundle, opt Options) {
	Prepare(b, opt)
	Align(b, opt.Limits)
}

// cleanSeries sorts every series' points by time, drops duplicate
// timestamps (keeping the last) and turns ±Inf into NaN.
func cleanSeries(b *Bundle) {
	for _, s := range b.Series {
		if !sort.SliceIsSorted(s.T, func(i, j int) bool { return s.T[i] < s.T[j] }) {
			idx := make([]int, len(s.T))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(i, j int) bool { return s.T[idx[i]] < s.T[idx[j]] })
			t2, v2 := make([]Time, len(idx)), make([]float64, len(idx))
			for k, i := range idx {
				t2[k], v2[k] = s.T[i], s.V[i]
			}
			s.T, s.V = t2, v2
		}
		w := 0
		for i := range s.T {
			v := s.V[i]
			if math.IsInf(v, 0) {
				v = math.NaN()
			}
			if w > 0 && s.T[w-1] == s.T[i] {
				s.V[w-1] = v
				continue
			}
			s.T[w], s.V[w] = s.T[i], v
			w++
		}
		s.T, s.V = s.T[:w], s.V[:w]
	}
	sortSeriesByKey(b.Series)
}

// sortSeriesByKey sorts ss stably by Series.Key, each key built once
// (O(n log n) comparisons of n keys instead of 2·n log n key builds).
func sortSeriesByKey(ss []*Series) {
	type keyed struct {
		key string
		s   *Series
	}
	ks := make([]keyed, len(ss))
	for i, s := range ss {
		ks[i] = keyed{s.Key(), s}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i := range ks {
		ss[i] = ks[i].s
	}
}

// ParallelMinSpans is the fewest spans for which Prepare splits the merge
// of sorted runs, the parent links and the trace series over two goroutines
// (a variable so tests can compare Both paths).
var ParallelMinSpans = 20_000

// Both runs first on this goroutine and second on another, and returns
// when Both are done; a panic in second reaches the caller's goroutine as a
// *parallel.Panic (internal/parallel.Both), where a reader's recover sees it.
func Both(first, second func()) { parallel.Both(first, second) }

// For calls f(k) for every k in [0, n) on every CPU, chunk consecutive k
// at a time (internal/parallel.For, for the decoder packages, which import
// only the core): a panic in f reaches the caller.
func For(n, chunk int, f func(k int)) { parallel.For(n, chunk, f) }

// BothIf is Both for a pass over n spans: below ParallelMinSpans it calls
// first and then second in the caller's goroutine (two goroutines cost more
// than they save on small inputs). Either way the results are the same, so
// callers write one path.
func BothIf(n int, first, second func()) {
	if n < ParallelMinSpans {
		first()
		second()
		return
	}
	Both(first, second)
}

// seriesStep returns the median spacing of a series' points (0 when < 2).
// Evenly spaced points (most series) are one pass without allocating;
// otherwise O(n log n) for the sort. Prepare and Align ask it several
// times per series.
func seriesStep(s *Series) time.Duration {
	if len(s.T) < 2 {
		return 0
	}
	d0 := s.T[1] - s.T[0]
	even := true
	for i := 2; i < len(s.T) && even; i++ {
		even = s.T[i]-s.T[i-1] == d0
	}
	if even {
		return time.Duration(d0)
	}
	d := make([]int64, 0, len(s.T)-1)
	for i := 1; i < len(s.T); i++ {
		d = append(d, int64(s.T[i]-s.T[i-1]))
	}
	slices.Sort(d)
	return time.Duration(d[len(d)/2])
}

// historyEvents marks the events read from a History format (FormatSpec):
// hist[i] says whether b.Events[i] is one. It returns nil when there are
// none, or when the bundle holds nothing else with a time (a file of
// change records read alone then sets the time range itself, as any
// events would). An event's input is the one whose Path is its Source.
// O(inputs + events + series).
func historyEvents(b *Bundle) []bool {
	src := map[string]bool{}
	for _, in := range b.Inputs {
		if sp := spec(in.Format); sp != nil && sp.History && !in.Skipped {
			src[in.Path] = true
		}
	}
	if len(src) == 0 {
		return nil
	}
	hist := make([]bool, len(b.Events))
	other, some := len(b.Spans) > 0 || len(b.Logs) > 0, false
	for i := range b.Events {
		hist[i] = src[b.Events[i].Source]
		some = some || hist[i]
		other = other || !hist[i]
	}
	for _, a := range b.Alerts {
		other = other || a.StartsAt != 0
	}
	for _, s := range b.Series {
		other = other || len(s.T) > 0
	}
	if !some || !other {
		return nil
	}
	return hist
}

// chooseStep sets Step, Start, End and Grid; times onGrid rejects (far
// outside the data's robust range, see dropTimeOutliers) and history
// events (hist, see historyEvents) do not extend it.
func chooseStep(b *Bundle, step time.Duration, onGrid func(Time) bool, hist []bool) {
	var steps []int64
	var start, end Time
	extend := func(t Time) {
		if t == 0 || !validTime(t) || !onGrid(t) { // readers drop these; a bundle built otherwise may not
			return
		}
		if start == 0 || t < start {
			start = t
		}
		if t > end {
			end = t
		}
	}
	for _, s := range b.Series {
		st := seriesStep(s)
		if st < time.Second && len(s.T) > 1 {
			continue // profile timelines keep their own clock
		}
		if st > 0 {
			steps = append(steps, int64(st))
		}
		if len(s.T) > 0 {
			extend(s.T[0])
			extend(s.T[len(s.T)-1])
		}
	}
	for i := range b.Spans {
		extend(b.Spans[i].Start)
	}
	if s := b.SpanSample; s != nil { // a streamed read: every span's range, not only the sample's
		extend(s.First)
		extend(s.Last)
	}
	for i, e := range b.Events {
		if hist == nil || !hist[i] {
			extend(e.Time)
		}
	}
	for _, a := range b.Alerts {
		extend(a.StartsAt)
	}
	if n := len(b.Logs); n > 0 { // sorted by finalizeLogs
		extend(b.Logs[0].Time)
		extend(b.Logs[n-1].Time)
	}
	if step <= 0 {
		step = defaultStep
		if len(steps) > 0 {
			sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
			step = time.Duration(steps[len(steps)/2])
		}
		// Spans carry many samples per second: a metric step coarser than
		// defaultStep would blur when trace-derived signals move, so traces
		// get at most defaultStep (coarser metrics are carried forward).
		if len(b.Spans) > 0 && step > defaultStep {
			step = defaultStep
		}
	}
	step = step.Round(time.Millisecond)
	if step < time.Second {
		step = time.Second
	}
	if start == 0 {
		b.Step = step
		return
	}
	if n := int64(end-start) / int64(step); n > maxGridCells {
		old := step
		step = time.Duration(int64(end-start)/maxGridCells + 1).Round(time.Second)
		b.Warn(ErrLimit, "", 1, "data spans %v; step raised from %v to %v to bound the grid", end.Sub(start), old, step)
	}
	g0 := Time(int64(start) / int64(step) * int64(step))
	n := int(int64(end-g0)/int64(step)) + 1
	b.Grid = make([]Time, n)
	for i := range b.Grid {
		b.Grid[i] = g0 + Time(int64(i)*int64(step))
	}
	b.Start, b.End, b.Step = start, end, step
}

// alignSeries puts every series with a step of at least 1 s on the grid:
// samples are averaged per cell (cell = nearest grid point), and a series
// coarser than the grid is carried forward over its own step.
//
// Aligned series cost a grid's worth of cells each, however few points they
// had: at most maxCells cells are allocated over all series. When aligning
// every series would need more, the series with the fewest points (ties:
// the last by key) are dropped first, with an ErrLimit warning, so that a
// flood of one-point series cannot push out a real case beside it.
func alignSeries(b *Bundle, maxCells int) {
	if len(b.Grid) == 0 {
		return
	}
	n := len(b.Grid)
	g0, step := b.Grid[0], int64(b.Step)
	gappy := 0
	toAlign := func(s *Series) bool { return !s.Aligned && (len(s.T) <= 1 || seriesStep(s) >= time.Second) }
	var todo []*Series
	used := 0
	for _, s := range b.Series {
		switch {
		case s.Aligned:
			used += len(s.T)
		case toAlign(s):
			todo = append(todo, s)
		}
	}
	if fit := max(maxCells-used, 0) / n; len(todo) > fit {
		order := slices.Clone(todo)
		slices.SortStableFunc(order, func(x, y *Series) int { return cmp.Compare(len(y.T), len(x.T)) })
		drop := map[*Series]bool{}
		for _, s := range order[fit:] {
			drop[s] = true
		}
		b.Series = slices.DeleteFunc(b.Series, func(s *Series) bool { return drop[s] })
		b.Warn(ErrLimit, "metrics", len(drop), "%d of %d series dropped: aligning them all on the %d-step grid would need %d cells (--max-cells %d); kept the %d with the most points",
			len(drop), len(todo), n, len(todo)*n+used, maxCells, fit)
	}
	for _, s := range b.Series {
		if s.Aligned {
			continue
		}
		st := seriesStep(s)
		if len(s.T) > 1 && st < time.Second {
			continue
		}
		v := make([]float64, n)
		cnt := make([]int32, n)
		for i := range v {
			v[i] = math.NaN()
		}
		for i, t := range s.T {
			c := int((int64(t-g0) + step/2) / step)
			if int64(t-g0)+step/2 < 0 || c >= n {
				continue
			}
			x := s.V[i]
			if math.IsNaN(x) {
				continue
			}
			if cnt[c] == 0 {
				v[c] = x
			} else {
				v[c] += x
			}
			cnt[c]++
		}
		for i := range v {
			if cnt[i] > 1 {
				v[i] /= float64(cnt[i])
			}
		}
		if fill := int(int64(st)/step) - 1; fill > 0 {
			last := math.NaN()
			run := 0
			for i := range v {
				if cnt[i] > 0 {
					last, run = v[i], 0
					continue
				}
				run++
				if !math.IsNaN(last) && run <= fill {
					v[i] = last
				}
			}
		}
		// Count internal gaps longer than two cells.
		first, lastIdx := -1, -1
		for i := range v {
			if !math.IsNaN(v[i]) {
				if first < 0 {
					first = i
				}
				lastIdx = i
			}
		}
		run := 0
		for i := first + 1; i < lastIdx && first >= 0; i++ {
			if math.IsNaN(v[i]) {
				run++
				if run == 3 {
					gappy++
					break
				}
			} else {
				run = 0
			}
		}
		if len(s.T) > 1 {
			s.Every = st
		}
		s.T, s.V, s.Aligned = b.Grid, v, true
	}
	if gappy > 0 {
		b.Warn(ErrGap, "metrics", gappy, "%d series have gaps of 3 or more steps (%v each) inside their range", gappy, b.Step)
	}
}
