package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// mechanisms holds every node's model of normal operation, fitted on the
// baseline cells only, in oriented standardised units: z_i(t) = dir_i ·
// (x_i(t) − baseline median) / baseline scale, so larger is worse and the
// baseline is centred at 0 with scale ≈ 1.
//
//	z_i(t) = Σ_p β_ip · z_p(t − lag_ip) + u_i(t)
//
// The parents are the node's anomalous in-edges over mechanism edges
// (mechanismParents); β is fitted by Huber-loss
// iteratively reweighted ridge regression on the baseline (robust to the
// odd spike), so the incident never enters the fit. The residual u_i is
// the part of node i's value its parents do not explain: its own noise.
type mechanisms struct {
	g    *tcg.Graph
	z    [][]float64 // standardised values per node on the grid (NaN kept)
	in   [][]int     // in-edge indices used per node (mechanismParents: anomalous, not lagged)
	beta [][]float64 // one coefficient per used in-edge
	// resLoc and resScale are the baseline residuals' median and robust
	// scale (1.4826·MAD, floored at MinResidualScale).
	resLoc, resScale []float64
	fitN             []int
}

// MechanismParams are the constants of the mechanism fits.
type MechanismParams struct {
	Ridge            float64 // ridge penalty per coefficient, in standardised units
	Huber            float64 // Huber loss threshold, in residual scales
	MinResidualScale float64 // floor of a node's baseline residual scale (standardised units)
	Clamp            float64 // bound on standardised values entering a fit
	MaxParents       int     // most parents a mechanism regresses on (mechanismParents)
}

// DefaultMechanismParams are the mechanism-fit defaults.
func DefaultMechanismParams() MechanismParams {
	return MechanismParams{Ridge: 1, Huber: 1.5, MinResidualScale: 0.5, Clamp: 1e4, MaxParents: 12}
}

// standardise returns node n's values as oriented robust z on the grid.
func standardise(n *tcg.Node) []float64 {
	v := n.Values()
	z := make([]float64, len(v))
	orient := 1.0
	if n.Dir < 0 {
		orient = -1
	}
	for t, x := range v {
		if n.Scale > 0 && !math.IsNaN(n.Baseline) {
			z[t] = orient * (x - n.Baseline) / n.Scale
		} else {
			z[t] = math.NaN()
		}
	}
	return z
}

// fitMechanisms fits the mechanism of every anomalous node for which need
// is true (every anomalous node when need is nil) on the baseline cells,
// over its mechanismParents; a needed node that is not anomalous keeps the
// identity (no parents, residual scale 1), and the rest are left unfitted. A node's fit reads only its own and its parents' standardised
// values, so it is the same whichever others are fitted, and the fits run
// on every CPU, heaviest first (each writes only its own node's slots).
// O(Σ_i rounds · n · (k_i' + 1)² + rounds · k_i³) over the fitted nodes, for
// n baseline cells, k_i in-edges of node i and k_i' ≤ k_i of them non-zero
// in a row (O(n²k + rounds·n³) in the dual, for wide fits): linear in nodes
// and edges while in-degrees stay bounded.
func fitMechanisms(g *tcg.Graph, p MechanismParams, need []bool) *mechanisms {
	m := &mechanisms{g: g}
	n := len(g.Nodes)
	m.z = make([][]float64, n)
	m.in = make([][]int, n)
	m.beta = make([][]float64, n)
	m.resLoc = make([]float64, n)
	m.resScale = make([]float64, n)
	m.fitN = make([]int, n)
	var fit []int
	hasZ := make([]bool, n)
	for i, nd := range g.Nodes {
		if need != nil && !need[i] {
			continue
		}
		hasZ[i] = true
		// Only anomalous nodes' residuals are used (the anomaly space has
		// nothing else); the others keep the identity (no parents).
		if !nd.Anomalous {
			m.resScale[i] = 1
			continue
		}
		fit = append(fit, i)
		m.in[i] = mechanismParents(g, i, p.MaxParents)
		for _, ei := range m.in[i] {
			hasZ[g.Edges[ei].From] = true
		}
	}
	var zs []int
	for i, ok := range hasZ {
		if ok {
			zs = append(zs, i)
		}
	}
	parallel.For(len(zs), 64, func(k int) { m.z[zs[k]] = standardise(g.Nodes[zs[k]]) })
	sort.SliceStable(fit, func(a, b int) bool { return len(m.in[fit[a]]) > len(m.in[fit[b]]) })
	parallel.ForWith(len(fit), 1, func() *ridgeWork { return &ridgeWork{} }, func(k int, ws *ridgeWork) {
		m.fitNode(fit[k], p, ws)
	})
	return m
}

