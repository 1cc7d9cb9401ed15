package tcg

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"gonum.org/v1/gonum/stat"
)

// EdgeKind says where an edge's knowledge comes from.
type EdgeKind uint8

// Edge kinds, strongest evidence first.
const (
	EdgeCall      EdgeKind = iota + 1 // call topology (traces, dependencies, service-graph metrics)
	EdgePlacement                     // pod→service, node/GPU→pods placed on them
	EdgeComponent                     // within one component: saturation → latency → errors
	EdgeLagged                        // lagged dependence estimated from the data (weaker)
)

var edgeKindNames = [...]string{"", "call", "placement", "component", "lagged"}

func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return "edge?"
}

// Edge is a directed cause → effect edge.
type Edge struct {
	From, To   int
	Kind       EdgeKind
	Lag        time.Duration // best lag of To behind From
	LagSteps   int
	Confidence float64 // how sure we are the edge exists, 0..1
	Reason     string
}

// buildEdges adds the graph's edges, every one from the data: call
// topology (traces, dependencies, service-graph and edge metrics),
// placement (pod → service, device → the work placed on it) and the
// generic order inside a component (traffic → saturation → latency →
// errors). Where neither says anything, lagged correlation between
// anomalous nodes adds weak edges. No edge encodes one fault's physics.
func (g *Graph) buildEdges(b *ingest.Bundle, opt Options) {
	eb := g.newEdgeBuilder(opt)
	g.componentEdges(eb)
	calls := callTopology(g, b)
	g.calls = calls
	g.callEdges(eb, calls)
	podsOn := g.placements(b)
	g.PodsOn = podsOn
	g.placementEdges(eb, podsOn)
	g.rolloutEdges(eb)
	g.callsEdges(eb)
	g.peerEdges(eb, podsOn)
	topo := map[string]bool{}
	for _, c := range calls {
		topo[c.caller], topo[c.callee] = true, true
	}
	// A node or GPU whose pods and services are all in the call graph is
	// placed in the topology too: its placement edges say where it acts.
	placedIn := map[string]bool{} // device entity ID → placed on known services only
	for id, ps := range podsOn {
		all := len(ps) > 0
		for _, p := range ps {
			all = all && topo[p.Service]
		}
		placedIn[id] = all
	}
	g.laggedEdges(opt, topo, placedIn, eb.add)
	// Every edge's best lag, on every CPU: a pure function of its ends
	// (add only records the edges). O(edges · cells · lags).
	parallel.For(len(g.Edges), 256, func(k int) {
		e := &g.Edges[k]
		lag, _ := g.bestLag(e.From, e.To, eb.maxLag)
		e.LagSteps, e.Lag = lag, time.Duration(lag)*g.Step
	})
	g.in = make([][]int, len(g.Nodes))
	g.out = make([][]int, len(g.Nodes))
	for ei, e := range g.Edges {
		g.out[e.From] = append(g.out[e.From], ei)
		g.in[e.To] = append(g.in[e.To], ei)
	}
}

// edgeBuilder adds deduplicated edges with their best lag.
type edgeBuilder struct {
	g      *Graph
	seen   map[[2]int]int
	maxLag int
}

func (g *Graph) newEdgeBuilder(opt Options) *edgeBuilder {
	maxLag := int(opt.LagWindow / g.Step)
	if maxLag > 3 {
		maxLag = 3
	}
	return &edgeBuilder{g: g, seen: map[[2]int]int{}, maxLag: maxLag}
}

// add adds from → to, or raises an existing edge's confidence (and takes
// its kind and reason) when the new evidence is stronger. Self edges and
// missing ends (-1) are ignored.
func (eb *edgeBuilder) add(from, to int, kind EdgeKind, conf float64, reason string) {
	g := eb.g
	if from < 0 || to < 0 || from == to {
		return
	}
	k := [2]int{from, to}
	if old, ok := eb.seen[k]; ok {
		if g.Edges[old].Confidence < conf {
			g.Edges[old].Confidence, g.Edges[old].Kind, g.Edges[old].Reason = conf, kind, reason
		}
		return
	}
	eb.seen[k] = len(g.Edges)
	// Lag and LagSteps are set once every edge is known (buildEdges).
	g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: kind, Confidence: conf, Reason: reason})
}

