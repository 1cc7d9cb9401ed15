package ingest

import (
	"cmp"
	"slices"
	"time"
)

// maxSkewAdjust bounds one clock-skew correction: a child on another host
// that would have to move further than this to fit its parent is left where
// it is (and counted), because a shift of hours is more likely a broken
// timestamp or a long-lived async consumer than a drifting clock. Jaeger's
// adjuster has the same guard (its maxDelta).
const maxSkewAdjust = time.Hour

// sameClock reports whether two spans were timed by the same clock: the same
// node when both name one, else the same pod when both name one, else the
// same service. Spans on the same clock are never adjusted against each
// other: a child outside a same-host parent is async work, not skew.
func sameClock(a, b *Span) bool {
	if !a.Node.IsEmpty() && !b.Node.IsEmpty() {
		return a.Node == b.Node
	}
	if !a.Pod.IsEmpty() && !b.Pod.IsEmpty() {
		return a.Pod == b.Pod
	}
	return a.Service == b.Service
}

// clock names a span's clock for the "on M hosts" count of the warning.
type clock struct {
	kind uint8 // 0 node, 1 pod, 2 service
	name Sym
}

func clockOf(s *Span) clock {
	switch {
	case !s.Node.IsEmpty():
		return clock{0, s.Node}
	case !s.Pod.IsEmpty():
		return clock{1, s.Pod}
	}
	return clock{2, s.Service}
}

// satTime is t+d saturated at the extremes (SatAdd): hostile input may
// carry start times and durations near the int64 limits.
func satTime(t Time, d int64) Time { return Time(SatAdd(int64(t), d)) }

// outside reports whether a child [cs, cs+cd) lies outside its parent
// [ps, ps+pd) by more than tol at either end.
func outside(cs Time, cd time.Duration, ps Time, pd time.Duration, tol time.Duration) bool {
	return cs < satTime(ps, -int64(tol)) || satTime(cs, int64(cd)) > satTime(satTime(ps, int64(pd)), int64(tol))
}

// skewShift is Jaeger's calculateSkew: the shift that moves a child starting
// at cs (lasting cd) into a parent at ps (lasting pd). A child that fits is
// centred in the parent, ps + (pd-cd)/2 - cs, splitting the unknown network
// latency evenly between request and response; a child longer than its
// parent cannot fit, so its start is aligned with the parent's when it starts
// before it, and it is left alone otherwise.
func skewShift(cs Time, cd time.Duration, ps Time, pd time.Duration) int64 {
	if cd > pd {
		if cs < ps {
			return int64(ps) - int64(cs)
		}
		return 0
	}
	return int64(satTime(ps, int64((pd-cd)/2))) - int64(cs)
}

// skewReport summarises what adjustClockSkew did.
type skewReport struct {
	moved    int           // spans shifted (children on another host and their subtrees)
	hosts    int           // distinct clocks (node, else pod, else service) among them
	largest  time.Duration // largest |shift|
	refused  int           // corrections larger than maxSkewAdjust, not applied
	refusedD time.Duration // the largest refused correction
}

