package causal

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
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
	parallelFor(len(zs), 64, func(k int) { m.z[zs[k]] = standardise(g.Nodes[zs[k]]) })
	sort.SliceStable(fit, func(a, b int) bool { return len(m.in[fit[a]]) > len(m.in[fit[b]]) })
	parallelForWith(len(fit), 1, func() *ridgeWork { return &ridgeWork{} }, func(k int, ws *ridgeWork) {
		m.fitNode(fit[k], p, ws)
	})
	return m
}

// parallelFor calls f(k) for every k in [0, n) on up to GOMAXPROCS
// goroutines, chunk consecutive k at a time; f must touch only what
// belongs to k.
func parallelFor(n, chunk int, f func(k int)) {
	parallelForWith(n, chunk, func() struct{} { return struct{}{} }, func(k int, _ struct{}) { f(k) })
}

// parallelForWith is parallelFor with one scratch value per goroutine.
func parallelForWith[W any](n, chunk int, scratch func() W, f func(k int, w W)) {
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	if workers <= 1 {
		w := scratch()
		for k := 0; k < n; k++ {
			f(k, w)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := scratch()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				for k := lo; k < min(lo+chunk, n); k++ {
					f(k, w)
				}
			}
		}()
	}
	wg.Wait()
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
	m.resScale[i] = math.Max(1.4826*mad, p.MinResidualScale)
}

