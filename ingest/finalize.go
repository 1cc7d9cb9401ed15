package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// defaultStep is the grid step when no metric series suggests one.
const defaultStep = 15 * time.Second

// maxGridCells bounds the common grid (a hostile timestamp must not make us
// allocate a year of 1 s cells).
const maxGridCells = 20_000

// Finalize turns the merged readers' output into one aligned bundle:
//  1. series: points sorted, duplicate timestamps dropped, ±Inf → NaN;
//     raw counters that drop warned as counter resets;
//  2. spans: sorted; duplicate IDs, orphans and clock skew counted as warnings;
//  3. the common step (median metric step unless opt.Step) and time grid;
//  4. entities matched across sources (pod → workload, unmatched warned);
//  5. per-service, per-pod and per-call-edge RED series derived from spans;
//  6. every series of step ≥ 1 s aligned onto the grid (gaps warned);
//  7. the entity list.
//
// Log records are finalized beside (logfinalize.go: templates merged across
// files, records sorted, linked to spans; their entities matched like the
// series'), and the log series derived with the default reference period
// (DeriveLogSeries can derive them again for the incident's baseline).
//
// Finalize is idempotent only in the sense that it must be called once.
func (b *Bundle) Finalize(opt Options) error {
	b.cleanSeries()
	b.checkCounterResets()
	b.Parent = b.checkSpans()
	b.finalizeLogs(opt)
	b.chooseStep(opt.Step)
	b.matchEntities()
	b.matchLogStreams()
	b.matchGPUs()
	b.placeProcesses()
	b.deriveTraceSeries(b.Parent)
	b.deriveOperationMix()
	b.deriveDefaultLogSeries()
	b.alignSeries(opt.Limits.withDefaults().MaxCells)
	b.collectEntities()
	return nil
}

// cleanSeries sorts every series' points by time, drops duplicate
// timestamps (keeping the last) and turns ±Inf into NaN.
func (b *Bundle) cleanSeries() {
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

// parallelMinSpans is the fewest spans for which Finalize splits the merge
// of sorted runs, the parent links and the trace series over two goroutines
// (a variable so tests can compare both paths).
var parallelMinSpans = 20_000

// both runs first on this goroutine and second on another, and returns
// when both are done.
func both(first, second func()) {
	done := make(chan struct{})
	go func() {
		second()
		close(done)
	}()
	first()
	<-done
}

// appendSpan appends s, doubling the slice when full: append grows big
// slices by about 1.25×, which copies a file's spans (pointerful, under GC
// write barriers) about four times while reading it.
func appendSpan(spans []Span, s Span) []Span {
	if n := len(spans); n == cap(spans) {
		spans = slices.Grow(spans, max(n, 4096))
	}
	return append(spans, s)
}

// sortSpansStable sorts spans by spanCompare, keeping the input order of
// equal spans (so the first of duplicate IDs stays first). Already sorted
// input (the common case after Read merged its per-file runs) costs one pass.
//
// Moving ~180-byte spans around is what a sort of spans costs (an in-place
// stable sort moves each O(log² n) times), so it sorts (start, position)
// pairs instead, orders runs of equal starts by the rest of spanCompare
// and the position, and then moves every span once, in place.
func sortSpansStable(spans []Span) {
	if spansSorted(spans) {
		return
	}
	type startPos struct {
		start Time
		pos   int32
	}
	keys := make([]startPos, len(spans))
	for i := range spans {
		keys[i] = startPos{spans[i].Start, int32(i)}
	}
	slices.SortFunc(keys, func(x, y startPos) int {
		if x.start != y.start {
			return cmp.Compare(x.start, y.start)
		}
		return cmp.Compare(x.pos, y.pos)
	})
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].start == keys[i].start {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(x, y startPos) int {
				if c := spanCompare(&spans[x.pos], &spans[y.pos]); c != 0 {
					return c
				}
				return cmp.Compare(x.pos, y.pos)
			})
		}
		i = j
	}
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = k.pos
	}
	permuteSpans(spans, order)
}