// adjustClockSkew is Jaeger's clock-skew adjuster over b.Spans, which must be
// sorted by spanLess, with parent[i] the index of span i's parent (-1 for a
// root). Walking each trace from its roots, a span inherits its parent's
// shift (so a subtree moves as a whole); a span on a different clock than its
// parent (see sameClock) that still lies outside the (shifted) parent by more
// than tol gets its own shift (skewShift), which its subtree then inherits.
// Roots and spans on their parent's clock never get a shift of their own.
// Spans in parent cycles (unreachable from a root) are left alone.
//
// When something moved, the spans are re-sorted and the returned parent
// indexes refer to the new order; otherwise parent is returned unchanged.
// O(n) for the walk plus O(k log k + n) for the re-sort of the k moved spans.
func adjustClockSkew(b *Bundle, parent []int32, tol time.Duration) ([]int32, skewReport) {
	var rep skewReport
	n := len(b.Spans)
	if n == 0 {
		return parent, rep
	}
	// Children in CSR form: kids[first[p]:first[p+1]] are p's children.
	first := make([]int32, n+1)
	for _, p := range parent {
		if p >= 0 {
			first[p+1]++
		}
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	kids := make([]int32, first[n])
	fill := slices.Clone(first[:n])
	for i, p := range parent {
		if p >= 0 {
			kids[fill[p]] = int32(i)
			fill[p]++
		}
	}

	// Walk the trees from their roots: each tree is walked by one goroutine
	// and writes only its own spans' shifts, so two halves of the roots can
	// be walked in parallel; the reports add up (counts) or take the
	// larger (durations), so they do not depend on the split.
	shift := make([]int64, n)
	var roots []int32
	for i, p := range parent {
		if p < 0 {
			roots = append(roots, int32(i))
		}
	}
	walk := func(roots []int32) (rep skewReport) {
		stack := make([]int32, 0, 64)
		for _, r := range roots {
			stack = append(stack[:0], r)
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				ps := &b.Spans[v]
				pStart := satTime(ps.Start, shift[v])
				for _, c := range kids[first[v]:first[v+1]] {
					cs := &b.Spans[c]
					shift[c] = shift[v]
					if !sameClock(cs, ps) && outside(satTime(cs.Start, shift[v]), cs.Duration, pStart, ps.Duration, tol) {
						d := skewShift(cs.Start, cs.Duration, pStart, ps.Duration)
						if own := time.Duration(d - shift[v]).Abs(); own > maxSkewAdjust {
							rep.refused++
							rep.refusedD = max(rep.refusedD, own)
						} else {
							shift[c] = d
						}
					}
					stack = append(stack, c)
				}
			}
		}
		return rep
	}
	// Apply the shifts over a range of spans: the moved ones (their own
	// clocks and the largest shift counted, each with its sort key), in
	// index order.
	type applied struct {
		moved   []spanSortKey
		hosts   map[clock]bool
		largest time.Duration
	}
	apply := func(lo, hi int) (a applied) {
		a.hosts = map[clock]bool{}
		var last clock
		for i := lo; i < hi; i++ {
			d := shift[i]
			if d == 0 {
				continue
			}
			s := &b.Spans[i]
			s.Start = satTime(s.Start, d)
			a.moved = append(a.moved, sortKeyOf(s, int32(i)))
			if c := clockOf(s); c != last || len(a.moved) == 1 {
				a.hosts[c], last = true, c
			}
			a.largest = max(a.largest, time.Duration(d).Abs())
		}
		// Sorted by their keys, not through the spans: no cache miss per
		// comparison. spanCompare is a total order on spans of distinct
		// IDs, so the result does not depend on how it was reached.
		sortNearlySorted(a.moved)
		return a
	}
	var r2 skewReport
	half := len(roots) / 2
	BothIf(n, func() { rep = walk(roots[:half]) }, func() { r2 = walk(roots[half:]) })
	rep.refused += r2.refused
	rep.refusedD = max(rep.refusedD, r2.refusedD)
	var a1, a2 applied
	BothIf(n, func() { a1 = apply(0, n/2) }, func() { a2 = apply(n/2, n) })
	hosts := a1.hosts
	for h := range a2.hosts {
		hosts[h] = true
	}
	rep.largest = max(a1.largest, a2.largest)
	rep.moved, rep.hosts = len(a1.moved)+len(a2.moved), len(hosts)
	if rep.moved == 0 {
		return parent, rep
	}

	// Re-sort: the unmoved spans are still in order; merge the two halves'
	// sorted moved ones in (a kept span first on ties, which distinct IDs
	// rule out; the first half's key first between the halves, likewise).
	// order[pos] is the old index of the span now at pos.
	order := make([]int32, 0, n)
	m1, m2 := a1.moved, a2.moved
	least := func() *[]spanSortKey { // the run whose head is least; nil when both are done
		switch {
		case len(m1) == 0 && len(m2) == 0:
			return nil
		case len(m2) == 0 || len(m1) > 0 && compareSortKeys(m1[0], m2[0]) <= 0:
			return &m1
		}
		return &m2
	}
	// takeBelow appends the moved keys ordered before kk (all, when
	// last) to order.
	takeBelow := func(kk spanSortKey, last bool) {
		for m := least(); m != nil && (last || compareSortKeys((*m)[0], kk) < 0); m = least() {
			order = append(order, (*m)[0].idx)
			*m = (*m)[1:]
		}
	}
	for k := range n {
		if shift[k] == 0 {
			takeBelow(sortKeyOf(&b.Spans[k], int32(k)), false)
			order = append(order, int32(k))
		}
	}
	takeBelow(spanSortKey{}, true)
	newIdx := make([]int32, n)
	for pos, old := range order {
		newIdx[old] = int32(pos)
	}
	np := make([]int32, n)
	for pos, old := range order {
		np[pos] = -1
		if p := parent[old]; p >= 0 {
			np[pos] = newIdx[p]
		}
	}
	permuteSpans(b.Spans, order)
	return np, rep
}

