package compare

import (
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds the two-sample statistics. Every function takes its
// samples sorted ascending (the callers sort once and reuse them) and
// returns NaN where a statistic is undefined (an empty side, a zero
// variance), never panics on data. Conventions: x is the BEFORE sample, y
// the AFTER sample; a positive effect means AFTER is larger.

// twoSided is the two-sided normal tail probability of z.
func twoSided(z float64) float64 {
	if math.IsNaN(z) {
		return math.NaN()
	}
	return 2 * distuv.UnitNormal.Survival(math.Abs(z))
}

// mwu is a Mann–Whitney U test of y against x.
type mwu struct {
	U     float64 // U of y: pairs (x, y) with y > x, ties counted 1/2
	Z     float64 // normal approximation, tie- and continuity-corrected, divided by sqrt(Deff)
	P     float64 // two-sided
	Delta float64 // Cliff's δ = P(y > x) − P(y < x) = 2U/(nm) − 1
	Deff  float64 // variance inflation applied (1 = independent samples)
}

// mannWhitney computes the Mann–Whitney U test of sorted y against sorted
// x with average ranks for ties, the tie-corrected variance
// nm/12·((N+1) − Σ(t³−t)/(N(N−1))) and a continuity correction of 1/2
// towards the mean (scipy.stats.mannwhitneyu's method="asymptotic"). The
// variance is multiplied by deff (≥ 1) to account for dependent samples.
// ranks, when non-nil, receives the average rank of every element of x
// followed by every element of y (len(x)+len(y)). O(n+m).
func mannWhitney(x, y []float64, deff float64, ranks []float64) mwu {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return mwu{U: math.NaN(), Z: math.NaN(), P: math.NaN(), Delta: math.NaN(), Deff: deff}
	}
	var ry, ties float64
	i, j, pos := 0, 0, 0
	for i < n || j < m {
		var v float64
		switch {
		case j >= m || (i < n && x[i] <= y[j]):
			v = x[i]
		default:
			v = y[j]
		}
		i0, j0 := i, j
		for i < n && x[i] == v {
			i++
		}
		for j < m && y[j] == v {
			j++
		}
		cx, cy := i-i0, j-j0
		t := float64(cx + cy)
		avg := float64(pos) + (t+1)/2
		ry += float64(cy) * avg
		ties += t*t*t - t
		if ranks != nil {
			for k := i0; k < i; k++ {
				ranks[k] = avg
			}
			for k := j0; k < j; k++ {
				ranks[n+k] = avg
			}
		}
		pos += cx + cy
	}
	nf, mf := float64(n), float64(m)
	N := nf + mf
	u := ry - mf*(mf+1)/2
	out := mwu{U: u, Delta: 2*u/(nf*mf) - 1, Deff: math.Max(1, deff)}
	mean := nf * mf / 2
	v := nf * mf / 12 * ((N + 1) - ties/(N*(N-1)))
	if v <= 0 || math.IsNaN(v) {
		out.Z, out.P = 0, 1
		return out
	}
	d := u - mean
	switch {
	case d > 0.5:
		d -= 0.5
	case d < -0.5:
		d += 0.5
	default:
		d = 0
	}
	out.Z = d / math.Sqrt(v*out.Deff)
	out.P = twoSided(out.Z)
	return out
}

// ksTwoSample returns the two-sample Kolmogorov–Smirnov distance D of sorted
// x and y (gonum's stat.KolmogorovSmirnov) and its asymptotic two-sided
// p-value Q_KS(sqrt(en)·D), en = nx·ny/(nx+ny), from the limiting
// Kolmogorov distribution (scipy.stats.kstwobign.sf, R's ks.test with
// exact = FALSE). nx and ny are the effective sample sizes (the counts
// divided by a design effect for dependent samples).
func ksTwoSample(x, y []float64, nx, ny float64) (d, p float64) {
	if len(x) == 0 || len(y) == 0 || nx <= 0 || ny <= 0 {
		return math.NaN(), math.NaN()
	}
	d = stat.KolmogorovSmirnov(x, nil, y, nil)
	en := nx * ny / (nx + ny)
	return d, kolmogorovSF(math.Sqrt(en) * d)
}