func (eb *edgeBuilder) addAll(from, to []int, kind EdgeKind, conf float64, reason string) {
	for _, f := range from {
		for _, t := range to {
			eb.add(f, t, kind, conf, reason)
		}
	}
}

// find returns the node of an entity's signal and facet, or -1.
func (g *Graph) find(ent ingest.Entity, sig ingest.SignalKind, f Facet) int {
	return g.NodeByID(nodeID(g.canon(ent), sig, f))
}

func one(i int) []int {
	if i < 0 {
		return nil
	}
	return []int{i}
}

func svcEntity(name string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindService, Name: name, Service: name}
}

// componentEdges adds the generic order inside one component (one entity):
// change → traffic → saturation → latency → errors, and a service's own
// work (its exclusive time) → its latency. Restarts count as saturation; a
// change (rollout, configuration) precedes everything the component does.
func (g *Graph) componentEdges(eb *edgeBuilder) {
	byEnt := map[string][]int{}
	for i, n := range g.Nodes {
		byEnt[n.Entity.ID()] = append(byEnt[n.Entity.ID()], i)
	}
	for _, id := range slices.Sorted(maps.Keys(byEnt)) {
		if g.Nodes[byEnt[id][0]].Entity.Kind == ingest.KindRollout {
			continue // a rollout's contrasts are parallel views of one change, not a chain (rolloutEdges)
		}
		var lat, self, errs, traffic, sat, change, logs []int
		for _, i := range byEnt[id] {
			n := g.Nodes[i]
			switch {
			case n.Facet == FacetPeers:
				// a contrast with peers: its edges are peerEdges'
			case n.Facet == FacetCalls:
				// the calls its requests make: callsEdges'
			case n.Signal == ingest.SignalChange:
				change = append(change, i)
			case n.Signal == ingest.SignalLogs:
				logs = append(logs, i)
			case n.Signal == ingest.SignalLatency && n.Facet == FacetSelf:
				self = append(self, i)
			case n.Signal == ingest.SignalLatency && n.Facet == FacetNone:
				lat = append(lat, i)
			case n.Signal == ingest.SignalErrors:
				errs = append(errs, i)
			case n.Signal == ingest.SignalTraffic:
				traffic = append(traffic, i)
			case n.Signal.Saturation() || n.Signal == ingest.SignalRestarts:
				sat = append(sat, i)
			}
		}
		work := append(append([]int{}, self...), lat...)
		for _, c := range change {
			for _, i := range byEnt[id] {
				if i != c && g.Nodes[i].Signal != ingest.SignalChange {
					eb.add(c, i, EdgeComponent, 0.8, "a deployment or configuration change is a new mechanism for the component")
				}
			}
		}
		eb.addAll(traffic, sat, EdgeComponent, 0.7, "load drives saturation")
		eb.addAll(traffic, work, EdgeComponent, 0.6, "load drives latency")
		eb.addAll(sat, work, EdgeComponent, 0.8, "saturation slows the component")
		eb.addAll(sat, errs, EdgeComponent, 0.6, "saturation can fail requests")
		eb.addAll(self, lat, EdgeComponent, 0.9, "own work is part of the latency")
		eb.addAll(lat, errs, EdgeComponent, 0.6, "slow requests time out")
		// Logs record what the component does. Their volume follows its
		// load; what they say — error records, templates new since the
		// baseline, templates that stopped, a shifted mix — is the most
		// direct sight of a changed code path, which the component's
		// responses (errors, latency) then show: the log line is written
		// before the response is sent.
		var volume, content []int
		for _, i := range logs {
			if g.Nodes[i].Facet == FacetRecords {
				volume = append(volume, i)
			} else {
				content = append(content, i)
			}
		}
		eb.addAll(traffic, volume, EdgeComponent, 0.6, "load drives what is logged")
		eb.addAll(sat, content, EdgeComponent, 0.5, "saturation shows in the logs")
		eb.addAll(content, errs, EdgeComponent, 0.6, "a changed code path fails requests")
		eb.addAll(content, work, EdgeComponent, 0.5, "a changed code path changes the work done")
	}
}

