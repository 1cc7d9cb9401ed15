package tcg

import (
	"fmt"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// maxSiblingEdges bounds the edges between one service's replicas: a
// failing replica's requests move to its siblings, an edge from each
// replica's restarts and errors to each sibling's traffic, which is
// quadratic in replicas. Up to this many (source, sibling) pairs every
// pair is linked; past it each source links to the siblings that follow it
// in name order (wrapping), as many as the bound allows per source, and
// the graph warns (issue 44: a workload of 100,000 replicas). A variable
// only so that the tests can lower it.
var maxSiblingEdges = 2_000_000

// siblings is one service's replicas with the nodes the sibling edges
// join: each replica's restarts and errors nodes (sources) and the
// replicas with a traffic node (targets, in pod order). Found once per
// service, O(replicas) lookups, instead of once per pair.
type siblings struct {
	restarts, errors []int // per pod, -1 for none
	targets          []int // indices of pods with a traffic node
	traffic          []int // per pod, -1 for none
	per              int   // targets linked per source (all when ≥ len(targets))
	sources          int
}

// newSiblings finds the nodes of pods' sibling edges.
func (g *Graph) newSiblings(pods []ingest.Entity) *siblings {
	s := &siblings{restarts: make([]int, len(pods)), errors: make([]int, len(pods)), traffic: make([]int, len(pods))}
	for i, p := range pods {
		s.restarts[i] = g.find(p, ingest.SignalRestarts, FacetNone)
		s.errors[i] = g.find(p, ingest.SignalErrors, FacetNone)
		s.traffic[i] = g.find(p, ingest.SignalTraffic, FacetNone)
		if s.traffic[i] >= 0 {
			s.targets = append(s.targets, i)
		}
		if s.restarts[i] >= 0 || s.errors[i] >= 0 {
			s.sources++
		}
	}
	s.per = len(s.targets)
	if s.sources*len(s.targets) > maxSiblingEdges {
		s.per = max(1, maxSiblingEdges/s.sources)
	}
	return s
}

// link adds pod i's edges to its siblings' traffic, in pod order: what
// linking every pair q ≠ i gives, restarts before errors (under the
// bound), else to the next s.per targets after it.
func (s *siblings) link(eb *edgeBuilder, i int) {
	from := [2]int{s.restarts[i], s.errors[i]}
	if from[0] < 0 && from[1] < 0 {
		return
	}
	const why = "replicas share the service's load: a failing replica's requests move to its siblings"
	add := func(q int) {
		if q == i {
			return
		}
		for _, f := range from {
			eb.add(f, s.traffic[q], EdgePlacement, 0.6, why)
		}
	}
	if s.per >= len(s.targets) {
		for _, q := range s.targets {
			add(q)
		}
		return
	}
	// The first target after i, then onwards, wrapping.
	k := 0
	for k < len(s.targets) && s.targets[k] <= i {
		k++
	}
	for n := 0; n < s.per; n++ {
		add(s.targets[(k+n)%len(s.targets)])
	}
}

// warning says when the bound cut the sibling edges of svc ("" when not).
func (s *siblings) warning(svc string, pods int) string {
	if s.per >= len(s.targets) {
		return ""
	}
	return fmt.Sprintf("service %s: %d replicas; a failing replica's requests moving to its siblings links each of the %d that can fail to the next %d of the %d with traffic, not to all (%d pairs at most)",
		svc, pods, s.sources, s.per, len(s.targets), maxSiblingEdges)
}