// kolmogorovSF is the survival function of the limiting Kolmogorov
// distribution, Q(z) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²z²), with the
// small-z form sqrt(2π)/z Σ exp(−(2k−1)²π²/(8z²)) for the CDF where the
// alternating series converges slowly.
func kolmogorovSF(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z <= 0:
		return 1
	case z < 1.18:
		s := 0.0
		for k := 1; k <= 20; k++ {
			t := float64(2*k - 1)
			s += math.Exp(-t * t * math.Pi * math.Pi / (8 * z * z))
		}
		return 1 - math.Sqrt(2*math.Pi)/z*s
	}
	s := 0.0
	for k := 1; k <= 100; k++ {
		t := math.Exp(-2 * float64(k*k) * z * z)
		if k%2 == 0 {
			s -= t
		} else {
			s += t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Max(0, math.Min(1, 2*s))
}

// hlMaxSide bounds the values per side the Hodges–Lehmann shift uses.
const hlMaxSide = 4000

// hodgesLehmann is the two-sample Hodges–Lehmann shift: the median of all
// len(x)·len(y) differences y_j − x_i (the mean of the two middle ones when
// their number is even). Small inputs are enumerated; larger ones are
// solved by bisection on the value, counting the differences ≤ d in
// O(n+m) per step, to a relative precision of 1e-12. A side of more than
// hlMaxSide values is first thinned to hlMaxSide evenly spaced order
// statistics (its quantile function at that resolution), which bounds the
// cost at O(hlMaxSide · log range) and moves the estimate by less than the
// spacing of those quantiles.
func hodgesLehmann(x, y []float64) float64 {
	x, y = thin(x, hlMaxSide), thin(y, hlMaxSide)
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return math.NaN()
	}
	total := n * m
	if total <= 250_000 {
		d := make([]float64, 0, total)
		for _, a := range x {
			for _, b := range y {
				d = append(d, b-a)
			}
		}
		sort.Float64s(d)
		if total%2 == 1 {
			return d[total/2]
		}
		return (d[total/2-1] + d[total/2]) / 2
	}
	// kth returns the k-th smallest difference (1-based).
	kth := func(k int) float64 {
		lo, hi := y[0]-x[n-1], y[m-1]-x[0]
		for range 200 {
			if hi-lo <= 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) || hi-lo <= 1e-300 {
				break
			}
			mid := lo + (hi-lo)/2
			if countLE(x, y, mid) >= k {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	if total%2 == 1 {
		return kth(total/2 + 1)
	}
	return (kth(total/2) + kth(total/2+1)) / 2
}

// thin returns k evenly spaced order statistics of sorted xs (xs itself
// when it has at most k values), the first and the last included.
func thin(xs []float64, k int) []float64 {
	if len(xs) <= k {
		return xs
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = xs[int(math.Round(float64(i)*float64(len(xs)-1)/float64(k-1)))]
	}
	return out
}

// countLE counts the pairs with y_j − x_i ≤ d (sorted x, y): for each y_j
// the x_i ≥ y_j − d, by one pointer moving forward. O(n+m).
func countLE(x, y []float64, d float64) int {
	c, i := 0, 0
	for _, b := range y {
		for i < len(x) && x[i] < b-d {
			i++
		}
		c += len(x) - i
	}
	return c
}

// benjaminiHochberg returns the BH-adjusted q-values of p (the step-up
// procedure: q_(i) = min_{k≥i} p_(k)·m/k, capped at 1). NaN p-values are
// not tests: they stay NaN and do not count in m. Ties keep input order.
func benjaminiHochberg(p []float64) []float64 {
	q := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		q[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := float64(len(idx))
	run := 1.0
	for k := len(idx) - 1; k >= 0; k-- {
		v := p[idx[k]] * m / float64(k+1)
		run = math.Min(run, v)
		q[idx[k]] = run
	}
	return q
}

// twoProportion is the pooled two-proportion z-test of e2/n2 against
// e1/n1 (the uncorrected chi-square test of the 2×2 table, z² = χ²), with
// the variance multiplied by deff. h is Cohen's effect size
// 2·asin(sqrt(p2)) − 2·asin(sqrt(p1)).
func twoProportion(e1, n1, e2, n2, deff float64) (z, p, h float64) {
	if n1 <= 0 || n2 <= 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	p1, p2 := e1/n1, e2/n2
	h = 2*math.Asin(math.Sqrt(p2)) - 2*math.Asin(math.Sqrt(p1))
	pool := (e1 + e2) / (n1 + n2)
	v := pool * (1 - pool) * (1/n1 + 1/n2) * math.Max(1, deff)
	if v <= 0 {
		return 0, 1, h
	}
	z = (p2 - p1) / math.Sqrt(v)
	return z, twoSided(z), h
}

// poissonRate compares the event rates k1/t1 and k2/t2 by the conditional
// test: given k1+k2 events, k2 is binomial with p0 = t2/(t1+t2) under equal
// rates; its normal approximation with the variance multiplied by the
// overdispersion deff. It returns the rate ratio (k2/t2)/(k1/t1), z and the
// two-sided p-value.
func poissonRate(k1, t1, k2, t2, deff float64) (ratio, z, p float64) {
	if t1 <= 0 || t2 <= 0 || k1+k2 <= 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	ratio = (k2 / t2) / (k1 / t1)
	n := k1 + k2
	p0 := t2 / (t1 + t2)
	v := n * p0 * (1 - p0) * math.Max(1, deff)
	z = (k2 - n*p0) / math.Sqrt(v)
	return ratio, z, twoSided(z)
}

// designEffect estimates how much clustering in time inflates the variance
// of a two-sample statistic: groups are (side, time cell); the one-way
// ANOVA intraclass correlation of the values (ranks, or 0/1 outcomes)
// around their side's mean gives deff = 1 + (m̄ − 1)·ICC with m̄ = Σm²/N
// the size-weighted mean cluster size (Kish). side[i] is 0 or 1, cell[i]
// the cell index (any int32 ≥ 0). Returns 1 when it cannot be estimated
// (fewer than 3 groups, no within-group variance). O(N + groups).
func designEffect(vals []float64, side []uint8, cell []int32) float64 {
	N := len(vals)
	if N < 3 {
		return 1
	}
	// Groups are numbered densely: by a table when the cells are small
	// non-negative numbers (the usual case), else by a map.
	maxCell := int32(0)
	for _, c := range cell {
		maxCell = max(maxCell, c)
	}
	gi := make([]int, N)
	var cnt []float64
	var sum []float64
	var sideOf []uint8
	var sideSum, sideN [2]float64
	newGroup := func(s uint8) int {
		cnt = append(cnt, 0)
		sum = append(sum, 0)
		sideOf = append(sideOf, s)
		return len(cnt) - 1
	}
	if int(maxCell) < 4*N+64 && !slices.ContainsFunc(cell, func(c int32) bool { return c < 0 }) {
		width := int(maxCell) + 1
		table := make([]int32, 2*width)
		for i := range table {
			table[i] = -1
		}
		for i := range vals {
			k := int(side[i]&1)*width + int(cell[i])
			if table[k] < 0 {
				table[k] = int32(newGroup(side[i]))
			}
			gi[i] = int(table[k])
		}
	} else {
		type key struct {
			s uint8
			c int32
		}
		idx := map[key]int{}
		for i := range vals {
			k := key{side[i], cell[i]}
			g, ok := idx[k]
			if !ok {
				g = newGroup(side[i])
				idx[k] = g
			}
			gi[i] = g
		}
	}
	for i, v := range vals {
		g := gi[i]
		cnt[g]++
		sum[g] += v
		sideSum[side[i]] += v
		sideN[side[i]]++
	}
	G := len(cnt)
	sides := 0
	for s := range 2 {
		if sideN[s] > 0 {
			sides++
		}
	}
	if G-sides < 2 || N-G < 1 {
		return 1
	}
	var ssb, ssw, sumM2 float64
	for g := range G {
		mean := sum[g] / cnt[g]
		sm := sideSum[sideOf[g]] / sideN[sideOf[g]]
		ssb += cnt[g] * (mean - sm) * (mean - sm)
		sumM2 += cnt[g] * cnt[g]
	}
	for i, v := range vals {
		g := gi[i]
		d := v - sum[g]/cnt[g]
		ssw += d * d
	}
	nf := float64(N)
	msb := ssb / float64(G-sides)
	msw := ssw / float64(N-G)
	m0 := (nf - sumM2/nf) / float64(G-1)
	if msw <= 0 || msb+(m0-1)*msw <= 0 {
		return 1
	}
	icc := (msb - msw) / (msb + (m0-1)*msw)
	icc = math.Max(0, math.Min(1, icc))
	return 1 + (sumM2/nf-1)*icc
}

// robustScale is 1.4826·MAD of sorted xs around their median, raised to
// IQR/1.349 when the MAD is zero but the IQR is not; NaN when empty.
func robustScale(sorted []float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	_, mad := measure.MedianMAD(sorted, nil)
	s := measure.MADToSigma * mad
	if s == 0 {
		s = (measure.QuantileSorted(sorted, 0.75) - measure.QuantileSorted(sorted, 0.25)) / 1.349
	}
	return s
}

// lag1 is the lag-1 autocorrelation of xs (NaN-free, in time order); 0 for
// fewer than 4 values or a constant series.
func lag1(xs []float64) float64 {
	if len(xs) < 4 {
		return 0
	}
	mean := stat.Mean(xs, nil)
	var num, den float64
	for i, v := range xs {
		d := v - mean
		den += d * d
		if i > 0 {
			num += d * (xs[i-1] - mean)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// exactMannWhitney is the two-sided p-value of the Mann–Whitney test of y
// against x (both sorted) from the exact null distribution of U without
// ties (the coefficients of the Gaussian binomial [n+m choose n]_q), for
// the small samples it is used on; a tie counts ½ and is rounded towards
// the centre (conservative). NaN when a side is empty. O(n²·m).
func exactMannWhitney(x, y []float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return math.NaN()
	}
	if n > m {
		n, m = m, n
	}
	mw := mannWhitney(x, y, 1, nil)
	u := mw.U // pairs with y above x, ties ½
	// c[k]: arrangements with U = k, by ∏_{i=1..n} (1 − q^{m+i}) / (1 − q^i).
	deg := n * m
	c := make([]float64, deg+1)
	c[0] = 1
	for i := 1; i <= n; i++ {
		for k := deg; k >= m+i; k-- {
			c[k] -= c[k-m-i]
		}
		for k := i; k <= deg; k++ {
			c[k] += c[k-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	mid := float64(deg) / 2
	var tail float64
	if u >= mid {
		for k := int(math.Floor(u)); k <= deg; k++ {
			tail += c[k]
		}
	} else {
		for k := 0; k <= int(math.Ceil(u)); k++ {
			tail += c[k]
		}
	}
	return math.Min(1, 2*tail/total)
}
