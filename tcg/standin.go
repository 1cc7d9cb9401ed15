package tcg

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// standInSignals are the signals a service's callers measure of it on
// their calls: whether its answers fail and how long they take.
var standInSignals = []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency}

// standIns adds, to the nodes being grouped (groups: node ID → series,
// meta: node ID → node), a node for a service's errors or latency that no
// series of the service or its pods measures but its callers' call edges
// do (a service mesh's per-call metrics): the service as its callers see
// it, made of those edges' callee-side series. Without it nothing joins a
// callee's failures to its callers' (the call-edge rules need the
// service's own node at each end).
//
// The target service gets, when it has no node of the target's signal and
// no caller measures it, a node made of its own calls' series (what it sees
// fail or wait for); the returned warning says so ("" when not needed).
// O(nodes).
func standIns(groups map[string][]*ingest.Series, meta map[string]*Node, t Target) string {
	own := map[string]bool{} // service|signal measured by the service or its pods
	type key struct {
		svc string
		sig ingest.SignalKind
	}
	into, from := map[key][]string{}, map[key][]string{} // edge node IDs by callee, by caller
	for _, id := range slices.Sorted(maps.Keys(meta)) {
		n := meta[id]
		switch n.Entity.Kind {
		case ingest.KindService, ingest.KindPod:
			if n.Facet == FacetNone && n.Entity.Service != "" {
				own[n.Entity.Service+"|"+n.Signal.String()] = true
			}
		case ingest.KindEdge:
			if n.Entity.Caller == n.Entity.Callee {
				continue
			}
			switch {
			case n.Signal == ingest.SignalErrors && n.Facet == FacetNone,
				n.Signal == ingest.SignalLatency && (n.Facet == FacetServer || n.Facet == FacetNone):
				into[key{n.Entity.Callee, n.Signal}] = append(into[key{n.Entity.Callee, n.Signal}], id)
			}
			switch {
			case n.Signal == ingest.SignalErrors && n.Facet == FacetNone,
				n.Signal == ingest.SignalLatency && (n.Facet == FacetClient || n.Facet == FacetNone):
				from[key{n.Entity.Caller, n.Signal}] = append(from[key{n.Entity.Caller, n.Signal}], id)
			}
		}
	}
	add := func(svc string, sig ingest.SignalKind, edges []string, kind StandIn) {
		ent := svcEntity(svc)
		id := nodeID(ent, sig, FacetNone)
		var ss []*ingest.Series
		for _, e := range edges {
			ss = append(ss, groups[e]...)
		}
		if len(ss) == 0 {
			return
		}
		meta[id] = &Node{ID: id, Entity: ent, Signal: sig, StandIn: kind}
		groups[id] = ss
		own[svc+"|"+sig.String()] = true
	}
	for _, k := range slices.SortedFunc(maps.Keys(into), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.svc, b.svc), cmp.Compare(a.sig, b.sig))
	}) {
		if !own[k.svc+"|"+k.sig.String()] && slices.Contains(standInSignals, k.sig) {
			add(k.svc, k.sig, into[k], StandInCallers)
		}
	}
	if t.Service == "" || !slices.Contains(standInSignals, t.Signal) || own[t.Service+"|"+t.Signal.String()] {
		return ""
	}
	edges := from[key{t.Service, t.Signal}]
	if len(edges) == 0 {
		return ""
	}
	add(t.Service, t.Signal, edges, StandInCalls)
	return fmt.Sprintf("%s has no %s series of its own: the %s of its calls to its callees stand for it", t.Service, t.Signal, t.Signal)
}
