package measure

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