// medianMADWork is medianMAD with ws.dev as its scratch (xs is kept).
func medianMADWork(xs []float64, ws *ridgeWork) (med, mad float64) {
	dev := grow(ws.dev, len(xs))
	ws.dev = dev
	copy(dev, xs)
	med = measure.QuantileInPlace(dev, 0.5)
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	return med, measure.QuantileInPlace(dev, 0.5)
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

// NodeEvidence is what the ranking knows of one node.
type NodeEvidence struct {
	Node int
	// Z is the node's marginal robust deviation (tcg's anomaly score).
	Z float64
	// ZRes is its mechanism-change score: the deviation its parents, by
	// the mechanism fitted on the baseline, do not explain.
	ZRes float64
	// ZPhys is, for a latency node in seconds, its added seconds minus
	// what its latency parents added (callees, calls, own work), in
	// baseline scales; NaN for other nodes.
	ZPhys float64
	// ParentZ and ChildZ are the largest marginal deviations among the
	// node's parents and children (0 when none is anomalous).
	ParentZ, ChildZ float64
	// AnomalousChildren counts the children that are anomalous.
	AnomalousChildren int
	// Depth is the number of hops to the target (-1: no path).
	Depth int
	// Parts are, when the node's rise decomposes exactly over its parents
	// (latency composition, resource use summed over pods), each such
	// parent's share of the rise in the node's units.
	Parts map[int]float64
	// RHT is CIRCA's regression-based hypothesis test score: the largest
	// |z| of the window's residuals against the baseline's (non-robust).
	// Only Evidence fills it (eval's feature dumps); the ranking leaves it 0.
	RHT float64
}

// nodeEvidence computes the evidence of every node for which need is true
// (every node when need is nil; m must have fitted them), the nodes spread
// over the CPUs (each reads the graph and the fits, and writes only its own
// slot); the others keep only Node, Z, Depth and ZPhys = NaN.
// O(nodes + Σ_needed (in + out edges) · cells).
func nodeEvidence(g *tcg.Graph, m *mechanisms, p MechanismParams, need []bool) []NodeEvidence {
	out := make([]NodeEvidence, len(g.Nodes))
	var todo []int
	for i, n := range g.Nodes {
		out[i] = NodeEvidence{Node: i, Z: n.Score, Depth: n.Depth, ZPhys: math.NaN()}
		if need == nil || need[i] {
			todo = append(todo, i)
		}
	}
	byEnt := nodesByEntity(g)
	parallelFor(len(todo), 16, func(k int) {
		i := todo[k]
		n := g.Nodes[i]
		ev := NodeEvidence{Node: i, Z: n.Score, Depth: n.Depth, ZPhys: math.NaN()}
		ev.ZRes = m.residualZ(i, p.Clamp)
		for _, ei := range g.In(i) {
			if q := g.Nodes[g.Edges[ei].From]; q.Anomalous {
				ev.ParentZ = math.Max(ev.ParentZ, q.Score)
			}
		}
		for _, ei := range g.Out(i) {
			if q := g.Nodes[g.Edges[ei].To]; q.Anomalous {
				ev.ChildZ = math.Max(ev.ChildZ, q.Score)
				ev.AnomalousChildren++
			}
		}
		if n.Anomalous {
			ev.ZPhys, ev.Parts = physicalResidual(g, byEnt, i)
		}
		out[i] = ev
	})
	return out
}

// nodesByEntity lists every node's index under its entity's ID, in index
// order (all facets). O(nodes).
func nodesByEntity(g *tcg.Graph) map[string][]int {
	out := make(map[string][]int)
	for i, n := range g.Nodes {
		id := n.Entity.ID()
		out[id] = append(out[id], i)
	}
	return out
}

// addRHT fills every node's RHT (the ranking does not use it: only
// Evidence's feature dump does).
func addRHT(g *tcg.Graph, ev []NodeEvidence) {
	for i := range ev {
		var ps []int
		for _, ei := range g.In(i) {
			if g.Edges[ei].Kind != tcg.EdgeLagged {
				ps = append(ps, g.Edges[ei].From)
			}
		}
		ev[i].RHT = rhtScore(g, i, ps)
	}
}

// physicalResidual is, for a latency node, the seconds it added beyond
// what its latency parents account for, in the node's baseline scales (NaN
// when the node is not a latency in seconds). It uses the exact
// composition traces give where they give it, on the span-derived means
// (means add up): a service's latency = its own work (exclusive time per
// request) + Σ calls per request × the client side of each call; a call's
// client side = its server side + the network/queueing gap. Otherwise the
// same statistic of its latency parents (a callee adds its latency to its
// caller's; a service's latency rises at most as much as its worst pod's).
// Every term is measured over the node's anomalous episode (its onset to
// the end of the episode) against the baseline.
// byEnt is nodesByEntity(g).
func physicalResidual(g *tcg.Graph, byEnt map[string][]int, i int) (float64, map[int]float64) {
	n := g.Nodes[i]
	if n.Signal != ingest.SignalLatency {
		return usageResidual(g, i)
	}
	cells := episodeCells(g, n)
	child := composableSeries(n, "")
	if child == nil || len(cells) == 0 {
		return math.NaN(), nil
	}
	dc, scale := shift(child, g.B0, g.B1, cells)
	if math.IsNaN(dc) || !(scale > 0) {
		return math.NaN(), nil
	}
	derived := child.Source == ingest.DerivedSource
	var parts, callees, pods []int
	for _, ei := range g.In(i) {
		q := g.Nodes[g.Edges[ei].From]
		if q.Signal != ingest.SignalLatency {
			continue
		}
		switch {
		case q.Facet == tcg.FacetSelf || q.Facet == tcg.FacetClient || q.Facet == tcg.FacetGap || q.Facet == tcg.FacetServer:
			parts = append(parts, g.Edges[ei].From)
		case q.Entity.Kind == ingest.KindPod && n.Entity.Kind != ingest.KindPod:
			pods = append(pods, g.Edges[ei].From)
		default:
			callees = append(callees, g.Edges[ei].From)
		}
	}
	if len(parts)+len(callees)+len(pods) == 0 {
		return math.NaN(), nil // nothing to compose: no exact check
	}
	sort.Ints(parts)
	sort.Ints(callees)
	sort.Ints(pods)
	want := child.Stat
	if derived {
		want = "" // the derived composable series
	}
	explained := 0.0
	contrib := map[int]float64{}
	if len(parts) > 0 {
		for _, j := range parts {
			q := g.Nodes[j]
			qs := composableSeries(q, want)
			if qs == nil {
				continue
			}
			d, _ := shift(qs, g.B0, g.B1, cells)
			if math.IsNaN(d) {
				continue
			}
			k := 1.0
			if q.Facet == tcg.FacetClient && n.Entity.Kind == ingest.KindService {
				k = callsPerRequest(g, byEnt, q, n, cells)
			}
			explained += k * d
			if k*d > 0 {
				contrib[j] = k * d
			}
		}
	} else {
		calls := 0.0
		for _, j := range callees {
			if qs := composableSeries(g.Nodes[j], want); qs != nil {
				if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
					calls += d
					contrib[j] = d
				}
			}
		}
		worst, wj := 0.0, -1
		for _, j := range pods {
			if qs := composableSeries(g.Nodes[j], want); qs != nil {
				if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
					contrib[j] = d // a pod's share of its service's rise
					if d > worst {
						worst, wj = d, j
					}
				}
			}
		}
		_ = wj
		explained = math.Max(calls, worst)
	}
	dir := 1.0
	if n.Dir < 0 {
		dir = -1
	}
	return dir * (dc - explained) / scale, contrib
}