// spanSortKey is a span's spanCompare key and its index.
type spanSortKey struct {
	start  Time
	hi, lo uint64
	id     SpanID
	idx    int32
}

func sortKeyOf(s *Span, idx int32) spanSortKey {
	return spanSortKey{s.Start, s.TraceID.High, s.TraceID.Low, s.SpanID, idx}
}

// compareSortKeys is spanCompare on keys.
func compareSortKeys(x, y spanSortKey) int {
	if c := cmp.Compare(x.start, y.start); c != 0 {
		return c
	}
	if c := cmp.Compare(x.hi, y.hi); c != 0 {
		return c
	}
	if c := cmp.Compare(x.lo, y.lo); c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

// sortSortKeys sorts keys by compareSortKeys: by start with radixByStart
// (from radixMin keys), then each run of one start by the rest of the key.
// Keys of distinct IDs are totally ordered, so this is the comparison
// sort's result.
func sortSortKeys(keys []spanSortKey) {
	if len(keys) < radixMin {
		slices.SortFunc(keys, compareSortKeys)
		return
	}
	radixByStart(keys, func(k *spanSortKey) Time { return k.start })
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].start == keys[i].start {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], compareSortKeys)
		}
		i = j
	}
}

// sortNearlySorted sorts keys by compareSortKeys. Shifted spans come in
// their old order, each moved by a clock-skew shift (milliseconds against
// a trace's spread of seconds), so most are already in place: an insertion
// sort finishes in O(n + inversions). Past a budget of moves (hostile or
// widely skewed input) it hands the rest to sortSortKeys (O(n log n)).
// Keys of distinct IDs are totally ordered, so either gives the same result.
func sortNearlySorted(keys []spanSortKey) {
	budget := 8*len(keys) + 1024
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for j > 0 && compareSortKeys(keys[j-1], k) > 0 {
			j--
		}
		if j == i {
			continue
		}
		if budget -= i - j; budget < 0 {
			sortSortKeys(keys)
			return
		}
		copy(keys[j+1:i+1], keys[j:i])
		keys[j] = k
	}
}

// permuteSpans moves spans[order[pos]] to pos for every pos, in place along
// the permutation's cycles (no second span slice: a million spans are
// ~180 MB). It consumes order (done positions are set to -1).
func permuteSpans(spans []Span, order []int32) {
	for i := range order {
		if order[i] < 0 || int(order[i]) == i {
			continue
		}
		tmp := spans[i]
		j := i
		for {
			k := int(order[j])
			order[j] = -1
			if k == i {
				spans[j] = tmp
				break
			}
			spans[j] = spans[k]
			j = k
		}
	}
}

// spanCompare orders spans by (start, trace, span), like spanLess.
func spanCompare(x, y *Span) int {
	if c := cmp.Compare(x.Start, y.Start); c != 0 {
		return c
	}
	if c := cmp.Compare(x.TraceID.High, y.TraceID.High); c != 0 {
		return c
	}
	if c := cmp.Compare(x.TraceID.Low, y.TraceID.Low); c != 0 {
		return c
	}
	return cmp.Compare(x.SpanID, y.SpanID)
}
