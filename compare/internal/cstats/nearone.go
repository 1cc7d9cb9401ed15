package cstats

import (
	"iter"
	"math"
)

// NearOne reports whether samples all lie in [0, 1] with some above ½: a
// ratio that should stay near 1 (canary mode applies the same rule,
// NearOneValues, to series).
func NearOne(sets ...[]float64) bool {
	return NearOneValues(func(yield func(float64) bool) {
		for _, xs := range sets {
			for _, v := range xs {
				if !yield(v) {
					return
				}
			}
		}
	})
}

// NearOneValues is the rule of "a ratio that should stay near 1": every
// value (NaN skipped) in [0, 1], some above ½.
func NearOneValues(values iter.Seq[float64]) bool {
	high := false
	for v := range values {
		if math.IsNaN(v) {
			continue
		}
		if v < 0 || v > 1 {
			return false
		}
		high = high || v > 0.5
	}
	return high
}
