package peers

import (
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Cohort is one family's series over the members of a peer group (the
// pods of a workload's version, the GPUs of a pod), indexed cell by cell
// so that each member's contrast with all the others costs what its own
// series cost: Compare(i) is Compare(member i's series, every other
// member's series), bit for bit (TestCohortMatchesCompare), but the
// peers' per-cell medians are read off each cell's sorted values with the
// member's own values left out instead of being recomputed from the
// others' series. Building is O(P log P) for the P points of the family;
// Compare(i) is O(cells · k) for a member of k series, plus its peer
// spread when the member has too little baseline beside its peers (the
// others' baseline points, O(P_B log P_B)). A group of p members thus
// costs O(p · cells · log p) where calling Compare for each costs
// O(p² · cells).
//
// The peer spread is the one part whose exact cost stays quadratic (each
// member's is over all the others' baseline points): when the members
// that need it would read more than Params.MaxSpreadWork points in all,
// every one of them takes the same spread, computed once over an evenly
// spaced sample of Params.SpreadSample members (Sampled says so; the
// sample, and so the result, is a function of the members' order).
type Cohort struct {
	members [][]*ingest.Series
	total   int // series over all members
	c       Cells
	p       Params
	// lens[i] is member i's longest series, long the longest of all.
	lens []int
	long int
	// Cell t's non-NaN values over every member's series, sorted, are
	// vals[off[t]:off[t+1]].
	off  []int
	vals []float64
	// rank[sid·long+t] is where series sid's value at t lies in cell t's
	// values (−1: none); member i's series are sids first[i] to
	// first[i+1]-1.
	rank  []int32
	first []int
	// sampled > 0 is the size of the sample whose peer spread every
	// member that needs one takes (the budget's); shared is that spread,
	// computed at the first such member (used).
	sampled int
	shared  float64
	used    bool
}

// NewCohort indexes members (each member's series of one family, aligned
// on one grid) for Compare over the cells c with the parameters p.
func NewCohort(members [][]*ingest.Series, c Cells, p Params) *Cohort {
	p = p.WithDefaults()
	h := &Cohort{members: members, c: c, p: p, lens: make([]int, len(members))}
	for i, ms := range members {
		h.total += len(ms)
		for _, s := range ms {
			h.lens[i] = max(h.lens[i], len(s.V))
		}
		h.long = max(h.long, h.lens[i])
	}
	h.off, h.vals, h.rank = cellIndex(members, h.long)
	h.first = make([]int, len(members)+1)
	for i, ms := range members {
		h.first[i+1] = h.first[i] + len(ms)
	}
	h.budget()
	return h
}

// cellIndex is the per-cell sorted non-NaN values of every series of
// members over n cells, as offsets into one slice (a counting sort by
// cell, then a sort within each cell), and each series' place among them:
// rank[sid·n+t] is the position in cell t's values of the value of series
// sid (the series numbered in member order), −1 where it has none (equal
// values take their places in any order: the values read at each place
// are the same). O(P log P) time, 12 bytes a point and 4 a cell of each
// series.
func cellIndex(members [][]*ingest.Series, n int) (off []int, vals []float64, rank []int32) {
	off = make([]int, n+1)
	sids := 0
	for _, ms := range members {
		for _, s := range ms {
			sids++
			for t, v := range s.V[:min(len(s.V), n)] {
				if !math.IsNaN(v) {
					off[t+1]++
				}
			}
		}
	}
	for t := range n {
		off[t+1] += off[t]
	}
	type point struct {
		v   float64
		sid int32
	}
	pts := make([]point, off[n])
	next := slices.Clone(off[:n])
	sid := int32(0)
	for _, ms := range members {
		for _, s := range ms {
			for t, v := range s.V[:min(len(s.V), n)] {
				if !math.IsNaN(v) {
					pts[next[t]] = point{v, sid}
					next[t]++
				}
			}
			sid++
		}
	}
	vals = make([]float64, off[n])
	rank = make([]int32, sids*n)
	for k := range rank {
		rank[k] = -1
	}
	for t := range n {
		cell := pts[off[t]:off[t+1]]
		// By value only (no NaN here): which of two equal values takes
		// which place changes no median.
		slices.SortFunc(cell, func(a, b point) int {
			switch {
			case a.v < b.v:
				return -1
			case a.v > b.v:
				return 1
			}
			return 0
		})
		for k, pt := range cell {
			vals[off[t]+k] = pt.v
			rank[int(pt.sid)*n+t] = int32(k)
		}
	}
	return off, vals, rank
}

// cell is cell t's sorted values (none past the index).
func (h *Cohort) cell(t int) []float64 {
	if t+1 >= len(h.off) {
		return nil
	}
	return h.vals[h.off[t]:h.off[t+1]]
}

// gridLen is the grid length Compare sees for member i: the longest of its
// series and its peers' — the longest of all, unless it has no peer
// series.
func (h *Cohort) gridLen(i int) int {
	if h.total-len(h.members[i]) == 0 {
		return h.lens[i]
	}
	return h.long
}

// Members is the number of members.
func (h *Cohort) Members() int { return len(h.members) }

// Sampled is the size of the sample whose peer spread a contrast took
// (0: every contrast so far took its own, exactly as Compare computes it).
func (h *Cohort) Sampled() int {
	if !h.used {
		return 0
	}
	return h.sampled
}

// Compare is member i's contrast with all the other members: Compare's
// result for (members[i], the others' series).
func (h *Cohort) Compare(i int) Contrast {
	n := h.gridLen(i)
	npeers := h.total - len(h.members[i])
	spread := func() float64 {
		if h.sampled == 0 {
			return h.ownSpread(i, n)
		}
		if !h.used {
			k := h.sampled
			var sample []*ingest.Series
			for j := range k {
				sample = append(sample, h.members[j*len(h.members)/k]...)
			}
			h.shared, h.used = peerSpread(sample, h.c, h.long), true
		}
		return h.shared
	}
	return compareWith(h.members[i], h.peerMedians(i, n), npeers, spread, n, h.c, h.p)
}

// own returns, into buf, the positions in cell t's sorted values of member
// i's own values there, ascending. O(k log k) for its k series.
func (h *Cohort) own(i, t int, buf []int) []int {
	buf = buf[:0]
	if t >= h.long {
		return buf
	}
	for sid := h.first[i]; sid < h.first[i+1]; sid++ {
		if r := h.rank[sid*h.long+t]; r >= 0 {
			buf = append(buf, int(r))
		}
	}
	if len(buf) > 1 {
		slices.Sort(buf)
	}
	return buf
}

// without is the j-th value of cell without the positions rm (ascending).
func without(cell []float64, rm []int, j int) float64 {
	for _, r := range rm {
		if r <= j {
			j++
		}
	}
	return cell[j]
}

// peerMedians is cellMedians of every other member's series over n cells,
// read off the index: the median (R type 7, as measure.QuantileInPlace)
// of each cell's values without member i's. O(n · k).
func (h *Cohort) peerMedians(i, n int) []float64 {
	out := make([]float64, n)
	var rm []int
	for t := range out {
		cell := h.cell(t)
		rm = h.own(i, t, rm)
		m := len(cell) - len(rm)
		if m == 0 {
			out[t] = math.NaN()
			continue
		}
		hh := 0.5 * float64(m-1)
		lo := int(math.Floor(hh))
		if lo >= m-1 {
			out[t] = without(cell, rm, m-1)
			continue
		}
		a := without(cell, rm, lo)
		out[t] = a + (hh-float64(lo))*(without(cell, rm, lo+1)-a)
	}
	return out
}

// ownSpread is peerSpread over every other member's series: each cell's
// sorted values without member i's, and each of those against the median
// of the rest. O(P_B log P_B) for the others' P_B baseline points.
func (h *Cohort) ownSpread(i, n int) float64 {
	var dev, buf []float64
	var rm []int
	for t := h.c.B0; t < h.c.B1 && t < n; t++ {
		cell := h.cell(t)
		rm = h.own(i, t, rm)
		buf = buf[:0]
		k := 0
		for j, v := range cell {
			if k < len(rm) && rm[k] == j {
				k++
				continue
			}
			buf = append(buf, v)
		}
		dev = appendPeerDeviations(dev, buf)
	}
	if len(dev) < 2 {
		return 0
	}
	_, spread := robustSpread(dev)
	return spread
}

// budget decides, before any member is compared, whether the members
// whose scale needs the peer spread would together read more than
// MaxSpreadWork baseline points; if so they share one spread, of an evenly
// spaced sample of SpreadSample members (computed once, when first
// needed). A member needs the spread when fewer than MinBaselineCells
// baseline cells hold both its value and a peer's (compareWith's rule),
// it has two peer series or more, and its contrast can be judged at all
// (MaxCells reaches MinCells). O(members · cells · k).
func (h *Cohort) budget() {
	baseline := 0 // every member's baseline points
	for t := h.c.B0; t < h.c.B1 && t < h.long; t++ {
		baseline += len(h.cell(t))
	}
	work := 0
	var rm []int
	for i := range h.members {
		if h.total-len(h.members[i]) < 2 || h.MaxCells(i) < h.p.MinCells {
			continue
		}
		n, both := h.gridLen(i), 0
		for t := h.c.B0; t < h.c.B1 && t < n && both < h.p.MinBaselineCells; t++ {
			rm = h.own(i, t, rm)
			if len(rm) > 0 && len(h.cell(t)) > len(rm) {
				both++
			}
		}
		if both < h.p.MinBaselineCells {
			work += baseline
		}
		if work > h.p.MaxSpreadWork {
			break
		}
	}
	if work <= h.p.MaxSpreadWork {
		return
	}
	h.sampled = min(h.p.SpreadSample, len(h.members))
}

// HasPeers reports whether member i has peer series (Compare needs one).
func (h *Cohort) HasPeers(i int) bool { return h.total > len(h.members[i]) }

// MaxCells bounds Compare(i).Cells from above without computing the
// contrast: the window cells where member i has a value and another
// member too. A caller that needs MinCells skips a member below it at
// the cost of O(window cells · k). (Cells can be lower only where
// a side's median is NaN though it has values: +Inf beside −Inf.)
func (h *Cohort) MaxCells(i int) int {
	n, k := h.gridLen(i), 0
	var rm []int
	for t := max(h.c.W0, 0); t < h.c.W1 && t < n; t++ {
		rm = h.own(i, t, rm)
		if len(rm) > 0 && len(h.cell(t)) > len(rm) {
			k++
		}
	}
	return k
}
