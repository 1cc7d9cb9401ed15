package causal

import (
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// effectPath is the path an on-call reads: the one that carries the
// largest share of the candidate's effect to the target, over hops that
// hold (HopHolds: a moved signal, reached with a lag ≥ 0). In the anomaly
// space's linear SCM, the candidate's change reaching a node u goes on to
// each of u's anomalous children v in proportion to coef(v, u) — the part
// of v's inherited anomaly u accounts for, per unit of u's anomaly — so a
// path's share is the product of its hops' fractions, and the path that
// carries most is the shortest under −ln(fraction) (Dijkstra, gonum's
// graph/path). Shares[k] is the share of the effect that reaches
// path[k] along the path (1 at the cause). ok is false when the target is
// not reached over anomalous edges (the caller falls back to the graph's
// greedy path). O(reached nodes · children · log).
func effectPath(g *tcg.Graph, sp *anomalySpace, i int) (nodes []int, shares []float64, ok bool) {
	if g.Target < 0 || sp.pos[i] < 0 || sp.pos[g.Target] < 0 {
		return nil, nil, false
	}
	// coef(v, u) for every anomalous edge u → v.
	coef := func(v, u int) float64 {
		inh := sp.a[v] - sp.r[v]
		if inh <= 0 || sp.a[u] <= 0 {
			return 0
		}
		k := slices.Index(sp.parents[v], u)
		if k < 0 {
			return 0
		}
		return inh * sp.weight[v][k] / sp.a[u]
	}
	wg := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	seen := map[int]bool{i: true}
	queue := []int{i}
	wg.AddNode(simple.Node(int64(i)))
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		total := 0.0
		for _, v := range sp.kids[u] {
			total += coef(v, u)
		}
		if total <= 0 {
			continue
		}
		for _, v := range sp.kids[u] {
			c := coef(v, u)
			if c <= 0 || v == u || !HopHolds(g, u, v, edgeBetween(g, u, v)) {
				continue
			}
			if !seen[v] {
				seen[v] = true
				wg.AddNode(simple.Node(int64(v)))
				queue = append(queue, v)
			}
			wg.SetWeightedEdge(wg.NewWeightedEdge(simple.Node(int64(u)), simple.Node(int64(v)), -math.Log(c/total)))
		}
	}
	if !seen[g.Target] {
		return nil, nil, false
	}
	best := path.DijkstraFrom(simple.Node(int64(i)), wg)
	ps, w := best.To(int64(g.Target))
	if len(ps) == 0 || math.IsInf(w, 1) {
		return nil, nil, false
	}
	for _, n := range ps {
		nodes = append(nodes, int(n.ID()))
	}
	share := 1.0
	shares = append(shares, share)
	for k := 1; k < len(nodes); k++ {
		e := wg.WeightedEdge(int64(nodes[k-1]), int64(nodes[k]))
		share *= math.Exp(-e.Weight())
		shares = append(shares, share)
	}
	return nodes, shares, true
}

// edgeBetween returns the graph's edge u → v carrying anomaly (not a
// lagged correlation; the most confident of several), or -1.
func edgeBetween(g *tcg.Graph, u, v int) int {
	best := -1
	for _, ei := range g.Out(u) {
		e := g.Edges[ei]
		if e.To != v || e.Kind == tcg.EdgeLagged {
			continue
		}
		if best < 0 || e.Confidence > g.Edges[best].Confidence {
			best = ei
		}
	}
	return best
}

// HopHolds reports whether a propagation hop u → v over edge e (an index
// into g.Edges, or -1 when the hop has none) can be shown as one: v's
// signal moved (it is anomalous; the target counts as moved, it is what
// paged) and the effect reaches it no earlier than its cause (the edge's
// lag is ≥ 0, and v's onset is not before u's when both are known). A path
// through a signal that never moved, or that runs backwards in time, is not
// a propagation path.
func HopHolds(g *tcg.Graph, u, v, e int) bool {
	if u < 0 || v < 0 || u >= len(g.Nodes) || v >= len(g.Nodes) {
		return false
	}
	nv := g.Nodes[v]
	if !nv.Anomalous && v != g.Target {
		return false
	}
	if e >= 0 && e < len(g.Edges) && g.Edges[e].Lag < 0 {
		return false
	}
	if nu := g.Nodes[u]; nu.Onset != 0 && nv.Onset != 0 && nv.Onset < nu.Onset {
		return false
	}
	return true
}

// HoldingPrefix is how many nodes of a candidate's path (Candidate.Path,
// with Candidate.PathEdges between them) form a propagation path whose
// every hop holds (HopHolds): the path is cut before the first hop that
// does not. 0 for an empty path.
func HoldingPrefix(g *tcg.Graph, path, edges []int) int {
	if len(path) == 0 {
		return 0
	}
	for k := 1; k < len(path); k++ {
		e := -1
		if k-1 < len(edges) {
			e = edges[k-1]
		}
		if !HopHolds(g, path[k-1], path[k], e) {
			return k
		}
	}
	return len(path)
}
