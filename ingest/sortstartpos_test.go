package ingest

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortStartPos checks the radix sort of (start, position) keys against
// the comparison sort: many ties, negative starts, starts spanning the
// whole int64 range, and sizes on both sides of radixMin.
func TestSortStartPos(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	gens := []func() Time{
		func() Time { return Time(r.IntN(50)) },                                   // ties
		func() Time { return Time(1796004120000000000 + r.Int64N(3600e9)) },       // an hour of nanoseconds
		func() Time { return Time(r.Int64N(1e12) - 5e11) },                        // negative too
		func() Time { return Time(r.Uint64()) },                                   // any int64
		func() Time { return []Time{math.MinInt64, math.MaxInt64, 0}[r.IntN(3)] }, // the extremes
	}
	for _, n := range []int{0, 1, 5, radixMin - 1, radixMin, 10000} {
		for g, gen := range gens {
			keys := make([]startPos, n)
			for i := range keys {
				keys[i] = startPos{gen(), int32(i)}
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, func(x, y startPos) int {
				return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.pos, y.pos))
			})
			sortStartPos(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("n %d, generator %d: radix order differs from the comparison sort", n, g)
			}
		}
	}
}

// TestSortSortKeys checks sortSortKeys against the comparison sort on
// keys of distinct IDs with many equal starts, on both sides of radixMin.
func TestSortSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 50, radixMin - 1, radixMin, 20000} {
		keys := make([]spanSortKey, n)
		for i := range keys {
			keys[i] = spanSortKey{start: Time(r.IntN(max(1, n/4))) * 1000, hi: uint64(r.IntN(3)), lo: r.Uint64(), id: SpanID(r.Uint64()), idx: int32(i)}
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, compareSortKeys)
		sortSortKeys(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("n %d: order differs from the comparison sort", n)
		}
	}
}

// TestSortNearlySorted checks sortNearlySorted against the comparison sort:
// keys shifted a little from sorted order (the clock-skew case, insertion
// sort throughout), shifted far (past the budget: the fallback mid-way),
// reversed, and random.
func TestSortNearlySorted(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 2, 50, 5000, 40000} {
		for _, spread := range []int64{0, 3, 50, 1 << 40} {
			for _, reversed := range []bool{false, true} {
				keys := make([]spanSortKey, n)
				for i := range keys {
					start := Time(int64(i) * 10)
					if spread > 0 {
						start += Time(r.Int64N(spread))
					}
					if reversed {
						start = Time(int64(n-i) * 10)
					}
					keys[i] = spanSortKey{start: start, hi: uint64(r.IntN(2)), lo: r.Uint64(), id: SpanID(r.Uint64()), idx: int32(i)}
				}
				want := slices.Clone(keys)
				slices.SortFunc(want, compareSortKeys)
				sortNearlySorted(keys)
				if !slices.Equal(keys, want) {
					t.Fatalf("n %d, spread %d, reversed %v: order differs from the comparison sort", n, spread, reversed)
				}
			}
		}
	}
}