// call is one caller → callee pair of the call topology.
type call struct {
	caller, callee string
	conf           float64
}

// callTopology collects caller → callee pairs from dependencies and from
// call-edge nodes (span-derived or edge metrics), sorted.
func callTopology(g *Graph, b *ingest.Bundle) []call {
	var edges []*ingest.Series
	for _, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindEdge {
			edges = append(edges, n.Series[0])
		}
	}
	return topologyOf(b.Deps, edges)
}

// CallPairs is a bundle's call topology as the graph's call edges follow
// it: the caller → callee pairs of its dependencies and of its call-edge
// series (span-derived or edge metrics), sorted, a service calling itself
// left out. Package compare orders regressions along it.
func CallPairs(b *ingest.Bundle) [][2]string {
	calls := bundleTopology(b)
	out := make([][2]string, len(calls))
	for i, c := range calls {
		out[i] = [2]string{c.caller, c.callee}
	}
	return out
}

// bundleTopology is the call topology of a bundle's dependencies and of
// the call-edge series the graph's nodes are made of (aligned, named).
func bundleTopology(b *ingest.Bundle) []call {
	var edges []*ingest.Series
	for _, s := range b.Series {
		if s.Aligned && s.Entity.Kind == ingest.KindEdge && s.Entity.Name != "" {
			edges = append(edges, s)
		}
	}
	return topologyOf(b.Deps, edges)
}

// topologyOf is the caller → callee pairs of the dependencies (confidence
// 0.85) and of call-edge series (0.9 for span-derived ones, else 0.85),
// sorted; a service calling itself is left out.
func topologyOf(deps []ingest.Dependency, edges []*ingest.Series) []call {
	type pair struct{ a, b string }
	conf := map[pair]float64{}
	for _, d := range deps {
		if d.Parent != d.Child {
			conf[pair{d.Parent, d.Child}] = math.Max(conf[pair{d.Parent, d.Child}], 0.85)
		}
	}
	for _, s := range edges {
		if e := s.Entity; e.Kind == ingest.KindEdge && e.Caller != e.Callee {
			c := 0.85
			if s.Source == ingest.DerivedSource {
				c = 0.9
			}
			k := pair{e.Caller, e.Callee}
			conf[k] = math.Max(conf[k], c)
		}
	}
	out := make([]call, 0, len(conf))
	for k, c := range conf {
		out = append(out, call{k.a, k.b, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].caller != out[j].caller {
			return out[i].caller < out[j].caller
		}
		return out[i].callee < out[j].callee
	})
	return out
}

