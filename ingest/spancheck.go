package ingest

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/radix"
)

// Prepare's span pass: spans merged from sorted runs, duplicate IDs,
// orphans and parent cycles counted as warnings, parent links built with
// an open-addressing table (checkSpans).

// AppendSpan appends s, doubling the slice when full: append grows big
// slices by about 1.25×, which copies a file's spans (pointerful, under GC
// write barriers) about four times while reading it.
func AppendSpan(spans []Span, s Span) []Span {
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
	keys := make([]startPos, len(spans))
	for i := range spans {
		keys[i] = startPos{spans[i].Start, int32(i)}
	}
	sortStartPos(keys)
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

// startPos is a span's start and its position in the slice being sorted.
type startPos struct {
	start Time
	pos   int32
}

// radixMin is the fewest keys sortStartPos sorts by radix; fewer are
// sorted by comparison.
const radixMin = 2048

// sortStartPos sorts keys, given in ascending pos order, by (start, pos):
// radixByStart, whose passes are stable, so keys of one start keep their
// pos order: the comparison sort's result, with no comparator call per
// step (a quarter of a million spans a file sort in a few passes over
// 4 MB).
func sortStartPos(keys []startPos) {
	if len(keys) < radixMin {
		slices.SortFunc(keys, func(x, y startPos) int {
			if x.start != y.start {
				return cmp.Compare(x.start, y.start)
			}
			return cmp.Compare(x.pos, y.pos)
		})
		return
	}
	radixByStart(keys, func(k *startPos) Time { return k.start })
}

// radixByStart orders xs by start, stably (elements of one start keep the
// order they had): radix.Sort of start less the smallest start, 11 bits a
// pass over as many bits as the starts' range needs.
func radixByStart[T any](xs []T, start func(*T) Time) {
	if len(xs) < 2 {
		return
	}
	lo, hi := start(&xs[0]), start(&xs[0])
	for i := range xs {
		t := start(&xs[i])
		lo, hi = min(lo, t), max(hi, t)
	}
	width := bits.Len64(uint64(hi) - uint64(lo)) // the range's bits, however far apart
	radix.Sort(xs, nil, func(x *T) uint64 { return uint64(start(x)) - uint64(lo) }, width, 11)
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
	if n < ParallelMinSpans || len(runs) < 2 {
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
	Both(func() { mergeRunsInto(out[:cut], left) }, func() { mergeRunsInto(out[cut:], right) })
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

// indexSpans returns the table of spans' IDs and which spans repeat the IDs
// of an earlier one (dup[i], nil when none does; those are not in the
// table). On big inputs two goroutines fill one shard each, both walking
// all spans in order and taking the keys of their shard, so the first of
// repeated IDs is the one kept, as in one sequential pass. O(n) expected.
func indexSpans(spans []Span) (index *model.SpanTable, dup []bool, dups int) {
	shards := 1
	if len(spans) >= ParallelMinSpans {
		shards = 2
	}
	index = model.NewSpanTable(len(spans), shards)
	// fill inserts the spans of one shard; its repeats go to its own dup
	// slice, made on the first.
	fill := func(shard uint64) (dup []bool, dups int) {
		for i := range spans {
			s := &spans[i]
			sh, j := index.Home(s.TraceID, s.SpanID)
			if sh != shard {
				continue
			}
			if !index.AddFrom(spans, int32(i), j) {
				if dup == nil {
					dup = make([]bool, len(spans))
				}
				dup[i] = true
				dups++
			}
		}
		return dup, dups
	}
	if shards == 1 {
		dup, dups = fill(0)
		return index, dup, dups
	}
	var d2 []bool
	var n2 int
	Both(func() { dup, dups = fill(0) }, func() { d2, n2 = fill(1) })
	switch {
	case dup == nil:
		dup = d2
	case d2 != nil:
		for i, d := range d2 {
			dup[i] = dup[i] || d
		}
	}
	return index, dup, dups + n2
}

// checkSpans sorts spans by (start, trace, span), drops duplicate IDs, sets
// negative durations to 0, counts orphans, adjusts clock skew between hosts
// (adjustClockSkew) and counts the children still outside their parents. It
// returns each span's parent index in b.Spans (-1 for roots and orphans),
// which deriveTraceSeries reuses. O(n log n) for the sort, O(n) expected for
// the rest (plus O(k log k) to re-sort k skew-adjusted spans).
func checkSpans(b *Bundle) []int32 {
	if len(b.Spans) == 0 {
		return nil
	}
	sortSpansStable(b.Spans)
	index, dup, dups := indexSpans(b.Spans)
	if dups > 0 {
		// Rare: drop the repeats (keeping the first) and index the rest
		// again, so indexes are positions in the shortened slice.
		w := 0
		for i := range b.Spans {
			if dup[i] {
				continue
			}
			if w != i {
				b.Spans[w] = b.Spans[i]
			}
			w++
		}
		clear(b.Spans[w:]) // let the dropped spans' strings go
		b.Spans = b.Spans[:w]
		index, _, _ = indexSpans(b.Spans)
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
			pi := index.Lookup(b.Spans, s.TraceID, s.ParentID)
			if pi < 0 {
				orphans++
				continue
			}
			parent[i] = pi
		}
		return orphans, negative
	}
	var orphans, negative, o2, n2 int
	n := len(b.Spans)
	BothIf(n, func() { orphans, negative = link(0, n/2) }, func() { o2, n2 = link(n/2, n) })
	orphans, negative = orphans+o2, negative+n2
	if cut := cutParentCycles(parent); len(cut) > 0 {
		for _, i := range cut {
			b.Spans[i].ParentID = 0 // a root now, like a span that names itself (checkValues)
		}
		b.Warn(ErrBadValue, "traces", len(cut), "%d parent cycles (a span is its own ancestor) cut: one span of each cycle made a root", len(cut))
	}
	// Clock skew: children on another host outside their parent are moved
	// (with their subtrees) into it; this re-sorts b.Spans and remaps parent.
	parent, rep := adjustClockSkew(b, parent, tol)
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
