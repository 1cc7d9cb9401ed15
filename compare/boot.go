package compare

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// distSide is one side of a distribution item ready for the tests: the
// values sorted ascending, each with its time cell renumbered densely
// 0..k-1 in time order.
type distSide struct {
	v    []float64
	cell []int32
	k    int
}

// newDistSide sorts vals (carrying their cells, cell = ⌊(t−start)/width⌋).
// O(n log n).
func newDistSide(vals []float64, times []ingest.Time, start ingest.Time, width time.Duration) distSide {
	type vc struct {
		v float64
		c int64
	}
	xs := make([]vc, len(vals))
	for i, v := range vals {
		xs[i] = vc{v, int64(times[i]-start) / int64(width)}
	}
	slices.SortFunc(xs, func(a, b vc) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		case a.c < b.c:
			return -1
		case a.c > b.c:
			return 1
		}
		return 0
	})
	// Dense cell numbers in time order.
	seen := map[int64]bool{}
	var raw []int64
	for _, x := range xs {
		if !seen[x.c] {
			seen[x.c] = true
			raw = append(raw, x.c)
		}
	}
	slices.Sort(raw)
	dense := make(map[int64]int32, len(raw))
	for i, c := range raw {
		dense[c] = int32(i)
	}
	d := distSide{v: make([]float64, len(xs)), cell: make([]int32, len(xs)), k: len(raw)}
	for i, x := range xs {
		d.v[i], d.cell[i] = x.v, dense[x.c]
	}
	return d
}

// boot draws B block-bootstrap replicates of the quantiles qs: each
// replicate resamples the k time cells with replacement (so dependence
// within a cell is kept) and weights every value by its cell's
// multiplicity; the replicate quantile is the weighted inverse CDF (the
// smallest value whose cumulative weight reaches q of the total). Upper
// quantiles are found by scanning from the top, so p99 costs 1% of the
// values. O(B · (k + n·max(q, 1−q) over qs)).
func (d distSide) boot(qs []float64, B int, r *rand.Rand) [][]float64 {
	out := make([][]float64, len(qs))
	for i := range out {
		out[i] = make([]float64, B)
	}
	if d.k == 0 {
		for i := range out {
			for b := range out[i] {
				out[i][b] = math.NaN()
			}
		}
		return out
	}
	size := make([]float64, d.k)
	for _, c := range d.cell {
		size[c]++
	}
	w := make([]float64, d.k)
	for b := range B {
		clear(w)
		for range d.k {
			w[r.IntN(d.k)]++
		}
		total := 0.0
		for c, m := range w {
			total += m * size[c]
		}
		for i, q := range qs {
			out[i][b] = d.weightedQuantile(w, total, q)
		}
	}
	return out
}

func (d distSide) weightedQuantile(w []float64, total, q float64) float64 {
	if q <= 0.5 {
		target := q * total
		cum := 0.0
		for i, v := range d.v {
			cum += w[d.cell[i]]
			if cum >= target && w[d.cell[i]] > 0 {
				return v
			}
		}
		return d.v[len(d.v)-1]
	}
	// From the top: value i is the answer when the weight below it,
	// total − above − w_i (exact: the weights are whole numbers), is still
	// short of the target.
	target := q * total
	above := 0.0
	for i := len(d.v) - 1; i >= 0; i-- {
		wi := w[d.cell[i]]
		if wi == 0 {
			continue
		}
		if total-above-wi < target {
			return d.v[i]
		}
		above += wi
	}
	return d.v[0]
}

// itemRand is the item's own random stream: the run's seed and a hash of
// the item ID, so an item's intervals do not depend on which other items
// exist or the order they are computed in.
func itemRand(seed uint64, id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// percentileInterval is the [2.5%, 97.5%] interval of xs (NaN values
// dropped); NaN when fewer than 10 values remain.
func percentileInterval(xs []float64) [2]float64 {
	var c []float64
	for _, x := range xs {
		if x == x && !math.IsInf(x, 0) {
			c = append(c, x)
		}
	}
	if len(c) < 10 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	slices.Sort(c)
	return [2]float64{measure.QuantileSorted(c, 0.025), measure.QuantileSorted(c, 0.975)}
}
