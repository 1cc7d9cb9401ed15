package radix

import (
	"math"
	"slices"
)

// floatMin is the shortest slice Float32s and Float64s sort by radix:
// below it the comparison sort is as fast and allocates nothing.
const floatMin = 512

// Float32s sorts xs in increasing order, the order slices.Sort gives:
// by radix over the values' order-preserving bit patterns from floatMin
// values, by slices.Sort below that or when a NaN is present. The one
// difference is between equal values of different bits (-0 and +0),
// whose order slices.Sort leaves unspecified: here -0 comes first.
func Float32s(xs []float32) {
	sortFloats(xs, 32, func(x float32) uint64 { return uint64(math.Float32bits(x)) },
		func(b uint64) float32 { return math.Float32frombits(uint32(b)) })
}

// Float64s is Float32s for float64 values (sort.Float64s's order).
func Float64s(xs []float64) {
	sortFloats(xs, 64, math.Float64bits, math.Float64frombits)
}

// sortFloats is Float32s and Float64s: each value's IEEE bits (width of
// them) made order-preserving (a negative value's bits inverted, a
// positive value's sign bit set), sorted by Sort, and turned back.
func sortFloats[F float32 | float64](xs []F, width int, bits func(F) uint64, value func(uint64) F) {
	if len(xs) < floatMin {
		slices.Sort(xs)
		return
	}
	sign := uint64(1) << (width - 1)
	all := uint64(1)<<(width-1) | (uint64(1)<<(width-1) - 1) // width ones
	keys := make([]uint64, 2*len(xs))
	keys, scratch := keys[:len(xs)], keys[len(xs):]
	for i, x := range xs {
		if x != x { // NaN: slices.Sort's order for it
			slices.Sort(xs)
			return
		}
		b := bits(x)
		if b&sign != 0 {
			b ^= all
		} else {
			b |= sign
		}
		keys[i] = b
	}
	Sort(keys, scratch, func(k *uint64) uint64 { return *k }, width, 11)
	for i, b := range keys {
		if b&sign != 0 {
			b &^= sign
		} else {
			b ^= all
		}
		xs[i] = value(b)
	}
}
