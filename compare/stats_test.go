package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

func sorted(xs ...float64) []float64 {
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	return c
}

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

// TestMannWhitneyScipy checks U and the asymptotic p-value against
// scipy.stats.mannwhitneyu(x, y, method="asymptotic") (scipy 1.10.1): the
// first case is the example of scipy's documentation (males vs females,
// U = 17, p = 0.11134688653314041); the second has ties in both samples.
// scipy reports U of its first argument, which is our y.
func TestMannWhitneyScipy(t *testing.T) {
	tests := []struct {
		name    string
		x, y    []float64 // x = BEFORE, y = AFTER (scipy's second, first argument)
		u, p    float64
		wantDel float64
	}{
		{"scipy doc example", sorted(20, 11, 17, 12), sorted(19, 22, 16, 29, 24), 17, 0.11134688653314041, 2*17.0/20 - 1},
		{"ties", sorted(2, 3, 4, 4, 5, 5, 6, 7, 7), sorted(1, 2, 2, 3, 3, 3, 4, 5), 13.5, 0.03175895714806371, 2*13.5/72 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mannWhitney(tc.x, tc.y, 1, nil)
			if r.U != tc.u || !near(r.P, tc.p, 1e-12) || !near(r.Delta, tc.wantDel, 1e-12) {
				t.Errorf("U %v p %v δ %v, want U %v p %v δ %v", r.U, r.P, r.Delta, tc.u, tc.p, tc.wantDel)
			}
			// Swapping the samples mirrors U and δ and keeps p.
			s := mannWhitney(tc.y, tc.x, 1, nil)
			if s.U != float64(len(tc.x)*len(tc.y))-tc.u || !near(s.P, tc.p, 1e-12) || !near(s.Delta, -tc.wantDel, 1e-12) {
				t.Errorf("swapped: U %v p %v δ %v", s.U, s.P, s.Delta)
			}
		})
	}
	t.Run("design effect widens the p-value", func(t *testing.T) {
		x, y := sorted(20, 11, 17, 12), sorted(19, 22, 16, 29, 24)
		a, b := mannWhitney(x, y, 1, nil), mannWhitney(x, y, 4, nil)
		if !(b.P > a.P) || !near(b.Z, a.Z/2, 1e-12) {
			t.Errorf("deff 4: z %v (want %v), p %v ≤ %v", b.Z, a.Z/2, b.P, a.P)
		}
	})
	t.Run("ranks", func(t *testing.T) {
		x, y := sorted(1, 2, 2, 5), sorted(2, 3, 5)
		r := make([]float64, 7)
		mannWhitney(x, y, 1, r)
		want := []float64{1, 3, 3, 6.5, 3, 5, 6.5}
		if !slices.Equal(r, want) {
			t.Errorf("ranks %v, want %v", r, want)
		}
	})
}

// TestCliffDeltaBruteForce checks δ from ranks against counting all pairs.
func TestCliffDeltaBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		n, m := 1+r.IntN(40), 1+r.IntN(40)
		x, y := make([]float64, n), make([]float64, m)
		for i := range x {
			x[i] = float64(r.IntN(10))
		}
		for i := range y {
			y[i] = float64(r.IntN(10)) + float64(trial%3)
		}
		sort.Float64s(x)
		sort.Float64s(y)
		gt, lt := 0, 0
		for _, a := range x {
			for _, b := range y {
				switch {
				case b > a:
					gt++
				case b < a:
					lt++
				}
			}
		}
		want := float64(gt-lt) / float64(n*m)
		if got := mannWhitney(x, y, 1, nil).Delta; !near(got, want, 1e-12) {
			t.Fatalf("trial %d: δ %v, want %v", trial, got, want)
		}
	}
}

