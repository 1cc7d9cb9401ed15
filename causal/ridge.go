package causal

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// The robust ridge regressions that fit each node's mechanism on the
// baseline (fitNode): Huber-weighted ridge in the primal and, for nodes
// with more parents than cells, in the dual, with their shared scratch.

// ridgeWork is one goroutine's scratch space for fitNode and huberRidge
// (grown as needed, never shrunk).
type ridgeWork struct {
	ts          []int
	x, y        []float64 // design matrix (rows × k, row-major) and response
	w, res, dev []float64
	a, m, nb    []float64 // normal equations k × (k+1), their elimination copy, the solution
	perm        []int
	nz          []int // per row, the columns that are not zero
	nzOff       []int
	kk, sq, nb2 []float64 // the dual's XXᵀ, √w and β
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// medianMADWork is measure.MedianMAD with ws.dev as its scratch (xs is
// kept).
func medianMADWork(xs []float64, ws *ridgeWork) (med, mad float64) {
	ws.dev = grow(ws.dev, len(xs))
	return measure.MedianMAD(xs, ws.dev)
}

// huberRidge solves min Σ huber(y − xβ) + ridge·|β|² by iteratively
// reweighted least squares (weights 1 inside huber·scale, huber·scale/|r|
// outside, scale re-estimated by MAD each round), 20 rounds at most, and
// writes β into beta (len k, zero on entry). x is the n × k design matrix,
// row-major. Zero entries of x are skipped: every sum has the same
// non-zero terms in the same order as the dense computation (a zero term
// adds ±0 to a sum that is never −0), so β is the same to the bit.
// O(rounds · (Σ_rows nz² + k³)), nz the row's non-zero entries.
func huberRidge(x, y []float64, k int, ridge, huber float64, beta []float64, ws *ridgeWork) {
	n := len(y)
	w := grow(ws.w, n)
	ws.w = w
	for r := range w {
		w[r] = 1
	}
	if k > n && k >= DualMinParents {
		huberRidgeDual(x, y, k, ridge, huber, beta, ws)
		return
	}
	nzOff := grow(ws.nzOff, n+1)
	ws.nzOff = nzOff
	nz := ws.nz[:0]
	for r := 0; r < n; r++ {
		nzOff[r] = len(nz)
		for j, v := range x[r*k : (r+1)*k] {
			if v != 0 {
				nz = append(nz, j)
			}
		}
	}
	nzOff[n] = len(nz)
	ws.nz = nz
	k1 := k + 1
	a := grow(ws.a, k*k1)
	ws.a = a
	res := grow(ws.res, n)
	ws.res = res
	nb := grow(ws.nb, k)
	ws.nb = nb
	for it := 0; it < 20; it++ {
		clear(a)
		for j := 0; j < k; j++ {
			a[j*k1+j] = ridge
		}
		for r := 0; r < n; r++ {
			wr, yr := w[r], y[r]
			row := x[r*k : (r+1)*k]
			idx := nz[nzOff[r]:nzOff[r+1]]
			dense := len(idx) == k
			for q, j := range idx {
				wj := wr * row[j]
				aj := a[j*k1 : (j+1)*k1]
				aj[k] += wj * yr
				if dense {
					rs, as := row[j:k], aj[j:k]
					for c := range rs {
						as[c] += wj * rs[c]
					}
				} else {
					for _, c := range idx[q:] {
						aj[c] += wj * row[c]
					}
				}
			}
		}
		for j := 0; j < k; j++ {
			for c := 0; c < j; c++ {
				a[j*k1+c] = a[c*k1+j]
			}
		}
		solveSPD(a, k, nb, ws)
		moved := 0.0
		finite := true
		for j := range nb {
			moved = math.Max(moved, math.Abs(nb[j]-beta[j]))
			finite = finite && !math.IsNaN(nb[j]) && !math.IsInf(nb[j], 0)
		}
		copy(beta, nb)
		for r := 0; r < n; r++ {
			row := x[r*k : (r+1)*k]
			p := 0.0
			if finite { // a zero entry adds ±0: skip it
				for _, j := range nz[nzOff[r]:nzOff[r+1]] {
					p += beta[j] * row[j]
				}
			} else { // 0·±Inf and 0·NaN are NaN: the dense sum
				for j := range row {
					p += beta[j] * row[j]
				}
			}
			res[r] = y[r] - p
		}
		_, mad := medianMADWork(res, ws)
		s := math.Max(measure.MADToSigma*mad, 1e-6) * huber
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
}

// DualMinParents is the in-degree from which a node with more parents
// than baseline cells is fitted in the dual (huberRidgeDual): there the
// k×k normal equations cost k³ per round against n³ + n·k for the n×n
// dual system. Below it the primal is kept (no development case has so
// many parents, so their fits are the primal's to the bit).
const DualMinParents = 128

// huberRidgeDual is huberRidge for k > n, through the push-through
// identity: with W the weights, D = W^½ and K = XXᵀ (n×n, formed once),
// (XᵀWX + λI)β = XᵀWy has the solution β = XᵀDγ for
// (DKD + λI)γ = Dy. The minimiser is the same; its rounding differs
// from the primal's. O(n²·k + rounds·(n³ + n·k)).
func huberRidgeDual(x, y []float64, k int, ridge, huber float64, beta []float64, ws *ridgeWork) {
	n := len(y)
	w := ws.w[:n]
	n1 := n + 1
	kk := grow(ws.kk, n*n)
	ws.kk = kk
	for r := 0; r < n; r++ {
		xr := x[r*k : (r+1)*k]
		for s := r; s < n; s++ {
			xs := x[s*k : (s+1)*k]
			d := 0.0
			for j := range xr {
				d += xr[j] * xs[j]
			}
			kk[r*n+s], kk[s*n+r] = d, d
		}
	}
	a := grow(ws.a, n*n1)
	ws.a = a
	g := grow(ws.nb, n)
	ws.nb = g
	res := grow(ws.res, n)
	ws.res = res
	sq := grow(ws.sq, n)
	ws.sq = sq
	nb := grow(ws.nb2, k)
	ws.nb2 = nb
	for it := 0; it < 20; it++ {
		for r := range sq {
			sq[r] = math.Sqrt(w[r])
		}
		for r := 0; r < n; r++ {
			row := a[r*n1 : (r+1)*n1]
			for s := 0; s < n; s++ {
				row[s] = sq[r] * kk[r*n+s] * sq[s]
			}
			row[r] += ridge
			row[n] = sq[r] * y[r]
		}
		solveSPD(a, n, g, ws)
		clear(nb)
		for r := 0; r < n; r++ {
			c := sq[r] * g[r]
			if c == 0 {
				continue
			}
			for j, v := range x[r*k : (r+1)*k] {
				nb[j] += v * c
			}
		}
		moved := 0.0
		for j := range nb {
			moved = math.Max(moved, math.Abs(nb[j]-beta[j]))
		}
		copy(beta, nb)
		for r := 0; r < n; r++ {
			p := 0.0
			for j, v := range x[r*k : (r+1)*k] {
				p += beta[j] * v
			}
			res[r] = y[r] - p
		}
		_, mad := medianMADWork(res, ws)
		s := math.Max(measure.MADToSigma*mad, 1e-6) * huber
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
}

// solveSPD solves the k×(k+1) augmented symmetric positive-definite system
// a (row-major, left as it is) into x by Gaussian elimination with partial
// pivoting (k is a node's parents). Rows are swapped by index; a row whose
// multiplier is zero, and the eliminated column itself (never read again),
// are skipped: neither changes a value (the matrix never holds −0).
// O(k³).
func solveSPD(a []float64, k int, x []float64, ws *ridgeWork) {
	k1 := k + 1
	m := grow(ws.m, k*k1)
	ws.m = m
	copy(m, a)
	perm := grow(ws.perm, k)
	ws.perm = perm
	for i := range perm {
		perm[i] = i * k1
	}
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[perm[r]+c]) > math.Abs(m[perm[p]+c]) {
				p = r
			}
		}
		perm[c], perm[p] = perm[p], perm[c]
		pc := m[perm[c] : perm[c]+k1]
		if math.Abs(pc[c]) < 1e-12 {
			continue
		}
		src := pc[c+1:]
		for r := c + 1; r < k; r++ {
			rr := m[perm[r] : perm[r]+k1]
			f := rr[c] / pc[c]
			if f == 0 {
				continue
			}
			dst := rr[c+1:]
			dst = dst[:len(src)]
			for j := range src {
				dst[j] -= f * src[j]
			}
		}
	}
	for r := k - 1; r >= 0; r-- {
		rr := m[perm[r] : perm[r]+k1]
		x[r] = 0
		if math.Abs(rr[r]) < 1e-12 {
			continue
		}
		s := rr[k]
		for j := r + 1; j < k; j++ {
			s -= rr[j] * x[j]
		}
		x[r] = s / rr[r]
	}
}