// usageResidual is, for a node's or a service's resource use (CPU, memory,
// network, disk) that is the sum of what the pods placed on it use, the
// part of its rise its pods' rises do not account for, in its baseline
// scales, and each pod's rise (same signal, same unit). NaN when the node
// has no such parts.
func usageResidual(g *tcg.Graph, i int) (float64, map[int]float64) {
	n := g.Nodes[i]
	if !n.Signal.Saturation() || n.Entity.Kind != ingest.KindNode {
		return math.NaN(), nil
	}
	cells := episodeCells(g, n)
	child := n.Series[n.Rep]
	dc, scale := shift(child, g.B0, g.B1, cells)
	if math.IsNaN(dc) || !(scale > 0) || len(cells) == 0 {
		return math.NaN(), nil
	}
	contrib := map[int]float64{}
	explained := 0.0
	for _, ei := range g.In(i) {
		j := g.Edges[ei].From
		q := g.Nodes[j]
		if q.Signal != n.Signal || q.Entity.Kind == ingest.KindNode || q.Entity.Kind == ingest.KindGPU {
			continue
		}
		qs := q.Series[q.Rep]
		if qs.Unit != child.Unit {
			continue
		}
		if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
			contrib[j] = d
			explained += d
		}
	}
	if len(contrib) == 0 {
		return math.NaN(), nil
	}
	dir := 1.0
	if n.Dir < 0 {
		dir = -1
	}
	return dir * (dc - explained) / scale, contrib
}

// composableSeries picks the node's series that composes with its
// neighbours': the span-derived mean (exclusive time, gap) when the node has
// one and want is "", else the series of statistic want, else the
// representative when it is in seconds. nil when none is in seconds.
func composableSeries(n *tcg.Node, want string) *ingest.Series {
	if want == "" {
		for _, s := range n.Series {
			if s.Source == ingest.DerivedSource && s.Unit == "s" && (s.Stat == "mean" || s.Stat == "self" || s.Stat == "gap") {
				return s
			}
		}
	}
	if want != "" {
		for _, s := range n.Series {
			if s.Stat == want && s.Unit == "s" {
				return s
			}
		}
	}
	if r := n.Series[n.Rep]; r.Unit == "s" {
		return r
	}
	for _, s := range n.Series {
		if s.Unit == "s" {
			return s
		}
	}
	return nil
}

// episodeCells are the window cells of the node's anomalous episode: from
// its onset (the window start when it has none) to the window end.
func episodeCells(g *tcg.Graph, n *tcg.Node) []int {
	from := g.W0
	if n.OnsetIdx >= g.W0 && n.OnsetIdx < g.W1 {
		from = n.OnsetIdx
	}
	out := make([]int, 0, g.W1-from)
	for t := from; t < g.W1; t++ {
		out = append(out, t)
	}
	return out
}

// shift returns the median of s over cells minus its baseline median, and
// its baseline robust scale (1.4826·MAD floored at 5% of the median).
func shift(s *ingest.Series, b0, b1 int, cells []int) (float64, float64) {
	var bs, ws []float64
	for t := b0; t < b1 && t < len(s.V); t++ {
		if !math.IsNaN(s.V[t]) {
			bs = append(bs, s.V[t])
		}
	}
	for _, t := range cells {
		if t < len(s.V) && !math.IsNaN(s.V[t]) {
			ws = append(ws, s.V[t])
		}
	}
	if len(bs) < 2 || len(ws) == 0 {
		return math.NaN(), math.NaN()
	}
	med, mad := medianMAD(bs)
	scale := math.Max(1.4826*mad, 0.05*math.Abs(med))
	return measure.Quantile(ws, 0.5) - med, scale
}

// callsPerRequest is the median over cells of an edge's calls per request
// of its caller (span-derived), 1 when unknown. byEnt (nodesByEntity)
// gives the two entities' nodes: O(their nodes' series + cells).
func callsPerRequest(g *tcg.Graph, byEnt map[string][]int, client, caller *tcg.Node, cells []int) float64 {
	var calls, reqs *ingest.Series
	for _, j := range byEnt[client.Entity.ID()] {
		if nd := g.Nodes[j]; nd.Signal == ingest.SignalTraffic {
			for _, s := range nd.Series {
				if s.Name == ingest.EdgeCalls {
					calls = s
				}
			}
		}
	}
	for _, j := range byEnt[caller.Entity.ID()] {
		if nd := g.Nodes[j]; nd.Signal == ingest.SignalTraffic && nd.Facet == tcg.FacetNone {
			for _, s := range nd.Series {
				if s.Name == ingest.TraceRequests {
					reqs = s
				}
			}
		}
	}
	if calls == nil || reqs == nil {
		return 1
	}
	var rs []float64
	for _, t := range cells {
		if c, r := calls.V[t], reqs.V[t]; !math.IsNaN(c) && !math.IsNaN(r) && r > 0 {
			rs = append(rs, c/r)
		}
	}
	if len(rs) == 0 {
		return 1
	}
	return measure.Quantile(rs, 0.5)
}

// Evidence fits the mechanisms on the baseline and returns every node's
// evidence (for eval's feature dumps and tests).
func Evidence(g *tcg.Graph) []NodeEvidence {
	p := DefaultMechanismParams()
	ev := nodeEvidence(g, fitMechanisms(g, p, nil), p, nil)
	addRHT(g, ev)
	return ev
}
