package causal

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/mat"
)

// scm is a linear structural causal model over the graph's nodes in
// standardised units: z_n(t) = Σ_p β_np · z_p(t − lag_np) + u_n(t), where
// z = ±(x − baseline median) / baseline scale, signed so that larger is
// worse (a clock drop is positive). Coefficients are fitted by non-negative
// ridge least squares; a node without usable parents is pure noise (u = z).
type scm struct {
	g     *tcg.Graph
	z     [][]float64 // standardised values per node on the grid (NaN kept)
	beta  [][]float64 // per node, one coefficient per in-edge (g.In order)
	r2    []float64   // in-sample fit of each node's equation
	edgeB []float64   // β by edge index
	fitN  []int       // cells used in each fit
	lo    int         // first cell used for fitting
	hi    int         // one past the last
	alpha float64     // ridge penalty (standardised units)
}

// fitSCM standardises every node and fits each structural equation on the
// cells [lo, hi). Ridge regression (alpha·I added to XᵀX) keeps the fit
// stable with more parents than cells and with collinear parents; NaN cells
// are skipped row-wise; constant parents get β = 0.
func fitSCM(g *tcg.Graph, lo, hi int, alpha float64) *scm {
	m := &scm{g: g, lo: lo, hi: hi, alpha: alpha}
	n := len(g.Nodes)
	m.z = make([][]float64, n)
	for i, nd := range g.Nodes {
		v := nd.Values()
		z := make([]float64, len(v))
		orient := 1.0
		if nd.Dir < 0 {
			orient = -1
		}
		for t, x := range v {
			if nd.Scale > 0 && !math.IsNaN(nd.Baseline) {
				z[t] = orient * (x - nd.Baseline) / nd.Scale
			} else {
				z[t] = math.NaN()
			}
		}
		m.z[i] = z
	}
	m.beta = make([][]float64, n)
	m.r2 = make([]float64, n)
	m.fitN = make([]int, n)
	for i := range g.Nodes {
		m.fitNode(i)
	}
	m.edgeB = make([]float64, len(g.Edges))
	for i := range g.Nodes {
		for j, ei := range g.In(i) {
			m.edgeB[ei] = m.beta[i][j]
		}
	}
	return m
}

// parentValue returns z of edge ei's source at cell t shifted by the lag.
func (m *scm) parentValue(ei, t int) float64 {
	e := m.g.Edges[ei]
	s := t - e.LagSteps
	if s < 0 {
		return math.NaN()
	}
	return m.z[e.From][s]
}

func (m *scm) fitNode(i int) {
	in := m.g.In(i)
	k := len(in)
	m.beta[i] = make([]float64, k)
	if k == 0 {
		return
	}
	var rows [][]float64
	var ys []float64
	for t := m.lo; t < m.hi; t++ {
		y := m.z[i][t]
		if math.IsNaN(y) {
			continue
		}
		row := make([]float64, k)
		ok := true
		for j, ei := range in {
			v := m.parentValue(ei, t)
			if math.IsNaN(v) {
				v = 0 // a missing parent sample counts as "at baseline"
			}
			row[j] = clampZ(v)
		}
		if ok {
			rows = append(rows, row)
			ys = append(ys, clampZ(y))
		}
	}
	m.fitN[i] = len(ys)
	if len(ys) < 3 {
		return
	}
	// Normal equations with ridge: (XᵀX + αI) β = Xᵀy.
	xtx := mat.NewSymDense(k, nil)
	xty := mat.NewVecDense(k, nil)
	for r, row := range rows {
		for a := 0; a < k; a++ {
			xty.SetVec(a, xty.AtVec(a)+row[a]*ys[r])
			for b := a; b < k; b++ {
				xtx.SetSym(a, b, xtx.At(a, b)+row[a]*row[b])
			}
		}
	}
	for a := 0; a < k; a++ {
		xtx.SetSym(a, a, xtx.At(a, a)+m.alpha)
	}
	// Every variable is oriented toward its bad direction, so a causal
	// influence is never negative (a bad cause makes its effect worse):
	// solve the ridge problem under β ≥ 0 by projected coordinate descent
	// on the normal equations (k is small: a node's parents).
	beta := make([]float64, k)
	for it := 0; it < 100; it++ {
		moved := 0.0
		for a := 0; a < k; a++ {
			r := xty.AtVec(a)
			for b := 0; b < k; b++ {
				if b != a {
					r -= xtx.At(a, b) * beta[b]
				}
			}
			nb := math.Max(0, r/xtx.At(a, a))
			moved = math.Max(moved, math.Abs(nb-beta[a]))
			beta[a] = nb
		}
		if moved < 1e-6 {
			break
		}
	}
	for a := 0; a < k; a++ {
		b := beta[a]
		if math.IsNaN(b) || math.IsInf(b, 0) {
			b = 0
		}
		m.beta[i][a] = b
	}
	// R² of the fit.
	var ssr, sst, mean float64
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	for r, row := range rows {
		p := 0.0
		for a := range row {
			p += m.beta[i][a] * row[a]
		}
		ssr += (ys[r] - p) * (ys[r] - p)
		sst += (ys[r] - mean) * (ys[r] - mean)
	}
	if sst > 0 {
		m.r2[i] = math.Max(0, 1-ssr/sst)
	}
}

// clampZ bounds standardised values so one absurd sample cannot dominate
// a fit (robustness to outliers).
func clampZ(z float64) float64 {
	const c = 50
	if z > c {
		return c
	}
	if z < -c {
		return -c
	}
	return z
}

// gainsTo returns, for every node, the total effect of a unit change of
// that node on node to: the sum over directed walks of at most maxDepth
// edges of the product of their coefficients (the "prediction" step of a
// do-intervention in a linear SCM). Walks around cycles are included up to
// the depth bound; coefficients are clipped to [-1.5, 1.5] so a cycle cannot
// blow up. O(maxDepth · edges).
func (m *scm) gainsTo(to, maxDepth int) []float64 {
	n := len(m.g.Nodes)
	total := make([]float64, n)
	cur := make([]float64, n)
	cur[to] = 1
	total[to] = 1
	for d := 0; d < maxDepth; d++ {
		next := make([]float64, n)
		any := false
		for ei, e := range m.g.Edges {
			if cur[e.To] == 0 {
				continue
			}
			b := math.Max(-1.5, math.Min(1.5, m.coef(e.To, ei)))
			if b == 0 {
				continue
			}
			next[e.From] += b * cur[e.To]
			any = true
		}
		if !any {
			break
		}
		for i := range next {
			total[i] += next[i]
		}
		cur = next
	}
	return total
}

// coef returns β of in-edge ei in node i's equation.
func (m *scm) coef(i, ei int) float64 { return m.edgeB[ei] }