// spansSorted reports whether spans are already in spanCompare order.
func spansSorted(spans []Span) bool {
	for i := 1; i < len(spans); i++ {
		if spanCompare(&spans[i-1], &spans[i]) > 0 {
			return false
		}
	}
	return true
}

// mergeSpanRuns appends to dst the spans of runs, each already in
// spanCompare order, merged into one ordered sequence. Equal spans keep the
// order of their runs, so the result is what a stable sort of the runs'
// concatenation gives. Big inputs are merged as two halves in parallel:
// every run is cut after its last span not above a pivot (the middle span
// of the longest run), so all spans of the first half precede those of the
// second and ties stay in the first half, in run order.
func mergeSpanRuns(dst []Span, runs [][]Span) []Span {
	n := 0
	longest := 0
	for r, run := range runs {
		n += len(run)
		if len(run) > len(runs[longest]) {
			longest = r
		}
	}
	base := len(dst)
	dst = slices.Grow(dst, n)[:base+n]
	out := dst[base:]
	if n < parallelMinSpans || len(runs) < 2 {
		mergeRunsInto(out, runs)
		return dst
	}
	pivot := &runs[longest][len(runs[longest])/2]
	left, right := make([][]Span, len(runs)), make([][]Span, len(runs))
	cut := 0
	for r, run := range runs {
		k := sort.Search(len(run), func(i int) bool { return spanCompare(&run[i], pivot) > 0 })
		left[r], right[r] = run[:k], run[k:]
		cut += k
	}
	both(func() { mergeRunsInto(out[:cut], left) }, func() { mergeRunsInto(out[cut:], right) })
	return dst
}

// mergeRunsInto merges the ordered runs into out (exactly their total
// length) through a binary heap of the runs' heads; ties go to the earlier
// run.
func mergeRunsInto(out []Span, runs [][]Span) {
	heads := make([]int, 0, len(runs)) // run indexes, a min-heap by head span
	for r, run := range runs {
		if len(run) > 0 {
			heads = append(heads, r)
		}
	}
	less := func(a, b int) bool {
		if c := spanCompare(&runs[heads[a]][0], &runs[heads[b]][0]); c != 0 {
			return c < 0
		}
		return heads[a] < heads[b]
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heads) {
				return
			}
			m := l
			if r := l + 1; r < len(heads) && less(r, l) {
				m = r
			}
			if !less(m, i) {
				return
			}
			heads[i], heads[m] = heads[m], heads[i]
			i = m
		}
	}
	for i := len(heads)/2 - 1; i >= 0; i-- {
		down(i)
	}
	w := 0
	for len(heads) > 0 {
		r := heads[0]
		out[w] = runs[r][0]
		w++
		runs[r] = runs[r][1:]
		if len(runs[r]) == 0 {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		down(0)
	}
}

// spanKey identifies a span within the bundle.
type spanKey struct {
	trace TraceID
	span  SpanID
}

// spanTable maps (trace, span) IDs to indexes of a span slice: open
// addressing with linear probing over a power-of-two table at most half full.
// It stores only int32 indexes (the keys are read back from the spans), so
// it costs 8 bytes per span and about a third of a Go map's time.
type spanTable struct {
	slots []int32 // index+1; 0 = empty
	mask  uint64
}

func newSpanTable(n int) *spanTable {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return &spanTable{slots: make([]int32, size), mask: uint64(size - 1)}
}

