package radix

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortMatchesStableSort: for keys of every width (few distinct values,
// wide ranges, all equal) and digit sizes, Sort gives slices.SortStableFunc's
// order, ties in their original order.
func TestSortMatchesStableSort(t *testing.T) {
	type kv struct {
		k   uint64
		pos int
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		for _, width := range []int{1, 7, 11, 33, 64} {
			for _, digit := range []int{8, 11} {
				xs := make([]kv, n)
				for i := range xs {
					k := r.Uint64()
					if width < 64 {
						k &= 1<<width - 1
					}
					if i%3 == 0 && i > 0 {
						k = xs[i-1].k // ties
					}
					xs[i] = kv{k, i}
				}
				want := slices.Clone(xs)
				slices.SortStableFunc(want, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
				var scratch []kv
				if n%2 == 0 {
					scratch = make([]kv, n)
				}
				Sort(xs, scratch, func(x *kv) uint64 { return x.k }, width, digit)
				if !slices.Equal(xs, want) {
					t.Fatalf("n %d width %d digit %d: order differs from the stable sort", n, width, digit)
				}
			}
		}
	}
}

// TestFloatsMatchSlicesSort: Float32s and Float64s give slices.Sort's
// order on short and long slices of positive, negative, tied, extreme and
// infinite values, and on slices holding a NaN (the comparison sort's
// order for it).
func TestFloatsMatchSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gens := []func() float64{
		func() float64 { return r.ExpFloat64() },                           // latencies
		func() float64 { return r.NormFloat64() * 1e3 },                    // both signs
		func() float64 { return float64(r.IntN(5)) },                       // ties
		func() float64 { return math.Ldexp(r.Float64(), r.IntN(600)-300) }, // wide exponents
		func() float64 {
			return []float64{math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1}[r.IntN(6)]
		},
	}
	for _, n := range []int{0, 1, 7, floatMin - 1, floatMin, 5000} {
		for g, gen := range gens {
			for _, nan := range []bool{false, true} {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = gen()
				}
				if nan && n > 0 {
					xs[n/2] = math.NaN()
				}
				ys := make([]float32, n)
				for i, x := range xs {
					ys[i] = float32(x)
				}
				want64, want32 := slices.Clone(xs), slices.Clone(ys)
				slices.Sort(want64)
				slices.Sort(want32)
				Float64s(xs)
				Float32s(ys)
				same64 := slices.EqualFunc(xs, want64, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
				same32 := slices.EqualFunc(ys, want32, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) })
				if !same64 || !same32 {
					t.Fatalf("n %d, generator %d, NaN %v: float64 same %v, float32 same %v", n, g, nan, same64, same32)
				}
			}
		}
	}
}

func BenchmarkFloat32s(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	src := make([]float32, 5000)
	for i := range src {
		src[i] = float32(r.ExpFloat64())
	}
	xs := make([]float32, len(src))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(xs, src)
			Float32s(xs)
		}
	})
	b.Run("slices.Sort", func(b *testing.B) {
		for b.Loop() {
			copy(xs, src)
			slices.Sort(xs)
		}
	})
}
