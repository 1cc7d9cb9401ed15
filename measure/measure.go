package measure

import "math"

// Constant reports whether every element of xs equals the first (true for
// an empty or one-element slice). A correlation of a constant series is
// NaN: callers test this first.
func Constant(xs []float64) bool {
	for _, x := range xs[min(1, len(xs)):] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// MADToSigma scales a median absolute deviation to the standard deviation
// of a normal sample: 1/Φ⁻¹(3/4).
const MADToSigma = 1.4826

// MedianMAD returns the median of xs (R type 7) and the median absolute
// deviation from it, unscaled (multiply by MADToSigma for a robust σ),
// leaving xs as it is; NaN for both when xs is empty. scratch, when it
// holds at least len(xs) elements, is overwritten instead of allocating.
// Both values are those of sorting and interpolating, bit for bit. O(n)
// expected.
func MedianMAD(xs, scratch []float64) (med, mad float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	dev := scratch
	if len(dev) < len(xs) {
		dev = make([]float64, len(xs))
	}
	dev = dev[:len(xs)]
	copy(dev, xs)
	med = QuantileInPlace(dev, 0.5)
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	return med, QuantileInPlace(dev, 0.5)
}
