package features

import "math"

// The operation mix's shares and deviation, shared by the features stage
// (the operation-mix series) and the log series (the template mix).

// mixShares turns a mix's reference counts into shares, in place, with half
// a count added to each column (no zero expectations).
func mixShares(ref []float64) {
	all := 0.0
	for _, x := range ref {
		all += x
	}
	for j := range ref {
		ref[j] = (ref[j] + 0.5) / (all + 0.5*float64(len(ref)))
	}
}

// mixDeviate is the chi-square statistic of one cell's counts row (n in
// all) against the reference shares ref (len(ref) − 1 degrees of freedom),
// as a standard normal deviate (Wilson–Hilferty: (X²/df)^(1/3) is about
// normal).
func mixDeviate[C int32 | float64](row []C, n float64, ref []float64) float64 {
	chi := 0.0
	for j, x := range row {
		e := n * ref[j]
		d := float64(x) - e
		chi += d * d / e
	}
	df := float64(len(ref) - 1)
	return (math.Cbrt(chi/df) - (1 - 2/(9*df))) / math.Sqrt(2/(9*df))
}
