package radix

import (
	"cmp"
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
