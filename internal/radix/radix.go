// Package radix sorts by unsigned integer keys: a least-significant-digit
// radix sort, stable, with no comparator call per step. The readers sort a
// quarter of a million spans a file by start, and the request-shape map
// sorts each metric's values once; both call Sort. Float32s and Float64s
// sort plain values for quantiles (the trace series' per-cell latencies,
// the graph's tail tests) in slices.Sort's order.
package radix

// Sort orders xs by key, stably (elements of one key keep their order):
// an LSD radix sort of the keys' low width bits, digit bits a pass. A pass
// whose digit is the same for every element is skipped, as it would move
// none. scratch, when at least as long as xs, is used as the other buffer
// (and overwritten); else one is made. digit is at most 16.
func Sort[T any](xs, scratch []T, key func(*T) uint64, width, digit int) {
	if len(xs) < 2 {
		return
	}
	if len(scratch) < len(xs) {
		scratch = make([]T, len(xs))
	}
	mask := uint64(1)<<digit - 1
	count := make([]int, 1<<digit)
	src, dst := xs, scratch[:len(xs)]
	for shift := 0; shift < width; shift += digit {
		clear(count)
		for i := range src {
			count[key(&src[i])>>shift&mask]++
		}
		if count[key(&src[0])>>shift&mask] == len(src) {
			continue // one digit throughout: the order stands
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for i := range src {
			d := key(&src[i]) >> shift & mask
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
}