// callEdges adds, per call A → B: B's latency → the call's server side →
// its client side ← the network/queueing gap, and the client side → A's
// latency (B's latency → A's directly when the call has no latency node);
// B's errors → the call's errors → A's errors; A's traffic → the call's →
// B's. The gap is measured on the caller, so A's own saturation and work
// are parents of it too: a starved caller delays its own client spans.
func (g *Graph) callEdges(eb *edgeBuilder, calls []call) {
	type podSig struct {
		svc string
		sig ingest.SignalKind
	}
	podsBySig := map[podSig][]int{}
	for i, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindPod && n.Facet == FacetNone && n.Entity.Service != "" {
			k := podSig{n.Entity.Service, n.Signal}
			podsBySig[k] = append(podsBySig[k], i)
		}
	}
	// svcNodes returns a service's node for a signal, or, when the service
	// has none (metrics only at pod level), its pods' nodes.
	svcNodes := func(name string, sig ingest.SignalKind) []int {
		if i := g.find(svcEntity(name), sig, FacetNone); i >= 0 {
			return []int{i}
		}
		return podsBySig[podSig{name, sig}]
	}
	for _, c := range calls {
		conf := c.conf
		edge := ingest.Entity{Kind: ingest.KindEdge, Name: c.caller + "->" + c.callee}
		aLat, bLat := svcNodes(c.caller, ingest.SignalLatency), svcNodes(c.callee, ingest.SignalLatency)
		cl := one(g.find(edge, ingest.SignalLatency, FacetClient))
		sv := one(g.find(edge, ingest.SignalLatency, FacetServer))
		gap := one(g.find(edge, ingest.SignalLatency, FacetGap))
		// The caller's pods see the same calls as the caller.
		callers := append(append([]int{}, aLat...), podsBySig[podSig{c.caller, ingest.SignalLatency}]...)
		eb.addAll(bLat, sv, EdgeCall, conf, "callee latency is the call's server side")
		eb.addAll(sv, cl, EdgeCall, conf, "server side is part of the caller's view")
		eb.addAll(gap, cl, EdgeCall, conf, "network/queueing gap is part of the caller's view")
		switch {
		case len(cl) > 0:
			eb.addAll(cl, callers, EdgeCall, conf, "the call's client-side latency adds to the caller")
		case len(sv) > 0 || len(gap) > 0:
			eb.addAll(sv, callers, EdgeCall, conf, "the call's server side adds to the caller")
			eb.addAll(gap, callers, EdgeCall, conf, "network/queueing gap adds to the caller")
		default:
			eb.addAll(bLat, callers, EdgeCall, conf, "callee latency adds to the caller's latency")
		}
		var callerSat []int
		for _, sig := range []ingest.SignalKind{ingest.SignalCPU, ingest.SignalCPUThrottle, ingest.SignalMemory} {
			callerSat = append(callerSat, svcNodes(c.caller, sig)...)
		}
		callerSat = append(callerSat, one(g.find(svcEntity(c.caller), ingest.SignalLatency, FacetSelf))...)
		eb.addAll(callerSat, gap, EdgeComponent, 0.7, "the gap is measured on the caller: a starved caller delays its own client spans")
		aErr := append(append([]int{}, svcNodes(c.caller, ingest.SignalErrors)...), podsBySig[podSig{c.caller, ingest.SignalErrors}]...)
		edgeErr := one(g.find(edge, ingest.SignalErrors, FacetNone))
		eb.addAll(svcNodes(c.callee, ingest.SignalErrors), edgeErr, EdgeCall, conf, "callee errors fail the calls")
		if len(edgeErr) > 0 {
			eb.addAll(edgeErr, aErr, EdgeCall, conf, "failed calls fail the caller")
		} else {
			eb.addAll(svcNodes(c.callee, ingest.SignalErrors), aErr, EdgeCall, conf, "callee errors propagate to the caller")
		}
		// A new version of the callee changes what its callers receive: a
		// wrong answer is a success to the callee's own measurements and a
		// failure (or a wait) to its caller's.
		for _, ch := range svcNodes(c.callee, ingest.SignalChange) {
			for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
				eb.addAll([]int{ch}, svcNodes(c.caller, sig), EdgeCall, 0.7, "a new version of a callee changes what its callers receive")
				eb.addAll([]int{ch}, one(g.find(edge, sig, FacetNone)), EdgeCall, 0.7, "a new version of a callee changes what its callers receive")
				eb.addAll([]int{ch}, one(g.find(edge, sig, FacetClient)), EdgeCall, 0.7, "a new version of a callee changes what its callers receive")
			}
		}
		// A change to the caller can change what its callees are asked to
		// do (routing, batching, payloads).
		for _, ch := range svcNodes(c.caller, ingest.SignalChange) {
			for _, sig := range []ingest.SignalKind{ingest.SignalTraffic, ingest.SignalLatency, ingest.SignalErrors} {
				eb.addAll([]int{ch}, svcNodes(c.callee, sig), EdgeCall, 0.6, "a changed caller changes the requests its callees get (and may send ones they reject)")
			}
			for _, j := range g.entityNodes(svcEntity(c.callee)) {
				if g.Nodes[j].Signal.Saturation() {
					eb.add(ch, j, EdgeCall, 0.6, "a changed caller changes the requests its callees get")
				}
			}
			for _, pod := range podsOfService(g, c.callee) {
				for _, j := range g.entityNodes(pod) {
					if sg := g.Nodes[j].Signal; sg.Saturation() || sg == ingest.SignalTraffic || sg == ingest.SignalLatency {
						eb.add(ch, j, EdgeCall, 0.6, "a changed caller changes the requests its callees get")
					}
				}
			}
		}
		// A callee's failures are logged again by its callers (the
		// exception travels up the call chain).
		var calleeFail, callerLogs []int
		calleeFail = append(calleeFail, svcNodes(c.callee, ingest.SignalErrors)...)
		calleeFail = append(calleeFail, edgeErr...)
		for _, f := range []Facet{FacetErrors, FacetNew, FacetMix, FacetMissing} {
			calleeFail = append(calleeFail, one(g.find(svcEntity(c.callee), ingest.SignalLogs, f))...)
		}
		for _, f := range []Facet{FacetErrors, FacetNew, FacetMix} {
			callerLogs = append(callerLogs, one(g.find(svcEntity(c.caller), ingest.SignalLogs, f))...)
		}
		eb.addAll(calleeFail, callerLogs, EdgeCall, conf*0.9, "a callee's failures are logged by its caller")
		// What a caller's requests do after a call follows the callee's
		// answer when the answer failed: its errors, its error records.
		callerPattern := one(g.find(svcEntity(c.caller), ingest.SignalLogs, FacetPattern))
		var calleeErr []int
		calleeErr = append(calleeErr, svcNodes(c.callee, ingest.SignalErrors)...)
		calleeErr = append(calleeErr, edgeErr...)
		calleeErr = append(calleeErr, one(g.find(svcEntity(c.callee), ingest.SignalLogs, FacetErrors))...)
		eb.addAll(calleeErr, callerPattern, EdgeCall, conf*0.9, "a caller handles its callee's failures")
		// What a callee is asked follows what its callers' requests do: a
		// caller whose requests changed asks for other operations.
		eb.add(g.find(svcEntity(c.caller), ingest.SignalLogs, FacetPattern), g.find(svcEntity(c.callee), ingest.SignalTraffic, FacetMix),
			EdgeCall, conf*0.8, "a caller whose requests changed asks its callee for other operations")

		aTr := svcNodes(c.caller, ingest.SignalTraffic)
		edgeTr := one(g.find(edge, ingest.SignalTraffic, FacetNone))
		eb.addAll(aTr, edgeTr, EdgeCall, conf, "caller traffic drives the calls")
		if len(edgeTr) > 0 {
			eb.addAll(edgeTr, svcNodes(c.callee, ingest.SignalTraffic), EdgeCall, conf, "calls are the callee's traffic")
		} else {
			eb.addAll(aTr, svcNodes(c.callee, ingest.SignalTraffic), EdgeCall, conf, "caller traffic drives callee traffic")
		}
	}
}

