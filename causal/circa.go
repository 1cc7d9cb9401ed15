package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/mat"
)

// CIRCAThreshold is the descendant-adjustment threshold of the "circa"
// comparison method: a node whose regression z-score reaches it adds its
// most anomalous descendant's score (descendants below it pass theirs on).
const CIRCAThreshold = 3

// analyzeCIRCA implements the "circa" comparison method: regression-based
// hypothesis testing with descendant adjustment (CIRCA, Li et al., KDD
// 2022, following the authors' RHTScorer and DAScorer). Every node of the
// graph is regressed on its parents (the call and structural edges, not
// the lagged ones) by least squares on the baseline cells; the window's
// residuals are z-scored against the baseline residuals' mean and standard
// deviation (scale 1 when constant, as scikit-learn's StandardScaler), and
// the node's score is the largest |z|. Descendant adjustment then adds to
// each node at or above CIRCAThreshold the largest score among its
// children (a child below the threshold passes on its own children's),
// and ties go to the node earlier in topological order. Services rank by
// their best node.
//
// O(nodes · (baseline cells · parents² + parents³) + edges).
func analyzeCIRCA(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
	res := &Result{Method: "circa", Unexplained: 1, MinVerdictShare: math.NaN()}
	n := len(g.Nodes)
	parents := make([][]int, n)
	children := make([][]int, n)
	for _, e := range g.Edges {
		if e.Kind == tcg.EdgeLagged {
			continue
		}
		parents[e.To] = append(parents[e.To], e.From)
		children[e.From] = append(children[e.From], e.To)
	}
	score := make([]float64, n)
	for i := range g.Nodes {
		score[i] = rhtScore(g, i, parents[i])
	}
	index := topoIndex(n, parents, children)
	// Descendant adjustment, children before parents (reverse topological).
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return index[order[a]] > index[order[c]] })
	// childBest[i] is the largest score among i's children, where a child
	// below the threshold contributes its own childBest as well.
	childBest := make([]float64, n)
	passed := make([]float64, n) // what node i passes to its parents
	for _, i := range order {
		best := math.Inf(-1)
		for _, c := range children[i] {
			if index[c] <= index[i] {
				continue // a back edge of a cycle
			}
			best = math.Max(best, score[c])
			if score[c] < CIRCAThreshold {
				best = math.Max(best, passed[c])
			}
		}
		childBest[i] = best
		passed[i] = best
	}
	adj := make([]float64, n)
	for i := range adj {
		adj[i] = score[i]
		if score[i] >= CIRCAThreshold && !math.IsInf(childBest[i], -1) {
			adj[i] += childBest[i]
		}
	}
	idx := make([]int, 0, n)
	for i := range g.Nodes {
		if !math.IsNaN(adj[i]) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, c int) bool {
		x, y := idx[a], idx[c]
		if adj[x] != adj[y] {
			return adj[x] > adj[y]
		}
		if index[x] != index[y] {
			return index[x] < index[y]
		}
		if score[x] != score[y] {
			return score[x] > score[y]
		}
		return g.Nodes[x].ID < g.Nodes[y].ID
	})
	res.Total = len(idx)
	for _, i := range idx {
		if len(res.Candidates) >= maxComparisonCandidates {
			res.Dropped++
			continue
		}
		nd := g.Nodes[i]
		c := Candidate{Node: i, NodeID: nd.ID, Service: nd.Entity.Service, Component: nd.Entity.Name, ComponentKind: nd.Entity.Kind,
			Signal: nd.Signal, Facet: string(nd.Facet), Score: adj[i], State: nd.State, Series: nd.Series[nd.Rep]}
		if c.Service == "" {
			c.Service = nd.Entity.Name
		}
		if p, ok := g.SinglePod[nd.Entity.Name]; ok && nd.Entity.Kind == ingest.KindService {
			c.Component, c.ComponentKind = p, ingest.KindPod
		}
		res.Candidates = append(res.Candidates, c)
	}
	res.Confident = len(res.Candidates) > 0
	return res
}

