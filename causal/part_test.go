package causal

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// partGraph builds a graph of the given nodes (only what partOf reads:
// nodes, single pods and placements).
func partGraph(nodes []*tcg.Node, single map[string]string, podsOn map[string][]ingest.Entity) *tcg.Graph {
	if single == nil {
		single = map[string]string{}
	}
	return &tcg.Graph{Nodes: nodes, SinglePod: single, PodsOn: podsOn, Target: -1}
}

func partNode(ent ingest.Entity, sig ingest.SignalKind, f tcg.Facet, anomalous bool, score float64, onset int) *tcg.Node {
	n := &tcg.Node{Entity: ent, Signal: sig, Facet: f}
	n.ID = ent.ID() + ":" + sig.String()
	if f != tcg.FacetNone {
		n.ID += "/" + string(f)
	}
	n.Anomalous, n.Score, n.OnsetIdx = anomalous, score, onset
	return n
}

func edgeEnt(caller, callee string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindEdge, Name: caller + "->" + callee, Caller: caller, Callee: callee, Service: callee}
}

func podEnt(name, svc string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindPod, Name: name, Service: svc}
}

// TestPartOf: an edge resolves to its callee's replica when the callee's
// own side moved, to the network of the end the moved calls share when it
// did not; a node's pressure to the one workload whose own use moved with
// it; a replica to its workload when its siblings moved alike. No part is
// ever an edge.
func TestPartOf(t *testing.T) {
	lat, cpu := ingest.SignalLatency, ingest.SignalCPU
	for _, tc := range []struct {
		name   string
		nodes  []*tcg.Node
		single map[string]string
		podsOn map[string][]ingest.Entity
		cand   int
		kind   ingest.EntityKind
		part   string
		whyHas string
	}{
		{"edge, callee's replica moved", []*tcg.Node{
			partNode(edgeEnt("rag", "qdrant"), lat, tcg.FacetClient, true, 20, 10),
			partNode(podEnt("qdrant-0", "qdrant"), lat, tcg.FacetNone, true, 15, 10),
			partNode(podEnt("qdrant-1", "qdrant"), lat, tcg.FacetNone, false, 1, -1),
		}, nil, nil, 0, ingest.KindPod, "qdrant-0", "callee's own side moved"},
		{"edge, callee did not move: the callee's network (every caller slowed)", []*tcg.Node{
			partNode(edgeEnt("checkout", "cart"), lat, tcg.FacetClient, true, 80, 10),
			partNode(edgeEnt("frontend", "cart"), lat, tcg.FacetClient, true, 90, 10),
			partNode(ingest.Entity{Kind: ingest.KindService, Name: "cart", Service: "cart"}, lat, tcg.FacetNone, false, 0.5, -1),
		}, map[string]string{"cart": "cart-579f59597d-wc2lz"}, nil, 0, ingest.KindPod, "cart-579f59597d-wc2lz", "network"},
		{"edge, the caller's calls all slowed, the callee's other caller did not", []*tcg.Node{
			partNode(edgeEnt("checkout", "cart"), lat, tcg.FacetClient, true, 80, 10),
			partNode(edgeEnt("checkout", "email"), lat, tcg.FacetClient, true, 70, 10),
			partNode(edgeEnt("frontend", "cart"), lat, tcg.FacetClient, false, 1, -1),
		}, map[string]string{"checkout": "checkout-578fcf4766-9csqn", "cart": "cart-579f59597d-wc2lz"}, nil, 0, ingest.KindPod, "checkout-578fcf4766-9csqn", "shared end is checkout"},
		{"node pressure from one workload's own use", []*tcg.Node{
			partNode(ingest.Entity{Kind: ingest.KindNode, Name: "cpu-node-1"}, cpu, tcg.FacetNone, true, 11, 10),
			partNode(podEnt("tok-xn27c9qcg-l9rdw", "tok"), cpu, tcg.FacetNone, true, 9, 10),
			partNode(podEnt("gw-v7p8488d2t-7d5hv", "gw"), lat, tcg.FacetNone, true, 5, 12),
		}, nil, map[string][]ingest.Entity{"node/cpu-node-1": {podEnt("gw-v7p8488d2t-7d5hv", "gw"), podEnt("tok-xn27c9qcg-l9rdw", "tok")}},
			0, ingest.KindPod, "tok-xn27c9qcg-l9rdw", "own use of tok"},
		{"node pressure shared by two workloads stays the node's", []*tcg.Node{
			partNode(ingest.Entity{Kind: ingest.KindNode, Name: "cpu-node-1"}, cpu, tcg.FacetNone, true, 11, 10),
			partNode(podEnt("tok-xn27c9qcg-l9rdw", "tok"), cpu, tcg.FacetNone, true, 9, 10),
			partNode(podEnt("gw-v7p8488d2t-7d5hv", "gw"), cpu, tcg.FacetNone, true, 8, 10),
		}, nil, map[string][]ingest.Entity{"node/cpu-node-1": {podEnt("gw-v7p8488d2t-7d5hv", "gw"), podEnt("tok-xn27c9qcg-l9rdw", "tok")}},
			0, ingest.KindNode, "cpu-node-1", ""},
		{"replicas that moved alike are their workload", []*tcg.Node{
			partNode(podEnt("tok-xn27c9qcg-l9rdw", "tok"), ingest.SignalCPUThrottle, tcg.FacetNone, true, 9, 10),
			partNode(podEnt("tok-xn27c9qcg-cgxcg", "tok"), ingest.SignalCPUThrottle, tcg.FacetNone, true, 8, 10),
		}, nil, nil, 0, ingest.KindService, "tok", "moved alike"},
		{"a replica alone is itself", []*tcg.Node{
			partNode(podEnt("vllm-1", "vllm"), ingest.SignalKVCache, tcg.FacetNone, true, 9, 10),
			partNode(podEnt("vllm-0", "vllm"), ingest.SignalKVCache, tcg.FacetNone, true, 2, 10),
		}, nil, nil, 0, ingest.KindPod, "vllm-1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := partGraph(tc.nodes, tc.single, tc.podsOn)
			p := partOf(g, tc.cand)
			if p.Kind != tc.kind || p.Name != tc.part {
				t.Fatalf("part %s/%s (%s), want %s/%s", p.Kind, p.Name, p.Why, tc.kind, tc.part)
			}
			if p.Kind == ingest.KindEdge {
				t.Fatal("an edge is never a part")
			}
			if tc.whyHas != "" && !strings.Contains(p.Why, tc.whyHas) {
				t.Errorf("why %q, want it to say %q", p.Why, tc.whyHas)
			}
			if tc.whyHas != "" && p.Via != tc.nodes[tc.cand].Entity.ID() {
				t.Errorf("via %q, want %q", p.Via, tc.nodes[tc.cand].Entity.ID())
			}
		})
	}
}