// TestKolmogorovScipy checks the limiting Kolmogorov survival function
// against scipy.stats.kstwobign.sf (scipy 1.10.1) and the two-sample
// statistic on a fixed pair of samples (scipy.stats.ks_2samp: D = 0.28; the
// asymptotic p is kstwobign.sf(sqrt(25·20/45)·0.28) = 0.3483804915496269).
func TestKolmogorovScipy(t *testing.T) {
	for _, tc := range []struct{ z, p float64 }{
		{0.5, 0.9639452436648751}, {0.8, 0.5441424115741981}, {1.0, 0.26999967167735456},
		{1.36, 0.049485876755377876}, {2.0, 0.0006709252557796953},
	} {
		if got := kolmogorovSF(tc.z); !near(got, tc.p, 1e-9) {
			t.Errorf("Q(%v) = %v, want %v", tc.z, got, tc.p)
		}
	}
	a := sorted(0.61, 0.29, 0.06, 0.59, -1.73, -0.74, 0.51, -0.56, 0.39, 1.64, 0.05, -0.06, 0.64, -0.82, 0.37, 1.77, 1.09, -1.28, 2.36, 1.31, 1.05, -0.32, -0.4, 1.06, -2.47)
	b := sorted(2.2, 1.66, 1.38, 0.2, 0.36, 0.0, 0.96, 1.56, 0.44, 1.5, -0.3, 0.66, 2.31, 3.29, -0.27, -0.37, 0.38, 0.7, 0.52, -0.2)
	d, p := ksTwoSample(a, b, float64(len(a)), float64(len(b)))
	if !near(d, 0.28, 1e-12) || !near(p, 0.3483804915496269, 1e-9) {
		t.Errorf("D %v p %v", d, p)
	}
	if _, p2 := ksTwoSample(a, b, float64(len(a))/3, float64(len(b))/3); !(p2 > p) {
		t.Errorf("smaller effective sizes must raise p: %v ≤ %v", p2, p)
	}
}

// TestHodgesLehmann checks the shift on a hand-computed case and the
// bisection path against enumeration.
func TestHodgesLehmann(t *testing.T) {
	// Differences of (1,2,3) and (2,4): 1,0,-1,3,2,1 → sorted -1,0,1,1,2,3 → median 1.
	if got := hodgesLehmann(sorted(1, 2, 3), sorted(2, 4)); got != 1 {
		t.Errorf("HL = %v, want 1", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, 600), make([]float64, 500)
	for i := range x {
		x[i] = r.ExpFloat64()
	}
	for i := range y {
		y[i] = r.ExpFloat64() + 0.3
	}
	sort.Float64s(x)
	sort.Float64s(y)
	var d []float64
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	sort.Float64s(d)
	want := (d[len(d)/2-1] + d[len(d)/2]) / 2
	if got := hodgesLehmann(x, y); !near(got, want, 1e-9) {
		t.Errorf("HL bisection = %v, enumeration %v", got, want)
	}
}

// TestBenjaminiHochberg checks the adjusted values of the 15 p-values of
// Benjamini & Hochberg (1995), as R's p.adjust(p, "BH") gives them.
func TestBenjaminiHochberg(t *testing.T) {
	p := []float64{0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000}
	want := []float64{0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645, 0.0765, 0.486, 0.5811818181818182, 0.714875, 0.7532307692307693, 0.8132142857142857, 1}
	// Shuffled input and a NaN (not a test) must not change the values.
	perm := []int{14, 3, 7, 0, 11, 5, 9, 1, 13, 2, 6, 10, 4, 12, 8}
	in := []float64{math.NaN()}
	for _, i := range perm {
		in = append(in, p[i])
	}
	q := benjaminiHochberg(in)
	if !math.IsNaN(q[0]) {
		t.Errorf("NaN p-value got q %v", q[0])
	}
	for k, i := range perm {
		if !near(q[k+1], want[i], 1e-12) {
			t.Errorf("q for p=%v: %v, want %v", p[i], q[k+1], want[i])
		}
	}
}

// TestRateTests checks the two-proportion test against
// scipy.stats.chi2_contingency([[12,488],[30,470]], correction=False)
// (χ² = 8.052490307187593, p = 0.004544114777120197) and the conditional
// Poisson test's normal approximation (400 vs 250 events in 300 s each:
// z = −5.883484054145521, p = 4.0171881544453125e-09).
func TestRateTests(t *testing.T) {
	z, p, h := twoProportion(12, 500, 30, 500, 1)
	if !near(z*z, 8.052490307187593, 1e-12) || !near(p, 0.004544114777120197, 1e-9) {
		t.Errorf("two-proportion z² %v p %v", z*z, p)
	}
	if wantH := 2*math.Asin(math.Sqrt(0.06)) - 2*math.Asin(math.Sqrt(0.024)); !near(h, wantH, 1e-12) || h <= 0 {
		t.Errorf("h %v, want %v", h, wantH)
	}
	ratio, z, p := poissonRate(400, 300, 250, 300, 1)
	if !near(ratio, 0.625, 1e-12) || !near(z, -5.883484054145521, 1e-12) || !near(p, 4.0171881544453125e-09, 1e-6) {
		t.Errorf("poisson ratio %v z %v p %v", ratio, z, p)
	}
	if _, z2, _ := poissonRate(400, 300, 250, 300, 4); !near(z2, z/2, 1e-12) {
		t.Errorf("overdispersion 4 must halve z: %v", z2)
	}
}

// TestDesignEffect checks that independent values give deff ≈ 1 and
// values shared within cells give deff ≈ the cell size.
func TestDesignEffect(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const cells, per = 40, 25
	var iid, clustered []float64
	var side []uint8
	var cell []int32
	for c := range cells {
		level := r.NormFloat64()
		for range per {
			iid = append(iid, r.NormFloat64())
			clustered = append(clustered, level+0.01*r.NormFloat64())
			side = append(side, uint8(c%2))
			cell = append(cell, int32(c))
		}
	}
	if d := designEffect(iid, side, cell); d > 1.5 {
		t.Errorf("independent values: deff %v, want ≈ 1", d)
	}
	if d := designEffect(clustered, side, cell); d < 0.9*per || d > per {
		t.Errorf("fully clustered values: deff %v, want ≈ %d", d, per)
	}
	if d := designEffect([]float64{1, 2}, []uint8{0, 1}, []int32{0, 0}); d != 1 {
		t.Errorf("too few values: deff %v, want 1", d)
	}
}

func TestRobustScaleAndQuantile(t *testing.T) {
	if q := measure.QuantileSorted(sorted(1, 2, 3, 4), 0.5); q != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5 (type 7)", q)
	}
	// MAD of 1,2,3,4,100 around 3 is 1 → 1.4826.
	if s := robustScale(sorted(1, 2, 3, 4, 100)); !near(s, 1.4826, 1e-12) {
		t.Errorf("robust scale %v", s)
	}
	// MAD zero, IQR not: 0,0,0,0,0,0,1,1 → IQR 0.25/1.349.
	if s := robustScale(sorted(0, 0, 0, 0, 0, 0, 1, 1)); !near(s, 0.25/1.349, 1e-12) {
		t.Errorf("IQR fallback %v", s)
	}
	if r := lag1([]float64{1, 2, 3, 4, 5, 6, 7, 8}); r < 0.5 {
		t.Errorf("trend lag-1 %v", r)
	}
}

