package causal

import (
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// effectPath is the path an on-call reads: the one that carries the
// largest share of the candidate's effect to the target. In the anomaly
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
			if c <= 0 || v == u {
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