// placements returns, per node or GPU entity ID, the pods and services
// placed on it: from pods' node and GPU fields, from the pod labels of
// device series (DCGM's pod label, per-pod copies of node metrics), from
// a device series' own service, and from GPU processes matched to traced
// processes by host and PID. Each list is deduplicated and sorted by ID.
func (g *Graph) placements(b *ingest.Bundle) map[string][]ingest.Entity {
	podsOn := map[string][]ingest.Entity{}
	podByName := map[string]ingest.Entity{}
	for _, e := range b.Entities {
		if e.Kind != ingest.KindPod {
			continue
		}
		podByName[e.Name] = e
		if e.Node != "" {
			k := ingest.Entity{Kind: ingest.KindNode, Name: e.Node}.ID()
			podsOn[k] = append(podsOn[k], e)
		}
		if e.GPU != "" {
			k := ingest.Entity{Kind: ingest.KindGPU, Name: e.GPU}.ID()
			podsOn[k] = append(podsOn[k], e)
		}
	}
	for _, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindNode && n.Entity.Kind != ingest.KindGPU {
			continue
		}
		if n.Entity.Service != "" {
			podsOn[n.Entity.ID()] = append(podsOn[n.Entity.ID()], svcEntity(n.Entity.Service))
		}
		for _, s := range n.Series {
			for _, key := range []string{"pod", "pod_name", "k8s_pod_name", "exported_pod"} {
				if p, ok := podByName[s.Labels.Get(key)]; ok {
					podsOn[n.Entity.ID()] = append(podsOn[n.Entity.ID()], p)
				}
			}
		}
	}
	g.placedBy = map[string]string{}
	for _, pl := range b.Placements {
		dev := ingest.Entity{Kind: ingest.KindGPU, Name: pl.GPU}.ID()
		e := pl.Entity()
		if p, ok := podByName[pl.Pod]; ok {
			e = p
		}
		podsOn[dev] = append(podsOn[dev], e)
		if k := dev + "|" + e.ID(); g.placedBy[k] == "" {
			g.placedBy[k] = pl.String() + " runs on this GPU"
		}
	}
	for id, ps := range podsOn {
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID() < ps[j].ID() })
		out := ps[:0]
		for i, p := range ps {
			if i == 0 || p.ID() != ps[i-1].ID() {
				out = append(out, p)
			}
		}
		podsOn[id] = out
	}
	g.Hosted = map[string][]string{}
	for id, ps := range podsOn {
		seen := map[string]bool{}
		for _, p := range ps {
			if p.Service != "" && !seen[p.Service] {
				seen[p.Service] = true
				g.Hosted[id] = append(g.Hosted[id], p.Service)
			}
		}
		sort.Strings(g.Hosted[id])
	}
	return podsOn
}