func (t *spanTable) hash(tr TraceID, id SpanID) uint64 {
	h := (tr.Low ^ tr.High*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
	h ^= uint64(id) * 0xc4ceb9fe1a85ec53
	return (h ^ h>>29) & t.mask
}

// lookup returns the index of the span with these IDs, or -1.
func (t *spanTable) lookup(spans []Span, tr TraceID, id SpanID) int32 {
	for i := t.hash(tr, id); ; i = (i + 1) & t.mask {
		v := t.slots[i]
		if v == 0 {
			return -1
		}
		if s := &spans[v-1]; s.SpanID == id && s.TraceID == tr {
			return v - 1
		}
	}
}

// insert adds spans[idx], which must not be present yet.
func (t *spanTable) insert(spans []Span, idx int32) {
	s := &spans[idx]
	i := t.hash(s.TraceID, s.SpanID)
	for t.slots[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = idx + 1
}

// checkSpans sorts spans by (start, trace, span), drops duplicate IDs, sets
// negative durations to 0, counts orphans, adjusts clock skew between hosts
// (adjustClockSkew) and counts the children still outside their parents. It
// returns each span's parent index in b.Spans (-1 for roots and orphans),
// which deriveTraceSeries reuses. O(n log n) for the sort, O(n) expected for
// the rest (plus O(k log k) to re-sort k skew-adjusted spans).
func (b *Bundle) checkSpans() []int32 {
	if len(b.Spans) == 0 {
		return nil
	}
	sortSpansStable(b.Spans)
	index := newSpanTable(len(b.Spans))
	w, dups := 0, 0
	for i := range b.Spans {
		if index.lookup(b.Spans, b.Spans[i].TraceID, b.Spans[i].SpanID) >= 0 {
			dups++
			continue
		}
		b.Spans[w] = b.Spans[i]
		index.insert(b.Spans, int32(w))
		w++
	}
	b.Spans = b.Spans[:w]
	if dups > 0 {
		b.Warn(ErrDuplicateID, "traces", dups, "%d spans repeat a (trace, span) ID already seen; kept the first", dups)
	}
	parent := make([]int32, len(b.Spans))
	skewed := 0
	const tol = time.Millisecond
	// Parent lookups only read the table and the spans' IDs: two halves in
	// parallel on big inputs, each counting its own orphans.
	link := func(lo, hi int) (orphans, negative int) {
		for i := lo; i < hi; i++ {
			s := &b.Spans[i]
			if s.Duration < 0 {
				negative++
				s.Duration = 0
			}
			parent[i] = -1
			if s.ParentID == 0 {
				continue
			}
			pi := index.lookup(b.Spans, s.TraceID, s.ParentID)
			if pi < 0 {
				orphans++
				continue
			}
			parent[i] = pi
		}
		return orphans, negative
	}
	var orphans, negative int
	if n := len(b.Spans); n < parallelMinSpans {
		orphans, negative = link(0, n)
	} else {
		var o2, n2 int
		both(func() { orphans, negative = link(0, n/2) }, func() { o2, n2 = link(n/2, n) })
		orphans, negative = orphans+o2, negative+n2
	}
	if cut := cutParentCycles(parent); len(cut) > 0 {
		for _, i := range cut {
			b.Spans[i].ParentID = 0 // a root now, like a span that names itself (checkValues)
		}
		b.Warn(ErrBadValue, "traces", len(cut), "%d parent cycles (a span is its own ancestor) cut: one span of each cycle made a root", len(cut))
	}
	// Clock skew: children on another host outside their parent are moved
	// (with their subtrees) into it; this re-sorts b.Spans and remaps parent.
	parent, rep := b.adjustClockSkew(parent, tol)
	for i, pi := range parent {
		if pi < 0 {
			continue
		}
		s, p := &b.Spans[i], &b.Spans[pi]
		if outside(s.Start, s.Duration, p.Start, p.Duration, tol) {
			skewed++
		}
	}
	if orphans > 0 {
		b.Warn(ErrOrphanSpan, "traces", orphans, "%d of %d spans reference a parent that is not in the input (treated as roots)", orphans, len(b.Spans))
	}
	if rep.moved > 0 {
		b.Warn(ErrClockSkew, "traces", rep.moved, "adjusted %d spans on %d hosts by up to %v: a child on another host lay outside its parent, so it and its subtree were moved into the parent, like Jaeger's clock-skew adjuster",
			rep.moved, rep.hosts, rep.largest)
	}
	if rep.refused > 0 {
		b.Warn(ErrClockSkew, "traces", rep.refused, "%d spans on another host than their parent would need a clock-skew shift of more than %v (up to %v); not adjusted",
			rep.refused, maxSkewAdjust, rep.refusedD)
	}
	if skewed > 0 {
		b.Warn(ErrClockSkew, "traces", skewed, "%d spans start before or end after their parent by more than %v (async work, or skew that could not be adjusted)", skewed, tol)
	}
	if negative > 0 {
		b.Warn(ErrBadValue, "traces", negative, "%d spans have a negative duration (set to 0)", negative)
	}
	return parent
}

// cutParentCycles breaks every cycle of parent links (A's parent is B and
// B's is A, or longer) by making one span of it a root, and returns the
// spans it cut loose. Everything downstream walks parent chains and needs them to
// end. Each span is visited once (O(n)); which span of a cycle is cut
// depends only on the span order, so it is deterministic.
func cutParentCycles(parent []int32) []int32 {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(parent))
	var path, cut []int32
	for i := range parent {
		if state[i] != unseen {
			continue
		}
		path = path[:0]
		j := int32(i)
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			j = parent[j]
		}
		if j >= 0 && state[j] == onPath { // the walk came back to its own path: a cycle through j
			parent[j] = -1
			cut = append(cut, j)
		}
		for _, k := range path {
			state[k] = done
		}
	}
	return cut
}

