package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBootQuantileMatchesResampling: the O(1) replicate has the
// distribution of the quantile of a real resample. For samples of 5, 40
// and 400 values and q of 0.5, 0.95 and 0.99, the 5th, 50th and 95th
// percentiles of 20,000 replicates of each kind agree within a small
// share of the sample's range.
func TestBootQuantileMatchesResampling(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{5, 40, 400} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Exp(r.NormFloat64())
		}
		slices.Sort(xs)
		for _, q := range []float64{0.5, 0.95, 0.99} {
			const B = 20000
			fast, slow := make([]float64, B), make([]float64, B)
			buf := make([]float64, n)
			for b := range B {
				fast[b] = BootQuantile(xs, q, r)
				for i := range buf {
					buf[i] = xs[r.IntN(n)]
				}
				slow[b] = Quantile(buf, q)
			}
			slices.Sort(fast)
			slices.Sort(slow)
			span := xs[n-1] - xs[0]
			for _, p := range []float64{0.05, 0.5, 0.95} {
				f, s := QuantileSorted(fast, p), QuantileSorted(slow, p)
				if math.Abs(f-s) > 0.02*span {
					t.Errorf("n=%d q=%.2f: replicate p%.0f %.4f, resampling %.4f (range %.3f)", n, q, 100*p, f, s, span)
				}
			}
		}
	}
}

// TestBootQuantileEdges: one value, an empty sample, and replicates that
// stay within the sample.
func TestBootQuantileEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	if v := BootQuantile(nil, 0.5, r); !math.IsNaN(v) {
		t.Errorf("empty: %v", v)
	}
	if v := BootQuantile([]float64{7}, 0.99, r); v != 7 {
		t.Errorf("one value: %v", v)
	}
	xs := []float64{1, 2, 3}
	for range 1000 {
		for _, q := range []float64{0, 0.3, 1} {
			if v := BootQuantile(xs, q, r); v < 1 || v > 3 {
				t.Fatalf("q=%v: %v outside the sample", q, v)
			}
		}
	}
	lo, hi := PercentileInterval([]float64{math.NaN(), 3, 1, 2}, 0.5)
	if lo != 1.5 || hi != 2.5 {
		t.Errorf("interval [%v, %v], want [1.5, 2.5]", lo, hi)
	}
}