// placementEdges adds: a pod → its service (same signal and facet); a
// device's (node's or GPU's) saturation → the latency, errors, restarts
// and saturation of the work placed on it (a resource is upstream of what
// runs on it; utilisation is not a cause: it measures the work done, which
// load and waiting drive); the load placed on a device → its saturation;
// and a pod's resource use → its node's (the node's is the sum).
func (g *Graph) placementEdges(eb *edgeBuilder, podsOn map[string][]ingest.Entity) {
	placed := func(dev, p ingest.Entity) string {
		if r := g.placedBy[dev.ID()+"|"+p.ID()]; r != "" {
			return r
		}
		return "placed on this " + dev.Kind.String()
	}
	for i, n := range g.Nodes {
		if n.Facet == FacetPeers {
			continue // a contrast with peers: peerEdges
		}
		switch n.Entity.Kind {
		case ingest.KindPod:
			if n.Entity.Service == "" {
				continue
			}
			eb.add(i, g.find(svcEntity(n.Entity.Service), n.Signal, n.Facet), EdgePlacement, 0.95, "pod of the service")
			if n.Signal.Saturation() || n.Signal == ingest.SignalRestarts {
				eb.add(i, g.find(svcEntity(n.Entity.Service), ingest.SignalLatency, FacetSelf), EdgePlacement, 0.85, "pod saturation slows the service")
				eb.add(i, g.find(svcEntity(n.Entity.Service), ingest.SignalLatency, FacetNone), EdgePlacement, 0.8, "pod saturation slows the service")
			}
			if n.Entity.Node != "" && n.Signal.Saturation() {
				eb.add(i, g.find(ingest.Entity{Kind: ingest.KindNode, Name: n.Entity.Node}, n.Signal, FacetNone), EdgePlacement, 0.75, "the pod's usage is part of its node's")
			}
		case ingest.KindService:
			// a merged single pod: its usage is part of its node's
			if n.Entity.Node != "" && n.Signal.Saturation() {
				eb.add(i, g.find(ingest.Entity{Kind: ingest.KindNode, Name: n.Entity.Node}, n.Signal, FacetNone), EdgePlacement, 0.75, "the pod's usage is part of its node's")
			}
		case ingest.KindNode, ingest.KindGPU:
			if !n.Signal.Saturation() || n.Signal == ingest.SignalGPUUtil {
				continue
			}
			for _, p := range podsOn[n.Entity.ID()] {
				why := placed(n.Entity, p)
				targets := []ingest.Entity{p}
				if p.Kind == ingest.KindPod {
					targets = append(targets, svcEntity(p.Service))
				}
				for _, t := range targets {
					eb.add(i, g.find(t, ingest.SignalLatency, FacetNone), EdgePlacement, 0.85, why)
					eb.add(i, g.find(t, ingest.SignalLatency, FacetSelf), EdgePlacement, 0.8, why)
					eb.add(i, g.find(t, ingest.SignalErrors, FacetNone), EdgePlacement, 0.8, why)
					eb.add(i, g.find(t, ingest.SignalRestarts, FacetNone), EdgePlacement, 0.8, why)
				}
				// the hosted work's own saturation (queues, caches), except
				// the same signal, which the device's sums
				for _, j := range g.entityNodes(p) {
					if m := g.Nodes[j]; m.Signal.Saturation() && m.Signal != n.Signal && m.Signal != ingest.SignalGPUUtil {
						eb.add(i, j, EdgePlacement, 0.75, why)
					}
				}
			}
		}
	}
	// A change also alters what a pod is compared with: a rollout or a
	// scale change replaces, adds or removes its siblings and reshares the
	// load among them, so a pod unlike its peers is explained by it too.
	peersOf := map[string][]int{}
	for i, n := range g.Nodes {
		if n.Facet == FacetPeers && n.Entity.Kind == ingest.KindPod {
			peersOf[n.Entity.ID()] = append(peersOf[n.Entity.ID()], i)
		}
	}
	// A service's change reaches its pods; replicas share the service's
	// load, so a failing replica's requests move to its siblings.
	for _, svc := range slices.Sorted(maps.Keys(g.podsBy())) {
		pods := g.podsBy()[svc]
		change := g.find(svcEntity(svc), ingest.SignalChange, FacetNone)
		sib := g.newSiblings(pods) // each pod's nodes found once, not once per pair
		for i, p := range pods {
			if change >= 0 {
				for _, j := range g.entityNodes(p) {
					eb.add(change, j, EdgePlacement, 0.8, "a change of the service rolls out to its pods")
				}
				for _, j := range peersOf[g.canon(p).ID()] {
					eb.add(change, j, EdgePlacement, 0.8, "a change of the service replaces or reshares a pod's peers")
				}
			}
			sib.link(eb, i)
		}
		if w := sib.warning(svc, len(pods)); w != "" {
			g.Warnings = append(g.Warnings, w)
		}
	}
	// The load placed on a device drives its saturation.
	for i, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindNode && n.Entity.Kind != ingest.KindGPU || !n.Signal.Saturation() {
			continue
		}
		for _, p := range podsOn[n.Entity.ID()] {
			eb.add(g.find(p, ingest.SignalTraffic, FacetNone), i, EdgePlacement, 0.7, "work placed on the device drives its use")
		}
	}
}

