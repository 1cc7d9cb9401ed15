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
	if len(xs) < floatMin {
		slices.Sort(xs)
		return
	}
	keys := make([]uint32, 2*len(xs))
	keys, scratch := keys[:len(xs)], keys[len(xs):]
	for i, x := range xs {
		if x != x { // NaN: slices.Sort's order for it
			slices.Sort(xs)
			return
		}
		b := math.Float32bits(x)
		if b>>31 != 0 {
			b = ^b
		} else {
			b |= 1 << 31
		}
		keys[i] = b
	}
	sortKeys(keys, scratch, 32)
	for i, b := range keys {
		if b>>31 != 0 {
			b &^= 1 << 31
		} else {
			b = ^b
		}
		xs[i] = math.Float32frombits(b)
	}
}

// Float64s is Float32s for float64 values (sort.Float64s's order).
func Float64s(xs []float64) {
	if len(xs) < floatMin {
		slices.Sort(xs)
		return
	}
	keys := make([]uint64, 2*len(xs))
	keys, scratch := keys[:len(xs)], keys[len(xs):]
	for i, x := range xs {
		if x != x {
			slices.Sort(xs)
			return
		}
		b := math.Float64bits(x)
		if b>>63 != 0 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	sortKeys(keys, scratch, 64)
	for i, b := range keys {
		if b>>63 != 0 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		xs[i] = math.Float64frombits(b)
	}
}

// sortKeys sorts keys (width bits) by LSD radix in 11-bit digits, skipping
// a pass whose digit is the same throughout; scratch is as long as keys.
func sortKeys[K uint32 | uint64](keys, scratch []K, width int) {
	const digit = 11
	const mask = 1<<digit - 1
	var count [1 << digit]int
	src, dst := keys, scratch
	for shift := 0; shift < width; shift += digit {
		clear(count[:])
		for _, k := range src {
			count[k>>shift&mask]++
		}
		if count[src[0]>>shift&mask] == len(src) {
			continue
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for _, k := range src {
			d := k >> shift & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
