package measure

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BootQuantile draws one bootstrap replicate of the q-quantile (R type 7,
// as Quantile) of the sorted sample xs — the quantile of n values drawn
// from xs with replacement — in O(1) instead of O(n): the k-th smallest of
// n indices drawn uniformly is ⌈n·U₍ₖ₎⌉, where U₍ₖ₎, the k-th order
// statistic of n uniforms, is Beta(k, n−k+1), and the next one is
// U₍ₖ₎ + (1−U₍ₖ₎)·Beta(1, n−k). So the exact bootstrap distribution of an
// order statistic (Hutson 1999) is sampled without resampling, which makes
// thousands of replicates of a million-value sample cheap. NaN for an
// empty xs; xs must be sorted (ascending) and free of NaN.
func BootQuantile(xs []float64, q float64, r *rand.Rand) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return xs[0]
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	lo = max(0, min(lo, n-1))
	frac := h - float64(lo)
	k := lo + 1 // 1-based rank of the lower order statistic
	u := betaRand(float64(k), float64(n-k+1), r)
	i := index(u, n)
	if frac <= 0 || k >= n {
		return xs[i]
	}
	u2 := u + (1-u)*betaRand(1, float64(n-k), r)
	j := max(index(u2, n), i)
	return xs[i] + frac*(xs[j]-xs[i])
}

// index maps an order statistic of uniforms to the 0-based index ⌈n·u⌉−1.
func index(u float64, n int) int {
	i := int(math.Ceil(u*float64(n))) - 1
	return max(0, min(i, n-1))
}

// betaRand draws Beta(a, b) from r.
func betaRand(a, b float64, r *rand.Rand) float64 {
	return distuv.Beta{Alpha: a, Beta: b, Src: r}.Rand()
}

// PercentileInterval returns the (1−level)/2 and (1+level)/2 quantiles
// (R type 7) of the replicates xs, sorting xs in place; NaN values are
// left out; [NaN, NaN] when none remain.
func PercentileInterval(xs []float64, level float64) (lo, hi float64) {
	w := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			xs[w] = x
			w++
		}
	}
	xs = xs[:w]
	if w == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(xs)
	return QuantileSorted(xs, (1-level)/2), QuantileSorted(xs, (1+level)/2)
}