// entityNodes returns the indices of an entity's facetless nodes (an
// index built once per graph).
func (g *Graph) entityNodes(e ingest.Entity) []int {
	if g.byEnt == nil {
		g.byEnt = map[string][]int{}
		for i, n := range g.Nodes {
			if n.Facet == FacetNone {
				g.byEnt[n.Entity.ID()] = append(g.byEnt[n.Entity.ID()], i)
			}
		}
	}
	return g.byEnt[g.canon(e).ID()]
}

// laggedEdges links anomalous nodes that topology does not connect, when
// the cause's series leads the effect's with a strong lagged correlation
// over baseline and window. Confidence stays below the state machine's
// default threshold unless the correlation is very strong.
func (g *Graph) laggedEdges(opt Options, topo, placedIn map[string]bool, add func(from, to int, kind EdgeKind, conf float64, reason string)) {
	var cand []int
	for i, n := range g.Nodes {
		if n.Anomalous {
			cand = append(cand, i)
		}
	}
	if g.Target >= 0 && !g.Nodes[g.Target].Anomalous {
		cand = append(cand, g.Target)
	}
	sort.SliceStable(cand, func(i, j int) bool { return g.Nodes[cand[i]].Score > g.Nodes[cand[j]].Score })
	if len(cand) > opt.MaxLagged {
		cand = cand[:opt.MaxLagged]
	}
	// Topology known for both ends (same service, or both services in the
	// call graph): the lagged test adds nothing but spurious edges.
	known := func(n *Node) bool { return topo[n.Entity.Service] || placedIn[n.Entity.ID()] }
	connected := func(a, b *Node) bool {
		if a.Entity.Service != "" && a.Entity.Service == b.Entity.Service {
			return true
		}
		return known(a) && known(b)
	}
	maxLag := int(opt.LagWindow / g.Step)
	for _, i := range cand {
		for _, j := range cand {
			a, b := g.Nodes[i], g.Nodes[j]
			if i == j || connected(a, b) {
				continue
			}
			// only toward latency/errors effects, and the cause must not start later
			if b.Signal != ingest.SignalLatency && b.Signal != ingest.SignalErrors {
				continue
			}
			ai, bi := a.OnsetIdx, b.OnsetIdx
			if j == g.Target && bi < 0 {
				bi = g.W1 - 1
			}
			// the cause must lead: strictly earlier onset
			if ai < 0 || bi < 0 || ai >= bi || bi-ai > maxLag {
				continue
			}
			_, w := g.bestLag(i, j, min(maxLag, 3))
			if w < 0.7 {
				continue
			}
			add(i, j, EdgeLagged, 0.4+0.4*(w-0.7)/0.3, "lagged correlation (no known topology)")
		}
	}
}

