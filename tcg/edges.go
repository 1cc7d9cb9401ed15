package tcg

import (
	"math"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
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
	Weight     float64 // |correlation| at that lag over baseline+window, 0..1
	Confidence float64 // how sure we are the edge exists, 0..1
	Reason     string
}

// buildEdges adds topology, placement, component and lagged edges.
func (g *Graph) buildEdges(b *ingest.Bundle, opt Options) {
	type ek struct{ a, b int }
	seen := map[ek]int{}
	// nodes by entity ID, and by (entity ID, signal, facet)
	byEnt := map[string][]int{}
	for i, n := range g.Nodes {
		byEnt[n.Entity.ID()] = append(byEnt[n.Entity.ID()], i)
	}
	find := func(ent ingest.Entity, sig ingest.SignalKind, f Facet) int {
		return g.NodeByID(nodeID(g.canon(ent), sig, f))
	}
	maxLag := int(opt.LagWindow / g.Step)
	if maxLag > 3 {
		maxLag = 3
	}
	add := func(from, to int, kind EdgeKind, conf float64, reason string) {
		if from < 0 || to < 0 || from == to {
			return
		}
		if old, ok := seen[ek{from, to}]; ok {
			if g.Edges[old].Confidence < conf {
				g.Edges[old].Confidence, g.Edges[old].Kind, g.Edges[old].Reason = conf, kind, reason
			}
			return
		}
		lag, w := g.bestLag(from, to, maxLag)
		seen[ek{from, to}] = len(g.Edges)
		g.Edges = append(g.Edges, Edge{From: from, To: to, Kind: kind, LagSteps: lag, Lag: time.Duration(lag) * g.Step,
			Weight: w, Confidence: conf, Reason: reason})
	}
	svc := func(name string) ingest.Entity {
		return ingest.Entity{Kind: ingest.KindService, Name: name, Service: name}
	}
	// Within a component: saturation → latency → errors; self → latency.
	for _, id := range sortedKeys(byEnt) {
		idx := byEnt[id]
		var lat, self, errs, traffic []int
		var sat []int
		for _, i := range idx {
			n := g.Nodes[i]
			switch {
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
		for _, s := range sat {
			for _, l := range append(append([]int{}, self...), lat...) {
				add(s, l, EdgeComponent, 0.8, "saturation slows the component")
			}
			for _, e := range errs {
				add(s, e, EdgeComponent, 0.6, "saturation can fail requests")
			}
		}
		for _, s := range self {
			for _, l := range lat {
				add(s, l, EdgeComponent, 0.9, "own work is part of the latency")
			}
		}
		// Load drives saturation: more requests fill queues, KV cache, CPU.
		for _, t := range traffic {
			for _, s := range sat {
				add(t, s, EdgeComponent, 0.7, "load drives saturation")
			}
			for _, l := range lat {
				add(t, l, EdgeComponent, 0.6, "load drives latency")
			}
		}
		for _, l := range lat {
			for _, e := range errs {
				add(l, e, EdgeComponent, 0.6, "slow requests time out")
			}
		}
	}
	// Nodes of each service's pods, by signal.
	type podSig struct {
		svc string
		sig ingest.SignalKind
	}
	podsBySig := map[podSig][]int{}
	podsOf := map[string][]int{} // latency nodes
	for i, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindPod && n.Facet == FacetNone && n.Entity.Service != "" {
			podsBySig[podSig{n.Entity.Service, n.Signal}] = append(podsBySig[podSig{n.Entity.Service, n.Signal}], i)
			if n.Signal == ingest.SignalLatency {
				podsOf[n.Entity.Service] = append(podsOf[n.Entity.Service], i)
			}
		}
	}
	// Call topology from trace-derived edges, dependencies and edge metrics.
	type call struct{ a, b string }
	calls := map[call]float64{}
	for _, d := range b.Deps {
		if d.Parent != d.Child {
			calls[call{d.Parent, d.Child}] = math.Max(calls[call{d.Parent, d.Child}], 0.85)
		}
	}
	for _, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindEdge && n.Entity.Caller != n.Entity.Callee {
			c := 0.85
			if n.Series[0].Source == ingest.DerivedSource {
				c = 0.9
			}
			calls[call{n.Entity.Caller, n.Entity.Callee}] = math.Max(calls[call{n.Entity.Caller, n.Entity.Callee}], c)
		}
	}
	callList := make([]call, 0, len(calls))
	for c := range calls {
		callList = append(callList, c)
	}
	sort.Slice(callList, func(i, j int) bool {
		if callList[i].a != callList[j].a {
			return callList[i].a < callList[j].a
		}
		return callList[i].b < callList[j].b
	})
	// svcNodes returns a service's node for a signal, or, when the service
	// has none (metrics only at pod level), its pods' nodes.
	svcNodes := func(name string, sig ingest.SignalKind) []int {
		if i := find(svc(name), sig, FacetNone); i >= 0 {
			return []int{i}
		}
		var out []int
		for _, i := range podsBySig[podSig{name, sig}] {
			out = append(out, i)
		}
		return out
	}
	addAll := func(from, to []int, kind EdgeKind, conf float64, reason string) {
		for _, f := range from {
			for _, t := range to {
				add(f, t, kind, conf, reason)
			}
		}
	}
	one := func(i int) []int {
		if i < 0 {
			return nil
		}
		return []int{i}
	}
	for _, c := range callList {
		conf := calls[c]
		edge := ingest.Entity{Kind: ingest.KindEdge, Name: c.a + "->" + c.b}
		aLat, bLat := svcNodes(c.a, ingest.SignalLatency), svcNodes(c.b, ingest.SignalLatency)
		cl, sv, gap := one(find(edge, ingest.SignalLatency, FacetClient)), one(find(edge, ingest.SignalLatency, FacetServer)), one(find(edge, ingest.SignalLatency, FacetGap))
		// The caller's pods see the same calls as the caller.
		callers := append(append([]int{}, aLat...), podsOf[c.a]...)
		addAll(bLat, callers, EdgeCall, conf, "callee latency adds to the caller's latency")
		addAll(bLat, sv, EdgeCall, conf, "callee latency is the call's server side")
		addAll(sv, cl, EdgeCall, conf, "server side is part of the caller's view")
		addAll(gap, cl, EdgeCall, conf, "network/queueing gap is part of the caller's view")
		addAll(cl, callers, EdgeCall, conf, "the call's client-side latency adds to the caller")
		if len(cl) == 0 {
			addAll(gap, callers, EdgeCall, conf, "network/queueing gap adds to the caller")
		}
		// A starved caller (CPU, throttling, memory, its own work) delays
		// its own client spans: the gap then grows on all its outgoing
		// calls at once, while a slow network to one callee grows only the
		// gaps into that callee.
		var callerSat []int
		for _, sig := range []ingest.SignalKind{ingest.SignalCPU, ingest.SignalCPUThrottle, ingest.SignalMemory} {
			callerSat = append(callerSat, svcNodes(c.a, sig)...)
		}
		callerSat = append(callerSat, one(find(svc(c.a), ingest.SignalLatency, FacetSelf))...)
		addAll(callerSat, gap, EdgeComponent, 0.7, "a starved caller delays its own client spans")
		aErr := svcNodes(c.a, ingest.SignalErrors)
		addAll(svcNodes(c.b, ingest.SignalErrors), aErr, EdgeCall, conf, "callee errors propagate to the caller")
		addAll(one(find(edge, ingest.SignalErrors, FacetNone)), aErr, EdgeCall, conf, "failed calls fail the caller")
		aTr := svcNodes(c.a, ingest.SignalTraffic)
		addAll(aTr, svcNodes(c.b, ingest.SignalTraffic), EdgeCall, conf, "caller traffic drives callee traffic")
		addAll(aTr, one(find(edge, ingest.SignalTraffic, FacetNone)), EdgeCall, conf, "caller traffic drives the calls")
	}
	// Placement: pod → its service; node/GPU → pods and services on them.
	podsOn := map[string][]ingest.Entity{} // node or GPU entity ID → pods/services on it
	for _, e := range b.Entities {
		if e.Kind == ingest.KindPod {
			if e.Node != "" {
				k := ingest.Entity{Kind: ingest.KindNode, Name: e.Node}.ID()
				podsOn[k] = append(podsOn[k], e)
			}
			if e.GPU != "" {
				k := ingest.Entity{Kind: ingest.KindGPU, Name: e.GPU}.ID()
				podsOn[k] = append(podsOn[k], e)
			}
		}
	}
	podByName := map[string]ingest.Entity{}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindPod {
			podByName[e.Name] = e
		}
	}
	for _, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindNode && n.Entity.Kind != ingest.KindGPU {
			continue
		}
		if n.Entity.Service != "" {
			podsOn[n.Entity.ID()] = append(podsOn[n.Entity.ID()], svc(n.Entity.Service))
		}
		// Exporters label node and GPU series with the pod using them
		// (DCGM's pod label; per-pod copies of node metrics).
		for _, s := range n.Series {
			for _, key := range []string{"pod", "pod_name", "k8s_pod_name", "exported_pod"} {
				if p, ok := podByName[s.Labels.Get(key)]; ok {
					podsOn[n.Entity.ID()] = append(podsOn[n.Entity.ID()], p)
				}
			}
		}
	}
	// GPU processes matched to traced processes by host and PID.
	placedBy := map[string]string{} // device ID + "|" + entity ID → why
	for _, pl := range b.Placements {
		dev := ingest.Entity{Kind: ingest.KindGPU, Name: pl.GPU}.ID()
		e := pl.Entity()
		if p, ok := podByName[pl.Pod]; ok {
			e = p
		}
		podsOn[dev] = append(podsOn[dev], e)
		if k := dev + "|" + e.ID(); placedBy[k] == "" {
			placedBy[k] = pl.String() + " runs on this GPU"
		}
	}
	placed := func(dev, p ingest.Entity) string {
		if r := placedBy[dev.ID()+"|"+p.ID()]; r != "" {
			return r
		}
		return "placed on this " + dev.Kind.String()
	}
	for i, n := range g.Nodes {
		switch n.Entity.Kind {
		case ingest.KindPod:
			if n.Entity.Service != "" {
				add(i, find(svc(n.Entity.Service), n.Signal, n.Facet), EdgePlacement, 0.95, "pod of the service")
				if n.Signal.Saturation() || n.Signal == ingest.SignalRestarts {
					add(i, find(svc(n.Entity.Service), ingest.SignalLatency, FacetSelf), EdgePlacement, 0.85, "pod saturation slows the service")
					add(i, find(svc(n.Entity.Service), ingest.SignalLatency, FacetNone), EdgePlacement, 0.8, "pod saturation slows the service")
				}
			}
		case ingest.KindNode, ingest.KindGPU:
			// Utilisation measures the work placed on the device (an effect
			// of load and of waiting), not a fault of the device itself.
			if !n.Signal.Saturation() || n.Signal == ingest.SignalGPUUtil {
				continue
			}
			for _, p := range podsOn[n.Entity.ID()] {
				for _, sig := range []ingest.SignalKind{ingest.SignalLatency} {
					add(i, find(p, sig, FacetNone), EdgePlacement, 0.85, placed(n.Entity, p))
					if p.Kind == ingest.KindPod {
						add(i, find(svc(p.Service), sig, FacetSelf), EdgePlacement, 0.8, placed(n.Entity, p))
						add(i, find(svc(p.Service), sig, FacetNone), EdgePlacement, 0.8, placed(n.Entity, p))
					} else {
						add(i, find(p, sig, FacetSelf), EdgePlacement, 0.8, placed(n.Entity, p))
					}
				}
				// A slow or failing device backs up the work placed on it:
				// queues and KV-cache pressure, restarts and errors follow.
				for _, sig := range []ingest.SignalKind{ingest.SignalRestarts, ingest.SignalErrors} {
					add(i, find(p, sig, FacetNone), EdgePlacement, 0.8, placed(n.Entity, p))
				}
			}
		}
	}
	g.deviceEdges(podsOn, add)
	topo := map[string]bool{}
	for _, c := range callList {
		topo[c.a], topo[c.b] = true, true
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
	g.laggedEdges(opt, topo, placedIn, add)
	g.in = make([][]int, len(g.Nodes))
	g.out = make([][]int, len(g.Nodes))
	for ei, e := range g.Edges {
		g.out[e.From] = append(g.out[e.From], ei)
		g.in[e.To] = append(g.in[e.To], ei)
	}
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
			lag, w := g.bestLag(i, j, min(maxLag, 3))
			if w < 0.7 {
				continue
			}
			_ = lag
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
		if len(xs) < 4 || constant(xs) || constant(ys) {
			continue
		}
		c := math.Abs(stat.Correlation(xs, ys, nil))
		if !math.IsNaN(c) && c > bestW+1e-9 {
			bestL, bestW = l, c
		}
	}
	return bestL, bestW
}

