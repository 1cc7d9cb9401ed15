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

// RelativeFloor floors a robust spread that has one of its own at this
// share of the baseline's median: a series whose usual jitter is a
// fraction of a percent of its level does not turn a 10% move into 30 σ.
const RelativeFloor = 0.05

// FlatRelativeFloor floors the spread of a flat baseline (MAD and IQR
// zero: most samples exactly equal, like a success ratio of 1.000 or a
// clock pinned at its maximum) at this share of its median. Such a series
// is measured without noise: its departure is a certain change, scored by
// its size against the baseline's own resolution (FlatSpread), never
// against the 5% floor that would make a success ratio falling from 1.000
// to 0.96 read under 1 σ.
const FlatRelativeFloor = 1e-3

// RobustSpread returns a baseline's spread in σ units from its median
// med, MAD (unscaled) and IQR: max(MADToSigma·MAD, IQR/1.349) floored at
// RelativeFloor·|med| — unless both are zero (a flat baseline), when it is
// FlatSpread. xs are the baseline's samples (NaN skipped).
func RobustSpread(xs []float64, med, mad, iqr float64) float64 {
	spread := math.Max(MADToSigma*mad, iqr/1.349)
	if spread > 0 {
		return math.Max(spread, RelativeFloor*math.Abs(med))
	}
	return FlatSpread(xs, med)
}

// FlatSpread is the spread of a flat baseline: the mean absolute
// deviation of its samples from the median (its few departures, if any,
// set its resolution), floored at FlatRelativeFloor·|med|. 0 for a baseline
// that is exactly constant at 0 (the caller's own floor applies). O(n).
func FlatSpread(xs []float64, med float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += math.Abs(x - med)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Max(sum/float64(n), FlatRelativeFloor*math.Abs(med))
}
