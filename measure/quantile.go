package measure

import (
	"math"
	"math/bits"
	"sort"
)

// Quantile is the linear-interpolation quantile (R type 7, NumPy's
// default: the median of 1,2,3,4 is 2.5): the interpolation between the
// order statistics ⌊h⌋ and ⌊h⌋+1, h = q·(n−1).
// NaN sorts first (as sort.Float64s orders it); NaN for an empty slice.
// It selects on a copy, leaving xs as it is. O(n) expected.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var buf [64]float64
	var c []float64
	if len(xs) <= len(buf) {
		c = buf[:len(xs)]
	} else {
		c = make([]float64, len(xs))
	}
	copy(c, xs)
	return QuantileInPlace(c, q)
}

// QuantileInPlace is Quantile without the copy: it reorders xs (a
// partial sort) and returns the same value, bit for bit, as sorting xs and
// interpolating would. O(n) expected, O(n log n) at worst.
func QuantileInPlace(xs []float64, q float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		selectKth(xs, n-1)
		return xs[n-1]
	}
	if lo < 0 {
		lo = 0 // q < 0: as the sorted formula reads xs[0] (with h < 0)
	}
	selectKth(xs, lo)
	// xs[lo+1:] holds the elements at or after lo in sorted order: the next
	// order statistic is their minimum.
	next := xs[lo+1]
	for _, x := range xs[lo+2:] {
		if lessNaN(x, next) {
			next = x
		}
	}
	return xs[lo] + (h-float64(lo))*(next-xs[lo])
}

// QuantileSorted is Quantile of data already sorted (R type 7; NaN when
// empty), for float64 or float32 data; the difference of the two order
// statistics is taken in the data's own type.
func QuantileSorted[F ~float32 | ~float64](xs []F, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo >= len(xs)-1 {
		return float64(xs[len(xs)-1])
	}
	return float64(xs[lo]) + (h-float64(lo))*float64(xs[lo+1]-xs[lo])
}

// lessNaN is sort.Float64s' order: NaN before every number.
func lessNaN(a, b float64) bool { return a < b || (a != a && b == b) }

// selectKth reorders xs so that xs[k] is the element a sort would put at
// k, everything before it is not greater and everything after it not less
// (quickselect with a median-of-three pivot; after 2·log₂n rounds the rest
// is sorted, which bounds the worst case).
func selectKth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	budget := 2 * bits.Len(uint(len(xs)))
	for hi > lo {
		if hi-lo < 16 || budget == 0 {
			insertionOrSort(xs[lo : hi+1])
			return
		}
		budget--
		// median of three to xs[lo]
		m := lo + (hi-lo)/2
		if lessNaN(xs[m], xs[lo]) {
			xs[m], xs[lo] = xs[lo], xs[m]
		}
		if lessNaN(xs[hi], xs[lo]) {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if lessNaN(xs[hi], xs[m]) {
			xs[hi], xs[m] = xs[m], xs[hi]
		}
		xs[lo], xs[m] = xs[m], xs[lo]
		p := xs[lo]
		// Hoare partition around p: [lo, j] ≤ p ≤ [j+1, hi].
		i, j := lo, hi+1
		for {
			for i++; i <= hi && lessNaN(xs[i], p); i++ {
			}
			for j--; lessNaN(p, xs[j]); j-- {
			}
			if i >= j {
				break
			}
			xs[i], xs[j] = xs[j], xs[i]
		}
		xs[lo], xs[j] = xs[j], xs[lo]
		switch {
		case k == j:
			return
		case k < j:
			hi = j - 1
		default:
			lo = j + 1
		}
	}
}

func insertionOrSort(xs []float64) {
	if len(xs) > 16 {
		sort.Float64s(xs)
		return
	}
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && lessNaN(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