func constant(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// deviceEdges adds the causal structure inside and between devices:
//   - within a GPU: temperature and power → throttling → clocks; clock
//     drops, throttling, DRAM contention and XIDs → utilisation and power;
//   - between GPUs serving the same pod (a tensor-parallel group): a peer
//     that is slow (clocks, throttling, contention, XID) makes the others
//     busy-wait in collectives, so it drives their utilisation and power;
//   - from pods to devices: load, queues and KV cache drive the utilisation
//     of the GPUs placed under them; a pod's CPU and memory are part of its
//     node's.
func (g *Graph) deviceEdges(podsOn map[string][]ingest.Entity, add func(from, to int, kind EdgeKind, conf float64, reason string)) {
	find := func(ent ingest.Entity, sig ingest.SignalKind) int {
		return g.NodeByID(nodeID(g.canon(ent), sig, FacetNone))
	}
	slow := []ingest.SignalKind{ingest.SignalGPUClock, ingest.SignalGPUThrottle, ingest.SignalGPUMemBW, ingest.SignalXID}
	busy := []ingest.SignalKind{ingest.SignalGPUUtil, ingest.SignalPower}
	gpus := map[string]ingest.Entity{}
	groups := map[string][]string{} // pod → GPU entity IDs
	for _, n := range g.Nodes {
		if n.Entity.Kind == ingest.KindGPU {
			gpus[n.Entity.ID()] = ingest.Entity{Kind: ingest.KindGPU, Name: n.Entity.Name}
		}
	}
	for _, id := range sortedKeys(gpus) {
		gpu := gpus[id]
		add(find(gpu, ingest.SignalTemperature), find(gpu, ingest.SignalGPUThrottle), EdgeComponent, 0.8, "heat triggers thermal throttling")
		add(find(gpu, ingest.SignalPower), find(gpu, ingest.SignalGPUThrottle), EdgeComponent, 0.75, "power cap triggers throttling")
		add(find(gpu, ingest.SignalGPUThrottle), find(gpu, ingest.SignalGPUClock), EdgeComponent, 0.9, "throttling lowers clocks")
		for _, s := range slow {
			for _, b := range busy {
				add(find(gpu, s), find(gpu, b), EdgeComponent, 0.6, "a slowed GPU stays busy longer")
			}
		}
		seen := map[string]bool{}
		for _, p := range podsOn[id] {
			if p.Kind != ingest.KindPod || seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			groups[p.Name] = append(groups[p.Name], id)
			for _, s := range []ingest.SignalKind{ingest.SignalTraffic, ingest.SignalQueue, ingest.SignalKVCache} {
				for _, b := range busy {
					add(find(p, s), find(gpu, b), EdgePlacement, 0.7, "work placed on the GPU drives its utilisation")
				}
			}
			// A slow GPU backs up its pod's queue and KV cache; a full KV
			// cache (preemption, recomputation) loads the GPU's memory. Both
			// directions are plausible, so the edge follows the onsets: the
			// signal that moved first (together: moved most) is the cause.
			// Only DRAM traffic is ambiguous: KV pressure cannot lower clocks,
			// set throttle reasons or raise XIDs.
			for _, s := range slow {
				for _, k := range []ingest.SignalKind{ingest.SignalQueue, ingest.SignalKVCache} {
					a, b := find(gpu, s), find(p, k)
					if a < 0 || b < 0 {
						continue
					}
					ka, kb := onsetKey(g.Nodes[a]), onsetKey(g.Nodes[b])
					if s != ingest.SignalGPUMemBW || ka < kb || (ka == kb && g.Nodes[a].Score >= g.Nodes[b].Score) {
						add(a, b, EdgePlacement, 0.8, "a slow GPU backs up the work queued on it")
					} else {
						add(b, a, EdgePlacement, 0.8, "KV-cache pressure (preemption, recomputation) loads the GPU")
					}
				}
			}
		}
	}
	for _, pod := range sortedKeys(groups) {
		ids := groups[pod]
		for _, a := range ids {
			for _, b := range ids {
				if a == b {
					continue
				}
				for _, s := range slow {
					for _, t := range busy {
						add(find(gpus[a], s), find(gpus[b], t), EdgePlacement, 0.75,
							"a slow peer in the tensor-parallel group of "+pod+" makes the others busy-wait")
					}
				}
			}
		}
	}
	// A pod's resource use is part of its node's.
	for _, n := range g.Nodes {
		// (a service node with a Node is a merged single pod)
		if (n.Entity.Kind != ingest.KindPod && n.Entity.Kind != ingest.KindService) || n.Entity.Node == "" || !n.Signal.Saturation() {
			continue
		}
		node := ingest.Entity{Kind: ingest.KindNode, Name: n.Entity.Node}
		add(g.byID[n.ID], find(node, n.Signal), EdgePlacement, 0.75, "the pod's usage is part of its node's")
	}
}

// canon maps a pod that is its service's only pod to the service entity
// (whose nodes hold its series).
func (g *Graph) canon(e ingest.Entity) ingest.Entity {
	if e.Kind == ingest.KindPod && g.SinglePod[e.Service] == e.Name && e.Name != "" {
		return ingest.Entity{Kind: ingest.KindService, Name: e.Service, Service: e.Service}
	}
	return e
}

// onsetKey orders nodes by anomaly onset; a node that is not anomalous
// comes last.
func onsetKey(n *Node) int {
	if !n.Anomalous || n.OnsetIdx < 0 {
		return math.MaxInt32
	}
	return n.OnsetIdx
}
