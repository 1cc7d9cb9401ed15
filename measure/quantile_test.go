package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// sortedQuantile is the reference: sort a copy, interpolate.
func sortedQuantile(xs []float64, q float64) float64 {
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	h := q * float64(len(c)-1)
	lo := int(math.Floor(h))
	if lo >= len(c)-1 {
		return c[len(c)-1]
	}
	return c[lo] + (h-float64(lo))*(c[lo+1]-c[lo])
}

// TestQuantileSelectMatchesSort checks that selection gives the sorted
// formula's value bit for bit (zeros of either sign count as one value:
// a sort orders them arbitrarily too) on random data with ties, NaN and
// infinities, at every size up to 300 and at large sizes.
func TestQuantileSelectMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	qs := []float64{0, 0.05, 0.25, 0.5, 0.75, 0.9, 0.99, 1}
	gen := []func() float64{
		func() float64 { return r.NormFloat64() },
		func() float64 { return float64(r.IntN(5)) }, // many ties
		func() float64 {
			switch r.IntN(10) {
			case 0:
				return math.NaN()
			case 1:
				return math.Inf(1)
			case 2:
				return math.Inf(-1)
			case 3:
				return math.Copysign(0, -1)
			case 4:
				return 0
			}
			return r.ExpFloat64()
		},
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || a == 0 && b == 0 || math.IsNaN(a) && math.IsNaN(b)
	}
	sizes := []int{5000, 100_000}
	for n := 1; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for gi, g := range gen {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = g()
			}
			if gi == 0 && n > 20 { // sorted and reversed inputs
				if n%2 == 0 {
					sort.Float64s(xs)
				} else {
					sort.Sort(sort.Reverse(sort.Float64Slice(xs)))
				}
			}
			orig := append([]float64(nil), xs...)
			for _, q := range qs {
				want, got := sortedQuantile(xs, q), Quantile(xs, q)
				if !same(want, got) {
					t.Fatalf("n=%d gen=%d q=%v: Quantile = %v, sorted = %v", n, gi, q, got, want)
				}
				c := append([]float64(nil), xs...)
				if got := QuantileInPlace(c, q); !same(want, got) {
					t.Fatalf("n=%d gen=%d q=%v: QuantileInPlace = %v, sorted = %v", n, gi, q, got, want)
				}
			}
			for i := range xs {
				if !same(xs[i], orig[i]) {
					t.Fatalf("n=%d: Quantile changed its input", n)
				}
			}
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Errorf("Quantile(nil) is not NaN")
	}
}

func BenchmarkQuantile(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{45, 180, 10_000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64()
		}
		b.Run("select/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				Quantile(xs, 0.5)
			}
		})
		b.Run("sort/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				sortedQuantile(xs, 0.5)
			}
		})
	}
}

// TestMedianMAD checks MedianMAD against sorting and interpolating, that
// xs is kept, and that scratch is used when long enough.
func TestMedianMAD(t *testing.T) {
	xs := []float64{5, 1, 9, 3, 3, 7, 100, 2}
	keep := slices.Clone(xs)
	med, mad := MedianMAD(xs, nil)
	s := slices.Clone(xs)
	slices.Sort(s)
	wantMed := QuantileSorted(s, 0.5)
	dev := make([]float64, len(s))
	for i, x := range s {
		dev[i] = math.Abs(x - wantMed)
	}
	slices.Sort(dev)
	if wantMAD := QuantileSorted(dev, 0.5); med != wantMed || mad != wantMAD {
		t.Errorf("MedianMAD = %v, %v; want %v, %v", med, mad, wantMed, wantMAD)
	}
	if med != 4 || mad != 2.5 {
		t.Errorf("MedianMAD = %v, %v; want 4, 2.5", med, mad)
	}
	if !slices.Equal(xs, keep) {
		t.Errorf("xs changed to %v", xs)
	}
	scratch := make([]float64, 16)
	if m2, d2 := MedianMAD(xs, scratch); m2 != med || d2 != mad || scratch[0] == 0 && scratch[1] == 0 {
		t.Errorf("with scratch: %v, %v (scratch %v)", m2, d2, scratch)
	}
	if m, d := MedianMAD(nil, nil); !math.IsNaN(m) || !math.IsNaN(d) {
		t.Errorf("empty: %v, %v; want NaN", m, d)
	}
}