func (m *mechanisms) parentValue(ei, t int, clamp float64) float64 {
	e := &m.g.Edges[ei]
	s := t - e.LagSteps
	if s < 0 {
		return 0
	}
	v := m.z[e.From][s]
	if math.IsNaN(v) {
		return 0 // a missing parent sample counts as "at baseline"
	}
	return clampTo(v, clamp)
}

// clampTo bounds x to [−c, c] (c > 0): math.Max(−c, math.Min(c, x)) by
// comparisons (NaN and ±0 come through as they are, as with math.Max/Min).
func clampTo(x, c float64) float64 {
	switch {
	case x > c:
		return c
	case x < -c:
		return -c
	}
	return x
}

// predict returns node i's value at cell t predicted by its parents.
func (m *mechanisms) predict(i, t int, clamp float64) float64 {
	p := 0.0
	for j, ei := range m.in[i] {
		if b := m.beta[i][j]; b != 0 {
			p += b * m.parentValue(ei, t, clamp)
		}
	}
	return p
}

func (m *mechanisms) fitNode(i int, p MechanismParams, ws *ridgeWork) {
	g := m.g
	k := len(m.in[i])
	m.beta[i] = make([]float64, k)
	ts := ws.ts[:0]
	for t := g.B0; t < g.B1; t++ {
		if !math.IsNaN(m.z[i][t]) {
			ts = append(ts, t)
		}
	}
	ws.ts = ts
	m.fitN[i] = len(ts)
	if k > 0 && len(ts) >= 3 {
		n := len(ts)
		ws.x, ws.y = grow(ws.x, n*k), grow(ws.y, n)
		for r, t := range ts {
			row := ws.x[r*k : (r+1)*k]
			for j, ei := range m.in[i] {
				row[j] = m.parentValue(ei, t, p.Clamp)
			}
			ws.y[r] = clampTo(m.z[i][t], p.Clamp)
		}
		huberRidge(ws.x, ws.y, k, p.Ridge, p.Huber, m.beta[i], ws)
	}
	if len(ts) == 0 {
		m.resLoc[i], m.resScale[i] = 0, 1
		return
	}
	res := grow(ws.res, len(ts))
	ws.res = res
	for r, t := range ts {
		res[r] = clampTo(m.z[i][t], p.Clamp) - m.predict(i, t, p.Clamp)
	}
	loc, mad := medianMADWork(res, ws)
	m.resLoc[i] = loc
	m.resScale[i] = math.Max(measure.MADToSigma*mad, p.MinResidualScale)
}

// mechanismParents returns the in-edges a node's mechanism regresses on:
// its anomalous parents over mechanism edges (not lagged correlations), at
// most max of them, most anomalous first (ties by edge index). A parent
// that did not move cannot explain the node's deviation, and the window's
// prediction is all the residual is measured against.
func mechanismParents(g *tcg.Graph, i, max int) []int {
	var out []int
	for _, ei := range g.In(i) {
		e := g.Edges[ei]
		if e.Kind != tcg.EdgeLagged && g.Nodes[e.From].Anomalous {
			out = append(out, ei)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		return g.Nodes[g.Edges[out[a]].From].Score > g.Nodes[g.Edges[out[b]].From].Score
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	sort.Ints(out)
	return out
}

// windowCells returns node i's window cells from its onset (the whole
// window when it has none).
func (m *mechanisms) windowCells(i int) []int {
	g := m.g
	from := g.W0
	if o := g.Nodes[i].OnsetIdx; o >= g.W0 && o < g.W1 {
		from = o
	}
	var out []int
	for t := from; t < g.W1; t++ {
		if !math.IsNaN(m.z[i][t]) {
			out = append(out, t)
		}
	}
	return out
}

// residualZ is node i's mechanism-change score: the median over its
// window cells (from onset) of its residual against its parents, in
// baseline residual scales. Positive means worse than the parents predict.
func (m *mechanisms) residualZ(i int, clamp float64) float64 {
	cells := m.windowCells(i)
	if len(cells) == 0 {
		return 0
	}
	rs := make([]float64, len(cells))
	for j, t := range cells {
		rs[j] = clampTo(m.z[i][t], clamp) - m.predict(i, t, clamp)
	}
	return (measure.Quantile(rs, 0.5) - m.resLoc[i]) / m.resScale[i]
}