// rhtScore regresses node i's representative series on its parents' over
// the baseline cells and returns the largest |z| of the window's residuals
// (NaN when the node has fewer than 2 baseline samples).
func rhtScore(g *tcg.Graph, i int, parents []int) float64 {
	y := g.Nodes[i].Values()
	xs := make([][]float64, 0, len(parents))
	for _, p := range parents {
		xs = append(xs, g.Nodes[p].Values())
	}
	// Parent columns standardised on the baseline (a missing sample is the
	// baseline mean); constant columns are dropped.
	type col struct{ mean, sd float64 }
	cols := make([]col, len(xs))
	keep := []int{}
	for j, x := range xs {
		m, sd, k := meanSD(x, g.B0, g.B1)
		cols[j] = col{m, sd}
		if k >= 2 && sd > 0 {
			keep = append(keep, j)
		}
	}
	row := func(t int, dst []float64) {
		dst[0] = 1
		for a, j := range keep {
			v := xs[j][t]
			if math.IsNaN(v) {
				dst[a+1] = 0
			} else {
				dst[a+1] = (v - cols[j].mean) / cols[j].sd
			}
		}
	}
	var ts []int
	for t := g.B0; t < g.B1 && t < len(y); t++ {
		if !math.IsNaN(y[t]) {
			ts = append(ts, t)
		}
	}
	if len(ts) < 2 {
		return math.NaN()
	}
	k := len(keep) + 1
	beta := make([]float64, k)
	r := make([]float64, k)
	if k > 1 {
		// Least squares with a tiny ridge on the slopes for stability.
		xtx := mat.NewSymDense(k, nil)
		xty := mat.NewVecDense(k, nil)
		for _, t := range ts {
			row(t, r)
			for a := 0; a < k; a++ {
				xty.SetVec(a, xty.AtVec(a)+r[a]*y[t])
				for c := a; c < k; c++ {
					xtx.SetSym(a, c, xtx.At(a, c)+r[a]*r[c])
				}
			}
		}
		for a := 1; a < k; a++ {
			xtx.SetSym(a, a, xtx.At(a, a)+1e-3)
		}
		var sol mat.VecDense
		if err := sol.SolveVec(xtx, xty); err == nil {
			for a := 0; a < k; a++ {
				beta[a] = sol.AtVec(a)
			}
		} else {
			beta = make([]float64, k)
			m, _, _ := meanSD(y, g.B0, g.B1)
			beta[0] = m
		}
	} else {
		m, _, _ := meanSD(y, g.B0, g.B1)
		beta[0] = m
	}
	resid := func(t int) float64 {
		row(t, r)
		p := 0.0
		for a := 0; a < k; a++ {
			p += beta[a] * r[a]
		}
		return y[t] - p
	}
	var sum, sq float64
	for _, t := range ts {
		e := resid(t)
		sum += e
		sq += e * e
	}
	mean := sum / float64(len(ts))
	sd := math.Sqrt(math.Max(0, sq/float64(len(ts))-mean*mean))
	if !(sd >= 10*2.220446049250313e-16*math.Max(1, math.Abs(mean))) {
		sd = 1
	}
	best := math.NaN()
	for t := g.W0; t < g.W1 && t < len(y); t++ {
		if math.IsNaN(y[t]) {
			continue
		}
		z := math.Abs((resid(t) - mean) / sd)
		if math.IsNaN(best) || z > best {
			best = z
		}
	}
	return best
}

// meanSD returns the mean and population standard deviation of v over
// cells [lo, hi), NaN skipped, and how many cells were defined.
func meanSD(v []float64, lo, hi int) (mean, sd float64, n int) {
	var sum, sq float64
	for t := lo; t < hi && t < len(v); t++ {
		if x := v[t]; !math.IsNaN(x) {
			sum += x
			sq += x * x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(math.Max(0, sq/float64(n)-mean*mean)), n
}

// topoIndex returns each node's topological level (Kahn's algorithm; a
// cycle is broken at its remaining node of lowest index, so the result is
// deterministic).
func topoIndex(n int, parents, children [][]int) []int {
	indeg := make([]int, n)
	for i := range parents {
		indeg[i] = len(parents[i])
	}
	index := make([]int, n)
	done := make([]bool, n)
	var frontier []int
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			frontier = append(frontier, i)
		}
	}
	level, left := 0, n
	for left > 0 {
		if len(frontier) == 0 {
			for i := 0; i < n; i++ {
				if !done[i] {
					frontier = append(frontier, i)
					break
				}
			}
		}
		var next []int
		for _, i := range frontier {
			if done[i] {
				continue
			}
			done[i] = true
			left--
			index[i] = level
			for _, c := range children[i] {
				indeg[c]--
				if indeg[c] == 0 && !done[c] {
					next = append(next, c)
				}
			}
		}
		sort.Ints(next)
		frontier = next
		level++
	}
	return index
}