// TestBootQuantile checks the replicate quantile against a brute-force
// weighted quantile (each value repeated by its cell's multiplicity), ties
// included, from both ends.
func TestBootQuantile(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := make([]float64, 3000)
	times := make([]ingest.Time, len(vals))
	for i := range vals {
		vals[i] = math.Round(r.ExpFloat64()*50) / 10 // many ties
		times[i] = ingest.Time(i) * ingest.Time(time.Second)
	}
	d := newDistSide(vals, times, 0, 15*time.Second)
	size := make([]float64, d.k)
	for _, c := range d.cell {
		size[c]++
	}
	w := make([]float64, d.k)
	for trial := range 100 {
		clear(w)
		for range d.k {
			w[r.IntN(d.k)]++
		}
		total := 0.0
		var expanded []float64
		for i, v := range d.v {
			for range int(w[d.cell[i]]) {
				expanded = append(expanded, v)
			}
		}
		for c, m := range w {
			total += m * size[c]
		}
		for _, q := range []float64{0.01, 0.5, 0.9, 0.99} {
			// The smallest value whose cumulative count reaches q of the total.
			want := expanded[max(0, int(math.Ceil(q*float64(len(expanded))))-1)]
			if got := d.weightedQuantile(w, total, q); got != want {
				t.Fatalf("trial %d q %v: %v, brute force %v", trial, q, got, want)
			}
		}
	}
}

// TestHodgesLehmannThinned bounds the error of thinning large samples: the
// shift of 20,000 vs 20,000 values against the exact median of all 4·10⁸
// differences (found by bisection with countLE).
func TestHodgesLehmannThinned(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	x, y := make([]float64, 20000), make([]float64, 20000)
	for i := range x {
		x[i], y[i] = r.ExpFloat64(), r.ExpFloat64()*1.3+0.2
	}
	sort.Float64s(x)
	sort.Float64s(y)
	k := len(x) * len(y) / 2 // the lower middle; the upper is within the bisection precision
	lo, hi := y[0]-x[len(x)-1], y[len(y)-1]-x[0]
	for range 100 {
		mid := lo + (hi-lo)/2
		if countLE(x, y, mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	got := hodgesLehmann(x, y)
	if math.Abs(got-hi) > 0.002 {
		t.Errorf("thinned HL %v, exact %v", got, hi)
	}
}
