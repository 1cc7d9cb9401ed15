package causal

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// The two rules that order the scored candidates after the scores:
// within a service, an anomalous ancestor first (ancestorsFirst); across
// services, no content signal that explains nothing first (contentNotFirst).

// ancestorsFirst puts, within each service, an anomalous ancestor of the
// service's best candidate first when it scores within margin of it: of
// two anomalous signals of one workload where one is upstream of the
// other (a GPU and the pod's errors it causes), the upstream one is the
// component to look at. The promoted node takes the best one's place and
// score; the service ranking is unchanged.
//
// A promotion moves one candidate of a service to just before that
// service's first, so it changes neither which candidate comes first in
// any other service nor the order of the others: each service is decided
// on its own candidates, in their order, and the list is rebuilt once.
// O(C + Σ_s ancestors of s's best) for C candidates.
func ancestorsFirst(g *tcg.Graph, sp *anomalySpace, cands []scored, margin float64) []scored {
	if margin <= 0 {
		return cands
	}
	svcOf := func(c scored) string {
		n := g.Nodes[c.node]
		if n.Entity.Service != "" {
			return n.Entity.Service
		}
		return n.Entity.Name
	}
	bySvc := map[string][]int{} // positions of each service's candidates, in order
	var services []string       // by first position
	for k, c := range cands {
		s := svcOf(c)
		if _, ok := bySvc[s]; !ok {
			services = append(services, s)
		}
		bySvc[s] = append(bySvc[s], k)
	}
	promote := map[int]int{} // a service's first position → the position promoted before it
	moved := map[int]bool{}
	for _, s := range services {
		pos := bySvc[s]
		if len(pos) < 2 {
			continue
		}
		best := cands[pos[0]]
		anc := sp.ancestors(best.node)
		pick := -1
		for _, j := range pos[1:] {
			c := cands[j]
			if !anc[c.node] || c.score < best.score-margin {
				continue
			}
			if pick < 0 || c.score > cands[pick].score {
				pick = j
			}
		}
		if pick >= 0 {
			promote[pos[0]] = pick
			moved[pick] = true
		}
	}
	if len(promote) == 0 {
		return cands
	}
	out := make([]scored, 0, len(cands))
	for k, c := range cands {
		if moved[k] {
			continue
		}
		if pick, ok := promote[k]; ok {
			up := cands[pick]
			up.score = c.score
			out = append(out, up)
		}
		out = append(out, c)
	}
	return out
}

// contentNotFirst keeps a content signal that explains under minShare of
// the target's deviation from ranking first: what a component logs or
// which operations it runs changes with what its callers and callees do,
// so without a share of the target to show for it, it is at least as
// likely an effect as the cause. The first candidate that is not such a
// signal moves to the front, and the content signals it passed score just
// below it (so that the services' probabilities follow the order); the
// rest keep their order and scores. When every candidate is one, the
// order stands.
//
// The rule needs a deviation to explain: when the target's own deviation
// is under the detection threshold (a code fault that changes what
// requests do, not how long they take), every candidate explains "0%" of
// noise, and holding content back would be a prior on the kind of signal
// rather than evidence — the order of the scores stands.
func contentNotFirst(g *tcg.Graph, cands []scored, minShare float64) []scored {
	weak := func(c scored) bool {
		n := g.Nodes[c.node]
		return contentSignal(n.Signal, string(n.Facet)) && c.terms[TermTargetShare] < minShare
	}
	if len(cands) == 0 || !weak(cands[0]) || !targetMoved(g) {
		return cands
	}
	for j := 1; j < len(cands); j++ {
		if !weak(cands[j]) {
			c := cands[j]
			copy(cands[1:j+1], cands[:j])
			cands[0] = c
			for k := 1; k <= j; k++ {
				cands[k].score = math.Min(cands[k].score, math.Nextafter(c.score, math.Inf(-1)))
			}
			return cands
		}
	}
	return cands
}

// targetMoved reports whether the target's deviation in the window reaches
// the graph's detection threshold (a graph without a target has none).
func targetMoved(g *tcg.Graph) bool {
	if g.Target < 0 {
		return false
	}
	th := g.Threshold
	if th <= 0 {
		th = tcg.DefaultThreshold
	}
	return g.Nodes[g.Target].Score >= th
}