// bestLag returns the lag (0..maxLag steps) maximising the Pearson
// correlation of from's values with to's, over baseline and window, and
// that |correlation| (0 when undefined).
func (g *Graph) bestLag(from, to, maxLag int) (int, float64) {
	x, y := g.Nodes[from].Values(), g.Nodes[to].Values()
	lo, hi := g.B0, g.W1
	bestL, bestW := 0, 0.0
	xs, ys := make([]float64, 0, hi-lo), make([]float64, 0, hi-lo)
	for l := 0; l <= maxLag; l++ {
		xs, ys = xs[:0], ys[:0]
		for t := lo + l; t < hi; t++ {
			a, b := x[t-l], y[t]
			if math.IsNaN(a) || math.IsNaN(b) {
				continue
			}
			xs, ys = append(xs, a), append(ys, b)
		}
		if len(xs) < 4 || measure.Constant(xs) || measure.Constant(ys) {
			continue
		}
		c := math.Abs(stat.Correlation(xs, ys, nil))
		if !math.IsNaN(c) && c > bestW+1e-9 {
			bestL, bestW = l, c
		}
	}
	return bestL, bestW
}

// canon maps a pod that is its service's only pod to the service entity
// (whose nodes hold its series).
func (g *Graph) canon(e ingest.Entity) ingest.Entity {
	if e.Kind == ingest.KindPod && g.SinglePod[e.Service] == e.Name && e.Name != "" {
		return ingest.Entity{Kind: ingest.KindService, Name: e.Service, Service: e.Service}
	}
	return e
}

// podsBy returns the pod entities that have nodes, by service, sorted by
// name (computed once per graph).
func (g *Graph) podsBy() map[string][]ingest.Entity {
	if g.pods != nil {
		return g.pods
	}
	g.pods = map[string][]ingest.Entity{}
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindPod && n.Entity.Service != "" && !seen[n.Entity.Name] {
			seen[n.Entity.Name] = true
			g.pods[n.Entity.Service] = append(g.pods[n.Entity.Service], ingest.Entity{Kind: ingest.KindPod, Name: n.Entity.Name, Service: n.Entity.Service})
		}
	}
	for _, ps := range g.pods {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	}
	return g.pods
}

// podsOfService returns the service's pods that have nodes.
func podsOfService(g *Graph, svc string) []ingest.Entity { return g.podsBy()[svc] }

// PodsOf returns the service's pods that have nodes of their own, sorted
// by name (none for a service with one pod: its series are the service's
// nodes, and SinglePod names it).
func (g *Graph) PodsOf(svc string) []ingest.Entity { return g.podsBy()[svc] }

// NodesOf returns the indices of the nodes of an entity (every signal and
// facet), in node order: an index built once per graph (O(nodes)), then
// O(1) a call. The returned slice must not be modified.
func (g *Graph) NodesOf(e ingest.Entity) []int {
	g.allByEntOnce.Do(func() {
		g.allByEnt = make(map[string][]int, len(g.Nodes))
		for i, n := range g.Nodes {
			id := n.Entity.ID()
			g.allByEnt[id] = append(g.allByEnt[id], i)
		}
	})
	return g.allByEnt[e.ID()]
}
