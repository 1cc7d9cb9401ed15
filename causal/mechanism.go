package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// mechanisms holds every node's model of normal operation, fitted on the
// baseline cells only, in oriented standardised units: z_i(t) = dir_i ·
// (x_i(t) − baseline median) / baseline scale, so larger is worse and the
// baseline is centred at 0 with scale ≈ 1.
//
//	z_i(t) = Σ_p β_ip · z_p(t − lag_ip) + u_i(t)
//
// The parents are the graph's in-edges; β is fitted by Huber-loss
// iteratively reweighted ridge regression on the baseline (robust to the
// odd spike), so the incident never enters the fit. The residual u_i is
// the part of node i's value its parents do not explain: its own noise.
type mechanisms struct {
	g    *tcg.Graph
	z    [][]float64 // standardised values per node on the grid (NaN kept)
	in   [][]int     // in-edge indices used per node (lagged edges included)
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

// fitMechanisms fits every anomalous node's mechanism on the baseline
// cells. O(anomalous nodes · (baseline cells · parents² + parents³) ·
// iterations).
func fitMechanisms(g *tcg.Graph, p MechanismParams) *mechanisms {
	m := &mechanisms{g: g}
	n := len(g.Nodes)
	m.z = make([][]float64, n)
	for i, nd := range g.Nodes {
		m.z[i] = standardise(nd)
	}
	m.in = make([][]int, n)
	m.beta = make([][]float64, n)
	m.resLoc = make([]float64, n)
	m.resScale = make([]float64, n)
	m.fitN = make([]int, n)
	for i, nd := range g.Nodes {
		// Only anomalous nodes' residuals are used (the anomaly space has
		// nothing else); the others keep the identity (no parents).
		if !nd.Anomalous {
			m.beta[i] = nil
			m.resScale[i] = 1
			continue
		}
		m.in[i] = mechanismParents(g, i, p.MaxParents)
		m.fitNode(i, p)
	}
	return m
}

func (m *mechanisms) parentValue(ei, t int, clamp float64) float64 {
	e := m.g.Edges[ei]
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

func clampTo(x, c float64) float64 {
	return math.Max(-c, math.Min(c, x))
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

func (m *mechanisms) fitNode(i int, p MechanismParams) {
	g := m.g
	k := len(m.in[i])
	m.beta[i] = make([]float64, k)
	var ts []int
	for t := g.B0; t < g.B1; t++ {
		if !math.IsNaN(m.z[i][t]) {
			ts = append(ts, t)
		}
	}
	m.fitN[i] = len(ts)
	if k > 0 && len(ts) >= 3 {
		xs := make([][]float64, len(ts))
		ys := make([]float64, len(ts))
		for r, t := range ts {
			row := make([]float64, k)
			for j, ei := range m.in[i] {
				row[j] = m.parentValue(ei, t, p.Clamp)
			}
			xs[r], ys[r] = row, clampTo(m.z[i][t], p.Clamp)
		}
		m.beta[i] = huberRidge(xs, ys, p.Ridge, p.Huber)
	}
	res := make([]float64, 0, len(ts))
	for _, t := range ts {
		res = append(res, clampTo(m.z[i][t], p.Clamp)-m.predict(i, t, p.Clamp))
	}
	if len(res) == 0 {
		m.resLoc[i], m.resScale[i] = 0, 1
		return
	}
	loc, mad := medianMAD(res)
	m.resLoc[i] = loc
	m.resScale[i] = math.Max(1.4826*mad, p.MinResidualScale)
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
// outside, scale re-estimated by MAD each round), 20 rounds at most.
func huberRidge(xs [][]float64, ys []float64, ridge, huber float64) []float64 {
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
		nb := solveSPD(a)
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

// solveSPD solves the k×(k+1) augmented symmetric positive-definite system
// by Gaussian elimination with partial pivoting (k is a node's parents).
func solveSPD(a [][]float64) []float64 {
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
	return (ingest.Quantile(rs, 0.5) - m.resLoc[i]) / m.resScale[i]
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
	RHT float64
}

// nodeEvidence computes every node's evidence.
func nodeEvidence(g *tcg.Graph, m *mechanisms, p MechanismParams, withRHT bool) []NodeEvidence {
	out := make([]NodeEvidence, len(g.Nodes))
	for i, n := range g.Nodes {
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
			ev.ZPhys, ev.Parts = physicalResidual(g, i)
		}
		if withRHT {
			var ps []int
			for _, ei := range g.In(i) {
				if g.Edges[ei].Kind != tcg.EdgeLagged {
					ps = append(ps, g.Edges[ei].From)
				}
			}
			ev.RHT = rhtScore(g, i, ps)
		}
		out[i] = ev
	}
	return out
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
func physicalResidual(g *tcg.Graph, i int) (float64, map[int]float64) {
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
				k = callsPerRequest(g, q, n, cells)
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
	return ingest.Quantile(ws, 0.5) - med, scale
}

// callsPerRequest is the median over cells of an edge's calls per request
// of its caller (span-derived), 1 when unknown.
func callsPerRequest(g *tcg.Graph, client, caller *tcg.Node, cells []int) float64 {
	var calls, reqs *ingest.Series
	for _, nd := range g.Nodes {
		if nd.Entity.ID() == client.Entity.ID() && nd.Signal == ingest.SignalTraffic {
			for _, s := range nd.Series {
				if s.Name == ingest.EdgeCalls {
					calls = s
				}
			}
		}
		if nd.Entity.ID() == caller.Entity.ID() && nd.Signal == ingest.SignalTraffic && nd.Facet == tcg.FacetNone {
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
	return ingest.Quantile(rs, 0.5)
}

// Evidence fits the mechanisms on the baseline and returns every node's
// evidence (for eval's feature dumps and tests).
func Evidence(g *tcg.Graph) []NodeEvidence {
	p := DefaultMechanismParams()
	return nodeEvidence(g, fitMechanisms(g, p), p, true)
}
