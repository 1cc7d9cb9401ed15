package causal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refHuberRidge is the dense implementation the fit had before it skipped
// zeros and reused its buffers: the reference huberRidge must match to the
// bit.
func refHuberRidge(xs [][]float64, ys []float64, ridge, huber float64) []float64 {
	k := len(xs[0])
	w := make([]float64, len(ys))
	for r := range w {
		w[r] = 1
	}
	beta := make([]float64, k)
	a := make([][]float64, k)
	for j := range a {
		a[j] = make([]float64, k+1)
	}
	for it := 0; it < 20; it++ {
		for j := range a {
			for c := range a[j] {
				a[j][c] = 0
			}
			a[j][j] = ridge
		}
		for r, row := range xs {
			for j := 0; j < k; j++ {
				a[j][k] += w[r] * row[j] * ys[r]
				for c := j; c < k; c++ {
					a[j][c] += w[r] * row[j] * row[c]
				}
			}
		}
		for j := 0; j < k; j++ {
			for c := 0; c < j; c++ {
				a[j][c] = a[c][j]
			}
		}
		nb := refSolve(a)
		moved := 0.0
		for j := range nb {
			moved = math.Max(moved, math.Abs(nb[j]-beta[j]))
		}
		beta = nb
		res := make([]float64, len(ys))
		for r, row := range xs {
			p := 0.0
			for j := range row {
				p += beta[j] * row[j]
			}
			res[r] = ys[r] - p
		}
		_, mad := medianMAD(res)
		s := math.Max(1.4826*mad, 1e-6) * huber
		for r := range w {
			if e := math.Abs(res[r]); e > s {
				w[r] = s / e
			} else {
				w[r] = 1
			}
		}
		if moved < 1e-6 {
			break
		}
	}
	for j, b := range beta {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			beta[j] = 0
		}
	}
	return beta
}

func refSolve(a [][]float64) []float64 {
	k := len(a)
	m := make([][]float64, k)
	for i := range a {
		m[i] = append([]float64(nil), a[i]...)
	}
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if math.Abs(m[c][c]) < 1e-12 {
			continue
		}
		for r := c + 1; r < k; r++ {
			f := m[r][c] / m[c][c]
			for j := c; j <= k; j++ {
				m[r][j] -= f * m[c][j]
			}
		}
	}
	x := make([]float64, k)
	for r := k - 1; r >= 0; r-- {
		if math.Abs(m[r][r]) < 1e-12 {
			continue
		}
		s := m[r][k]
		for j := r + 1; j < k; j++ {
			s -= m[r][j] * x[j]
		}
		x[r] = s / m[r][r]
	}
	return x
}

// design returns an n×k design (sparse: zero columns, zero cells, a
// constant column, outliers) and a response, as the fit sees them.
func design(r *rand.Rand, n, k int) ([][]float64, []float64) {
	xs := make([][]float64, n)
	ys := make([]float64, n)
	zeroCol := map[int]bool{}
	for j := 0; j < k; j++ {
		zeroCol[j] = r.IntN(4) == 0
	}
	for t := range xs {
		row := make([]float64, k)
		for j := range row {
			switch {
			case zeroCol[j] || r.IntN(5) == 0:
			case j == 1:
				row[j] = 1
			default:
				row[j] = r.NormFloat64()
			}
		}
		xs[t] = row
		ys[t] = 0.5*row[0] - 0.3*row[k-1] + 0.2*r.NormFloat64()
		if r.IntN(15) == 0 {
			ys[t] += 20 // an outlier the Huber loss down-weights
		}
	}
	return xs, ys
}

func flat(xs [][]float64) []float64 {
	var out []float64
	for _, row := range xs {
		out = append(out, row...)
	}
	return out
}

// TestHuberRidgeMatchesDense checks the fit against the dense reference to
// the bit wherever the primal is used (k ≤ n, or k below DualMinParents),
// reusing one scratch space across fits of different shapes.
func TestHuberRidgeMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	ws := &ridgeWork{}
	for trial := 0; trial < 300; trial++ {
		n := 3 + r.IntN(80)
		k := 1 + r.IntN(60)
		xs, ys := design(r, n, k)
		want := refHuberRidge(xs, ys, 1, 1.5)
		got := make([]float64, k)
		huberRidge(flat(xs), ys, k, 1, 1.5, got, ws)
		for j := range want {
			if math.Float64bits(want[j]) != math.Float64bits(got[j]) && !(want[j] == 0 && got[j] == 0) {
				t.Fatalf("trial %d (n=%d k=%d): β[%d] = %v, dense reference %v", trial, n, k, j, got[j], want[j])
			}
		}
	}
}

// TestHuberRidgeDual checks that the dual fit (k > n, k ≥ DualMinParents)
// finds the primal's minimiser, up to rounding.
func TestHuberRidgeDual(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 19))
	ws := &ridgeWork{}
	for trial := 0; trial < 6; trial++ {
		n := 20 + r.IntN(60)
		k := DualMinParents + r.IntN(150)
		xs, ys := design(r, n, k)
		want := refHuberRidge(xs, ys, 1, 1.5)
		got := make([]float64, k)
		huberRidge(flat(xs), ys, k, 1, 1.5, got, ws)
		for j := range want {
			if d := math.Abs(want[j] - got[j]); d > 1e-8*math.Max(1, math.Abs(want[j])) {
				t.Fatalf("trial %d (n=%d k=%d): β[%d] = %v, primal %v", trial, n, k, j, got[j], want[j])
			}
		}
	}
}
