package profdiff

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// The tests: Welch's t on log times (a kernel's or a layer's time for one
// input shape is close to log-normal, and a fix or a regression scales it:
// a shift of its logarithm; Welch allows the two captures different
// spreads), the z-test of two totals for a step seen once a side, and
// Benjamini–Hochberg over every row — compare's false-discovery control.

// logs returns log(max(x, 1 ns)) of each value (seconds): a zero-length
// activity (timer resolution) is not −∞.
func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(max(x, 1e-9))
	}
	return out
}

// meanVar is the mean and the unbiased variance of xs.
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		v /= float64(len(xs) - 1)
	}
	return m, v
}

// welchLog is the two-sided p-value of Welch's t-test of the means of
// log(x) and log(y) (each at least two values). Two constant samples give
// 1 when equal and 0 when not.
func welchLog(x, y []float64) float64 {
	lx, ly := logs(x), logs(y)
	mx, vx := meanVar(lx)
	my, vy := meanVar(ly)
	nx, ny := float64(len(lx)), float64(len(ly))
	se2 := vx/nx + vy/ny
	if se2 <= 0 {
		if math.Abs(mx-my) < 1e-12 {
			return 1
		}
		return 0
	}
	t := (my - mx) / math.Sqrt(se2)
	df := se2 * se2 / ((vx/nx)*(vx/nx)/(nx-1) + (vy/ny)*(vy/ny)/(ny-1))
	if math.IsNaN(df) || df < 1 {
		df = 1
	}
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
}

// totalsTest compares two sums of activity times (a capture seen once a
// side): the ratio of the totals, its interval from the delta method
// (var(log T) ≈ n·var(d)/T²) and the z-test's two-sided p-value.
func totalsTest(x, y []float64, level float64) (ratio, lo, hi, p float64) {
	sum := func(xs []float64) (t, v float64) {
		m, vv := meanVar(xs)
		return m * float64(len(xs)), vv * float64(len(xs))
	}
	tx, vx := sum(x)
	ty, vy := sum(y)
	if tx <= 0 || ty <= 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	ratio = ty / tx
	se := math.Sqrt(vx/(tx*tx) + vy/(ty*ty))
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	lo, hi = ratio*math.Exp(-z*se), ratio*math.Exp(z*se)
	if se == 0 {
		p = 1
		if ratio != 1 {
			p = 0
		}
		return ratio, lo, hi, p
	}
	return ratio, lo, hi, 2 * distuv.UnitNormal.CDF(-math.Abs(math.Log(ratio))/se)
}

// benjaminiHochberg returns the BH-adjusted q-values of p (NaN entries
// stay NaN and do not count).
func benjaminiHochberg(p []float64) []float64 {
	q := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		q[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return a - b
	})
	m := float64(len(idx))
	prev := 1.0
	for k := len(idx) - 1; k >= 0; k-- {
		i := idx[k]
		v := math.Min(prev, p[i]*m/float64(k+1))
		q[i], prev = v, v
	}
	return q
}
