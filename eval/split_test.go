package eval

import (
	"fmt"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestCaseHalves checks the split: within a set each fault's cases
// alternate between the halves (a fault with two cases has one in each),
// the halves differ by at most one case, and the assignment is a function
// of the set's ids and faults only (the order the cases come in does not
// matter).
func TestCaseHalves(t *testing.T) {
	var cs []splitCase
	for _, set := range []string{"s1", "s2"} {
		for f := 0; f < 5; f++ {
			for k := 0; k <= f%3; k++ {
				id := fmt.Sprintf("%s-f%d-%d", set, f, k)
				cs = append(cs, splitCase{dir: "/d/" + id, id: id, set: set, fault: fmt.Sprint("f", f)})
			}
		}
	}
	h := caseHalves(cs)
	rev := make([]splitCase, len(cs))
	for i := range cs {
		rev[len(cs)-1-i] = cs[i]
	}
	h2 := caseHalves(rev)
	perFault := map[string]map[string]int{}
	perSet := map[string]map[string]int{}
	for _, c := range cs {
		if h[c.dir] != h2[c.dir] {
			t.Errorf("%s: %s in one order, %s in another", c.id, h[c.dir], h2[c.dir])
		}
		if h[c.dir] != SplitDesign && h[c.dir] != SplitCheck {
			t.Fatalf("%s: half %q", c.id, h[c.dir])
		}
		k := c.set + "/" + c.fault
		if perFault[k] == nil {
			perFault[k] = map[string]int{}
		}
		perFault[k][h[c.dir]]++
		if perSet[c.set] == nil {
			perSet[c.set] = map[string]int{}
		}
		perSet[c.set][h[c.dir]]++
	}
	for k, m := range perFault {
		if m[SplitDesign]+m[SplitCheck] == 2 && (m[SplitDesign] != 1 || m[SplitCheck] != 1) {
			t.Errorf("%s: two cases split %v, want one in each half", k, m)
		}
	}
	for s, m := range perSet {
		if d := m[SplitDesign] - m[SplitCheck]; d < -1 || d > 1 {
			t.Errorf("set %s: halves %v differ by more than one case", s, m)
		}
	}
}

// TestComponentMatchesStrict pins the strict component rule: an edge is
// never a hit, a GPU or node is not a hit for the pod it serves, an edge
// label is hit by its callee, a release label by the rollout or the
// service's change.
func TestComponentMatchesStrict(t *testing.T) {
	cand := func(svc, comp string, kind ingest.EntityKind, sig ingest.SignalKind) causal.Candidate {
		return causal.Candidate{Node: -1, Service: svc, Component: comp, ComponentKind: kind, Signal: sig}
	}
	for _, tt := range []struct {
		name              string
		c                 causal.Candidate
		isEnt             bool
		comp, svc, signal string
		want              bool
	}{
		{"pod itself", cand("qdrant", "qdrant-0", ingest.KindPod, ingest.SignalLatency), true, "qdrant-0", "qdrant", "", true},
		{"edge to the pod", cand("qdrant", "rag->qdrant", ingest.KindEdge, ingest.SignalLatency), true, "qdrant-0", "qdrant", "", false},
		{"node of the pod", cand("qdrant", "cpu-node-2", ingest.KindNode, ingest.SignalCPU), true, "qdrant-0", "qdrant", "", false},
		{"sibling pod", cand("vllm", "vllm-2", ingest.KindPod, ingest.SignalLatency), true, "vllm-1", "vllm", "", false},
		{"gpu itself", cand("vllm", "GPU-1", ingest.KindGPU, ingest.SignalCPU), true, "GPU-1", "vllm", "", true},
		{"pod of the gpu", cand("vllm", "vllm-1", ingest.KindPod, ingest.SignalLatency), true, "GPU-1", "vllm", "", false},
		{"workload label, its pod", cand("tokenizer", "tokenizer-abc12-x7k2p", ingest.KindPod, ingest.SignalCPU), true, "tokenizer", "tokenizer", "", true},
		{"workload label, its node", cand("tokenizer", "cpu-node-1", ingest.KindNode, ingest.SignalCPU), true, "tokenizer", "tokenizer", "", false},
		{"edge label, callee", cand("search-api", "search-api", ingest.KindService, ingest.SignalLatency), true, "tool->search-api", "search-api", "", true},
		{"edge label, the edge", cand("search-api", "tool->search-api", ingest.KindEdge, ingest.SignalLatency), true, "tool->search-api", "search-api", "", false},
		{"release label, rollout", cand("cart", "cart-v2", ingest.KindRollout, ingest.SignalErrors), false, "cart-v2", "cart", "change", true},
		{"release label, change", cand("cart", "cart", ingest.KindService, ingest.SignalChange), false, "cart-v2", "cart", "change", true},
		{"release label, old pod", cand("cart", "cart-v1-57684b474b-x7k2p", ingest.KindPod, ingest.SignalErrors), false, "cart-v2", "cart", "change", false},
		{"deployment label, rollout", cand("router", "router-vxv2hxtj5l", ingest.KindRollout, ingest.SignalLatency), false, "deployment/router", "router", "deploy", true},
		{"deployment label, latency", cand("router", "router", ingest.KindService, ingest.SignalLatency), false, "deployment/router", "router", "deploy", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := componentMatches(tt.c, nil, tt.isEnt, tt.comp, tt.svc, tt.signal); got != tt.want {
				t.Errorf("componentMatches(%s %s/%s, label %s) = %v, want %v", tt.c.Service, tt.c.ComponentKind, tt.c.Component, tt.comp, got, tt.want)
			}
		})
	}
}
