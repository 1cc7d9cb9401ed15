package causal

import (
	"math"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// anomalySpace is the incident seen on the graph in log-anomaly units: each
// anomalous node j has anomaly a_j = ln(1 + z_j) (z its robust deviation
// toward the bad direction) and own change r_j ≤ a_j, the part of it that
// its parents do not explain (ln(1 + residual z) of its mechanism fitted on
// the baseline, and, for a latency in seconds, of the seconds its latency
// parents do not account for). Nodes that are not anomalous have a = r = 0.
type anomalySpace struct {
	g     *tcg.Graph
	a, r  []float64
	order []int // anomalous nodes, parents before children (cycles broken deterministically)
	pos   []int // position in order, -1 when not anomalous
	// parents[j] are j's anomalous parents earlier in order (the edges the
	// incident's anomaly can have travelled), kids the reverse.
	parents, kids [][]int
	// weight[j][k] is how much of j's inherited anomaly comes from
	// parents[j][k] (summing to 1 over k): by the exact decomposition of
	// j's rise where there is one, else in proportion to the parents'
	// anomaly.
	weight [][]float64
	bySvc  map[string][]int // anomalous nodes by service, in order (ofServices)
}

// newAnomalySpace builds the space from the node evidence.
func newAnomalySpace(g *tcg.Graph, ev []NodeEvidence, precedenceOwn float64) *anomalySpace {
	n := len(g.Nodes)
	s := &anomalySpace{g: g, a: make([]float64, n), r: make([]float64, n), pos: make([]int, n),
		parents: make([][]int, n), kids: make([][]int, n)}
	var an []int
	for i, nd := range g.Nodes {
		s.pos[i] = -1
		if !nd.Anomalous || !(nd.Score > 0) {
			continue
		}
		s.a[i] = math.Log1p(nd.Score)
		own := ev[i].ZRes
		if !math.IsNaN(ev[i].ZPhys) {
			own = math.Min(own, ev[i].ZPhys)
		}
		s.r[i] = math.Min(math.Log1p(math.Max(own, 0)), s.a[i])
		an = append(an, i)
	}
	s.order = orderAnomalous(g, an)
	for k, i := range s.order {
		s.pos[i] = k
	}
	for _, j := range s.order {
		seen := map[int]bool{}
		for _, ei := range g.In(j) {
			p := g.Edges[ei].From
			if g.Edges[ei].Kind == tcg.EdgeLagged {
				continue // a correlation, not a mechanism: shown, never carried
			}
			if s.pos[p] >= 0 && s.pos[p] < s.pos[j] && !seen[p] {
				seen[p] = true
				s.parents[j] = append(s.parents[j], p)
				s.kids[p] = append(s.kids[p], j)
			}
		}
		sort.Ints(s.parents[j])
	}
	for i := range s.kids {
		sort.Ints(s.kids[i])
	}
	s.weight = make([][]float64, n)
	for _, j := range s.order {
		ps := s.parents[j]
		w := make([]float64, len(ps))
		sum := 0.0
		for k, p := range ps {
			if c, ok := ev[j].Parts[p]; ok && c > 0 {
				w[k] = c
				sum += c
			}
		}
		if sum == 0 { // no exact decomposition among the anomalous parents
			for k, p := range ps {
				w[k] = s.a[p]
				sum += w[k]
			}
		}
		for k := range w {
			if sum > 0 {
				w[k] /= sum
			}
		}
		s.weight[j] = w
	}
	// A node without an anomalous parent before it owns all its anomaly.
	// One whose anomalous parent moved first (or with it) inherits most of
	// its own: a mechanism fitted on baseline noise cannot tell an effect
	// far outside the baseline's range from a change, and the earlier
	// anomaly upstream is the simpler explanation (its own change is then
	// at most PrecedenceOwn of its anomaly, unless the exact composition of
	// traces measured it).
	// A change that came first (a service's change, a rollout) bounds it
	// even where an exact composition measured it: a new version of a
	// callee can fail its callers through answers the composition does not
	// count (a wrong value is a success to the callee).
	for _, j := range s.order {
		if len(s.parents[j]) == 0 {
			s.r[j] = s.a[j]
			continue
		}
		measured := !math.IsNaN(ev[j].ZPhys)
		for _, p := range s.parents[j] {
			if g.Nodes[p].OnsetIdx > g.Nodes[j].OnsetIdx || measured && !changeNode(g.Nodes[p]) {
				continue
			}
			s.r[j] = math.Min(s.r[j], precedenceOwn*s.a[j])
			break
		}
	}
	return s
}

// orderAnomalous sorts the anomalous nodes topologically over the graph's
// edges among them (Kahn's algorithm, smallest index first; a cycle is
// broken at its earliest-onset, then smallest-index node). an is in index
// order. O((A + E_A) log A) for A anomalous nodes and E_A edges among them.
func orderAnomalous(g *tcg.Graph, an []int) []int {
	n := len(g.Nodes)
	in := make([]bool, n)
	for _, i := range an {
		in[i] = true
	}
	indeg := make([]int, n)
	for _, i := range an {
		for _, ei := range g.In(i) {
			if p := g.Edges[ei].From; in[p] && p != i {
				indeg[i]++
			}
		}
	}
	// Cycle breaks take the first not-done node of an in (onset, index)
	// order: a cursor over that order finds each in amortised O(1).
	byOnset := append([]int(nil), an...)
	sort.SliceStable(byOnset, func(a, b int) bool { return g.Nodes[byOnset[a]].OnsetIdx < g.Nodes[byOnset[b]].OnsetIdx })
	cursor := 0
	done := make([]bool, n)
	var order []int
	ready := &intHeap{}
	for _, i := range an {
		if indeg[i] == 0 {
			ready.push(i)
		}
	}
	for len(order) < len(an) {
		if ready.len() == 0 {
			for done[byOnset[cursor]] {
				cursor++
			}
			ready.push(byOnset[cursor])
		}
		x := ready.pop() // the smallest ready index
		if done[x] {
			continue
		}
		done[x] = true
		order = append(order, x)
		for _, ei := range g.Out(x) {
			c := g.Edges[ei].To
			if in[c] && !done[c] {
				indeg[c]--
				if indeg[c] == 0 {
					ready.push(c)
				}
			}
		}
	}
	return order
}

// intHeap is a binary min-heap of ints.
type intHeap struct{ a []int }

func (h *intHeap) len() int { return len(h.a) }

func (h *intHeap) push(x int) {
	h.a = append(h.a, x)
	for i := len(h.a) - 1; i > 0; {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *intHeap) pop() int {
	x := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < last && h.a[l] < h.a[m] {
			m = l
		}
		if l+1 < last && h.a[l+1] < h.a[m] {
			m = l + 1
		}
		if m == i {
			break
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
	return x
}

// flows decomposes every anomalous node's anomaly over the own changes it
// descends from: a_j = r_j + Σ_p w_jp · a_p with the non-own part
// (a_j − r_j) split among j's anomalous parents in proportion to their
// anomaly — or, where j's rise decomposes exactly over its parents
// (latency composition, resource use summed over pods), in proportion to
// each parent's part of it. This is a linear SCM in log-anomaly space whose
// coefficients reproduce the observed anomalies, and for a linear SCM the Shapley value
// of each noise term is its total-effect contribution: flows[j][i] is the
// part of a_j that disappears under do(r_i := 0), the Shapley attribution
// of node j's anomaly to node i's own change. Each flows[j] sums to a_j.
//
// O(anomalous nodes · sources per node).
func (s *anomalySpace) flows() []map[int]float64 {
	f := make([]map[int]float64, len(s.a))
	for _, j := range s.order {
		m := map[int]float64{j: s.r[j]}
		inh := s.a[j] - s.r[j]
		if inh > 0 && len(s.parents[j]) > 0 {
			for k, p := range s.parents[j] {
				w := inh * s.weight[j][k] / s.a[p]
				if w == 0 {
					continue
				}
				for src, amt := range f[p] {
					m[src] += w * amt
				}
			}
		}
		f[j] = m
	}
	return f
}

// downstream returns, for candidate i, the anomaly its own change can
// account for in each descendant: Δ_i = r_i and, along the anomalous
// edges, Δ_c = min(a_c, max over parents p of Δ_p) — removing i's change
// lowers each descendant by at most its own anomaly and by what reached
// it. It returns Σ Δ over the descendants (i excluded).
//
// Only the children of nodes that received some Δ can receive any, so the
// walk visits those, in order (a heap on their position): the same nodes,
// values and summation order as a pass over every later node, in
// O(D·(deg + log D)) for the D descendants reached instead of O(A·deg).
func (s *anomalySpace) downstream(i int) float64 {
	if s.pos[i] < 0 {
		return 0
	}
	delta := map[int]float64{i: s.r[i]}
	queued := map[int]bool{}
	next := &intHeap{} // positions in order
	enqueue := func(p int) {
		for _, c := range s.kids[p] {
			if !queued[c] {
				queued[c] = true
				next.push(s.pos[c])
			}
		}
	}
	if s.r[i] > 0 {
		enqueue(i)
	}
	total := 0.0
	for next.len() > 0 {
		j := s.order[next.pop()]
		best := 0.0
		for k, p := range s.parents[j] {
			if s.weight[j][k] == 0 {
				continue // this parent explains none of j's rise
			}
			if d, ok := delta[p]; ok && d > best {
				best = d
			}
		}
		if best > 0 {
			d := math.Min(s.a[j], best)
			delta[j] = d
			total += d
			enqueue(j)
		}
	}
	return total
}

// ancestors returns the anomalous nodes with a path of anomalous edges to
// node i (i excluded).
func (s *anomalySpace) ancestors(i int) map[int]bool {
	out := map[int]bool{}
	stack := append([]int(nil), s.parents[i]...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[p] {
			continue
		}
		out[p] = true
		stack = append(stack, s.parents[p]...)
	}
	return out
}

// ofServices returns the anomalous nodes whose entity's service is one of
// svcs, in order (what a pass over order filtered by service gives), from
// an index built on first use. O(their count · log) per call.
func (s *anomalySpace) ofServices(svcs []string) []int {
	if s.bySvc == nil {
		s.bySvc = map[string][]int{}
		for _, j := range s.order {
			svc := s.g.Nodes[j].Entity.Service
			s.bySvc[svc] = append(s.bySvc[svc], j)
		}
	}
	var out []int
	seen := map[string]bool{}
	for _, svc := range svcs {
		if !seen[svc] {
			seen[svc] = true
			out = append(out, s.bySvc[svc]...)
		}
	}
	sort.Slice(out, func(a, b int) bool { return s.pos[out[a]] < s.pos[out[b]] })
	return out
}

// changeNode reports whether a node is a change: a service's change step
// or a rollout's contrast of its new pods with its old ones.
func changeNode(n *tcg.Node) bool {
	return n.Signal == ingest.SignalChange || n.Entity.Kind == ingest.KindRollout
}
