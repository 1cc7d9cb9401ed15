package tcg

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// siblingGraph is a graph of n pods of one service: pod i has a traffic
// node unless i%3 == 1, an errors node when i%2 == 0, a restarts node
// when i%5 == 0.
func siblingGraph(n int) (*Graph, []ingest.Entity) {
	g := &Graph{byID: map[string]int{}}
	var pods []ingest.Entity
	for i := range n {
		p := ingest.Entity{Kind: ingest.KindPod, Name: fmt.Sprintf("w-%05d", i), Service: "w"}
		pods = append(pods, p)
		for _, sig := range []ingest.SignalKind{ingest.SignalTraffic, ingest.SignalErrors, ingest.SignalRestarts} {
			if sig == ingest.SignalTraffic && i%3 == 1 || sig == ingest.SignalErrors && i%2 != 0 || sig == ingest.SignalRestarts && i%5 != 0 {
				continue
			}
			g.byID[nodeID(p, sig, FacetNone)] = len(g.Nodes)
			g.Nodes = append(g.Nodes, &Node{ID: nodeID(p, sig, FacetNone), Entity: p, Signal: sig})
		}
	}
	return g, pods
}

// TestSiblingEdgesMatchEveryPair: under the bound, the sibling edges are
// those of linking every pair of replicas, in the same order; past it,
// each replica that can fail links to a bounded number of siblings and
// the graph says so.
func TestSiblingEdgesMatchEveryPair(t *testing.T) {
	g, pods := siblingGraph(60)
	naive := &edgeBuilder{g: g, seen: map[[2]int]int{}}
	for _, p := range pods {
		for _, q := range pods {
			if p.Name == q.Name {
				continue
			}
			to := g.find(q, ingest.SignalTraffic, FacetNone)
			for _, sig := range []ingest.SignalKind{ingest.SignalRestarts, ingest.SignalErrors} {
				naive.add(g.find(p, sig, FacetNone), to, EdgePlacement, 0.6, "x")
			}
		}
	}
	want := slices.Clone(g.Edges)
	g.Edges = nil
	eb := &edgeBuilder{g: g, seen: map[[2]int]int{}}
	s := g.newSiblings(pods)
	for i := range pods {
		s.link(eb, i)
	}
	if len(want) == 0 || len(g.Edges) != len(want) {
		t.Fatalf("%d edges, every pair gives %d", len(g.Edges), len(want))
	}
	for k := range want {
		if g.Edges[k].From != want[k].From || g.Edges[k].To != want[k].To {
			t.Fatalf("edge %d: %d→%d, every pair gives %d→%d", k, g.Edges[k].From, g.Edges[k].To, want[k].From, want[k].To)
		}
	}
	if w := s.warning("w", len(pods)); w != "" {
		t.Errorf("warning under the bound: %s", w)
	}

	// Past the bound (36 sources × 40 targets > 600).
	defer func(old int) { maxSiblingEdges = old }(maxSiblingEdges)
	maxSiblingEdges = 600
	g.Edges = nil
	g.Edges = nil
	eb = &edgeBuilder{g: g, seen: map[[2]int]int{}}
	s = g.newSiblings(pods)
	for i := range pods {
		s.link(eb, i)
	}
	if s.per >= len(s.targets) || len(g.Edges) > 2*maxSiblingEdges || len(g.Edges) < maxSiblingEdges/2 {
		t.Errorf("past the bound: %d per source of %d targets, %d edges", s.per, len(s.targets), len(g.Edges))
	}
	if w := s.warning("w", len(pods)); w == "" {
		t.Error("no warning past the bound")
	}
}