// seriesStep returns the median spacing of a series' points (0 when < 2).
func seriesStep(s *Series) time.Duration {
	if len(s.T) < 2 {
		return 0
	}
	d := make([]int64, 0, len(s.T)-1)
	for i := 1; i < len(s.T); i++ {
		d = append(d, int64(s.T[i]-s.T[i-1]))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return time.Duration(d[len(d)/2])
}

// chooseStep sets Step, Start, End and Grid.
func (b *Bundle) chooseStep(step time.Duration) {
	var steps []int64
	var start, end Time
	extend := func(t Time) {
		if t == 0 || !validTime(t) { // readers drop these; a bundle built otherwise may not
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
	for _, e := range b.Events {
		extend(e.Time)
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

// knownServices returns the services named by traces, dependencies and
// call-edge (service-graph) series.
func (b *Bundle) knownServices() map[string]bool {
	known := map[string]bool{}
	for i := range b.Spans {
		known[b.Spans[i].Service] = true
	}
	for _, d := range b.Deps {
		known[d.Parent] = true
		known[d.Child] = true
	}
	// Service-graph metrics (client/server labels) are a call graph too.
	for _, s := range b.Series {
		if s.Entity.Kind == KindEdge {
			known[s.Entity.Caller] = true
			known[s.Entity.Callee] = true
		}
	}
	delete(known, "")
	return known
}

// matchService maps a name from another source onto a known trace service:
// exact, workload of a pod name, or the longest known service that prefixes
// it followed by "-". It returns "" when nothing matches. The prefixes
// tried are the name's own (up to each "-"), longest first: O(len(name))
// lookups, whatever the number of services.
func matchService(name string, known map[string]bool) string {
	if name == "" {
		return ""
	}
	if known[name] {
		return name
	}
	if w := WorkloadOf(name); known[w] {
		return w
	}
	for i := strings.LastIndexByte(name, '-'); i > 0; i = strings.LastIndexByte(name[:i], '-') {
		if known[name[:i]] {
			return name[:i]
		}
	}
	return ""
}

// matchEntities rewrites series and event services onto trace services.
func (b *Bundle) matchEntities() {
	known := b.knownServices()
	if len(known) == 0 {
		return
	}
	// A node label whose value is a vertex of the call graph names that
	// service, not a host (metrics exported per call-graph vertex, as
	// CloudWatch/X-Ray service maps do): the series is the service's, under
	// the name exactly as the data spells it.
	for _, s := range b.Series {
		if s.Entity.Kind != KindNode {
			continue
		}
		if v := firstLabel(s.Labels, nodeLabelNames...); v != "" && known[v] {
			s.Entity = Entity{Kind: KindService, Name: v, Service: v}
		}
	}
	unmatched := map[string]bool{}
	fix := func(e *Entity) {
		if e.Service == "" {
			return
		}
		m := matchService(e.Service, known)
		if m == "" && e.Kind == KindPod {
			m = matchService(e.Name, known)
		}
		if m == "" {
			unmatched[e.Service] = true
			return
		}
		if e.Kind == KindService && e.Name == e.Service {
			e.Name = m
		}
		if e.Kind == KindEdge {
			if c := matchService(e.Caller, known); c != "" {
				e.Caller = c
			}
			if c := matchService(e.Callee, known); c != "" {
				e.Callee = c
			}
			e.Name = e.Caller + "->" + e.Callee
		}
		e.Service = m
	}
	for _, s := range b.Series {
		fix(&s.Entity)
	}
	for i := range b.Events {
		fix(&b.Events[i].Entity)
	}
	for i := range b.Alerts {
		if m := matchService(b.Alerts[i].Service, known); m != "" {
			b.Alerts[i].Service = m
		}
	}
	if len(unmatched) > 0 {
		names := make([]string, 0, len(unmatched))
		for n := range unmatched {
			names = append(names, n)
		}
		sort.Strings(names)
		more := ""
		if len(names) > 8 {
			more = fmt.Sprintf(" and %d more", len(names)-8)
			names = names[:8]
		}
		b.Warn(ErrUnmatched, "metrics", len(unmatched), "%d metric/event services match no traced service: %s%s",
			len(unmatched), strings.Join(names, ", "), more)
	}
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
func (b *Bundle) alignSeries(maxCells int) {
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
		s.T, s.V, s.Aligned = b.Grid, v, true
	}
	if gappy > 0 {
		b.Warn(ErrGap, "metrics", gappy, "%d series have gaps of 3 or more steps (%v each) inside their range", gappy, b.Step)
	}
}

// collectEntities builds the sorted entity list, merging placement facts
// (node, GPU, service) seen for the same entity in different sources.
func (b *Bundle) collectEntities() {
	m := map[string]*Entity{}
	add := func(e Entity) {
		if e.Kind == KindUnknown || e.Name == "" {
			return
		}
		id := e.ID()
		if old, ok := m[id]; ok {
			if old.Service == "" {
				old.Service = e.Service
			}
			if old.Node == "" {
				old.Node = e.Node
			}
			if old.GPU == "" {
				old.GPU = e.GPU
			}
			return
		}
		c := e
		m[id] = &c
	}
	// Spans repeat a few placements millions of times: add each distinct
	// one once, in order of first appearance (the first value wins).
	type placed struct{ service, pod, node, gpu string }
	spanPlaces := map[placed]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		k := placed{s.Service, s.Pod, s.Node, s.GPU}
		if spanPlaces[k] {
			continue
		}
		spanPlaces[k] = true
		add(Entity{Kind: KindService, Name: s.Service, Service: s.Service})
		if s.Pod != "" {
			add(Entity{Kind: KindPod, Name: s.Pod, Service: s.Service, Node: s.Node, GPU: s.GPU})
		}
		if s.Node != "" {
			add(Entity{Kind: KindNode, Name: s.Node})
		}
	}
	for _, s := range b.Series {
		add(s.Entity)
		e := s.Entity
		if e.Kind == KindPod || e.Kind == KindGPU || e.Kind == KindNode {
			if e.Service != "" {
				add(Entity{Kind: KindService, Name: e.Service, Service: e.Service})
			}
			if e.Node != "" && e.Kind != KindNode {
				add(Entity{Kind: KindNode, Name: e.Node})
			}
		}
	}
	for _, ev := range b.Events {
		add(ev.Entity)
	}
	for i := range b.LogStreams {
		e := b.LogStreams[i].Entity()
		add(e)
		if e.Kind == KindPod && e.Service != "" {
			add(Entity{Kind: KindService, Name: e.Service, Service: e.Service})
		}
		if e.Node != "" && e.Kind != KindNode {
			add(Entity{Kind: KindNode, Name: e.Node})
		}
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b.Entities = make([]Entity, len(ids))
	for i, id := range ids {
		b.Entities[i] = *m[id]
	}
}
