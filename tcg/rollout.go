package tcg

import (
	"math"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// PeerContrast is what a contrast node compares: a rollout's new pods
// against its old pods, or a pod or GPU against its peers, in the same
// minutes.
type PeerContrast struct {
	// Rollout is the rollout a rollout node judges (zero for a peer node).
	Rollout peers.Rollout
	// What names the peers: "the other pods of cart-v1-7bb89585b4".
	What string
	// Family is the compared measurement of the node's representative
	// (metric name, signal and labels but the instance's own), "" for an
	// availability node.
	Family string
	// Members and Peers are the new and the old version's pods.
	Members, Peers []string
	// Member and Peer are each side's median over the node's anomalous
	// episode (the window from its onset), in the series' unit: for an
	// availability node, the share of the pods asked for that report.
	Member, Peer float64
	// MemberSeries and PeerSeries are the compared series of the
	// representative family (for a heatmap's rows).
	MemberSeries, PeerSeries []*ingest.Series
	// ScaleFrom says where the contrast's scale came from (peers.Contrast).
	ScaleFrom string
	// Stopped are, for a rollout's calls (FacetCalls), the dependencies
	// its old pods call that its new pods never called in the window.
	Stopped []string
}

// Rollout series names (the contrast nodes' series, Source PeersSource).
const (
	// RolloutContrast is a new version's difference from its old version,
	// net of their usual difference: the new pods' per-cell median minus
	// the old pods'.
	RolloutContrast = "rollout_contrast"
	// RolloutAvailability is the share of the new version's pods asked
	// for that report, minus the old version's (1).
	RolloutAvailability = "rollout_availability"
	// RolloutCalls is the share of the old version's callees the new
	// version's pods call, minus the old version's (1).
	RolloutCalls = "rollout_calls"
	// PeerContrastSeries is a member's difference from its peers (a pod
	// against its version's other pods, a GPU against its group's), net
	// of their usual difference.
	PeerContrastSeries = "peer_contrast"
	// PeersSource is the Source of series derived by comparing peers.
	PeersSource = "derived:peers"
)

// rolloutNodes turns every rollout of the version model that is in or
// before the window into nodes of a rollout entity (its new version's
// workload or ReplicaSet): one per compared signal, the new pods against
// the old pods family by family (the most anomalous family represents
// the signal, as a node's most anomalous series does), and one for the
// new version's availability when a rollout event asked for its pods. A
// rollout with either is judged: its service's own change node (a step
// at every change, healthy or not) gives way to these nodes. It returns
// the nodes, detected, and the judged services. O(rollouts · families ·
// cells · pods).
func (g *Graph) rolloutNodes(b *ingest.Bundle, m *peers.Model, opt Options) ([]*Node, map[string]bool) {
	judged := map[string]bool{}
	var out []*Node
	c := peers.Cells{B0: g.B0, B1: g.B1, W0: g.W0, W1: g.W1}
	var winEnd ingest.Time
	if g.W1 > 0 && g.W1 <= len(g.Grid) {
		winEnd = g.Grid[g.W1-1]
	}
	for _, r := range m.Rollouts {
		// A rollout after the incident began cannot have caused it. One
		// known from its pods' first samples began up to ReadyGrace
		// before them.
		late := g.Incident.At
		if r.By != "rollout event" {
			late = late.Add(opt.Peers.ReadyGrace)
		}
		if r.At > winEnd || late != 0 && r.At > late {
			continue
		}
		ent := ingest.Entity{Kind: ingest.KindRollout, Name: r.Name(), Service: r.Service}
		old := r.OldPods()
		pods := map[string]bool{}
		for _, p := range append(slices.Clone(r.New.Pods), old...) {
			pods[p] = true
		}
		best := map[ingest.SignalKind]*Node{}
		var sigs []ingest.SignalKind
		for _, f := range m.Families(b, pods) {
			mem, prs := f.Series(r.New.Pods), f.Series(old)
			if len(mem) == 0 || len(prs) == 0 {
				continue
			}
			dir := ingest.BadDirection(mem[0])
			if dir == 0 {
				continue // traffic and the like: a share moving is not a fault
			}
			ct := peers.Compare(mem, prs, c, opt.Peers)
			if ct.Cells < opt.Peers.MinCells {
				continue
			}
			n := g.contrastNode(ent, f.Signal, FacetNone, ct, dir, opt, &PeerContrast{Rollout: r, Family: f.Key,
				Members: r.New.Pods, Peers: old, MemberSeries: mem, PeerSeries: prs, ScaleFrom: ct.ScaleFrom}, mem[0].Unit)
			if cur := best[f.Signal]; cur == nil {
				best[f.Signal] = n
				sigs = append(sigs, f.Signal)
			} else {
				cur.Series = append(cur.Series, n.Series...)
				if moreAnomalous(n.Anomaly, cur.Anomaly) {
					n.Series = cur.Series
					n.Rep = len(n.Series) - 1
					best[f.Signal] = n
				}
			}
		}
		for _, sig := range sigs {
			out = append(out, best[sig])
			judged[r.Service] = true
		}
		// What the new version does to others: the calls it stopped making.
		if ct, stopped := m.CallsContrast(b, r, c, opt.Peers.MinCells); ct.Cells > 0 {
			n := g.contrastNode(ent, ingest.SignalErrors, FacetCalls, ct, -1, opt,
				&PeerContrast{Rollout: r, Members: r.New.Pods, Peers: old, ScaleFrom: ct.ScaleFrom, Stopped: stopped}, "ratio")
			out = append(out, n)
			judged[r.Service] = true
		}
		if av := m.Availability(r); av != nil {
			ct := peers.AvailabilityContrast(av, c)
			if ct.Cells > 0 {
				n := g.contrastNode(ent, ingest.SignalErrors, FacetUnready, ct, -1, opt,
					&PeerContrast{Rollout: r, Members: r.New.Pods, Peers: old, ScaleFrom: ct.ScaleFrom}, "ratio")
				if n.Anomalous {
					// The new pods were missing from when they were asked
					// for; the grace only delayed seeing it.
					n.OnsetIdx = min(n.OnsetIdx, g.cellAt(r.New.Asked[0].At))
					n.Onset = g.Grid[n.OnsetIdx]
				}
				out = append(out, n)
				judged[r.Service] = true
			}
		}
	}
	return out, judged
}

// contrastNode makes the node of one contrast: its series is the
// difference (in the member's unit), tested against 0 on the contrast's
// scale in the bad direction.
func (g *Graph) contrastNode(ent ingest.Entity, sig ingest.SignalKind, f Facet, ct peers.Contrast, dir int, opt Options, pc *PeerContrast, unit string) *Node {
	name := RolloutContrast
	switch f {
	case FacetUnready:
		name = RolloutAvailability
	case FacetCalls:
		name = RolloutCalls
	case FacetPeers:
		name = PeerContrastSeries
	}
	s := &ingest.Series{Name: name, Entity: ent, Signal: sig, Stat: "contrast", Unit: unit, Source: PeersSource,
		T: g.Grid, V: ct.Diff, Aligned: true}
	if pc.Family != "" {
		s.Labels = ingest.Labels{{Name: "family", Value: pc.Family}}
	}
	n := &Node{ID: nodeID(ent, sig, f), Entity: ent, Signal: sig, Facet: f, Series: []*ingest.Series{s}, Dir: dir, Peer: pc, Depth: -1}
	n.Anomaly = detectAt(ct.Diff, 0, ct.Scale, g.W0, g.W1, dir, opt.Threshold, g.Grid)
	// A contrast holds for MinCells cells or it is a blip: members of a
	// group jump apart for a minute now and then (a quantised p99, a
	// burst on one replica). An availability is exempt: the grace it
	// waited already demands persistence.
	if n.Anomalous && f != FacetUnready && f != FacetCalls && heldCells(ct.Diff, n.OnsetIdx, g.W1, dir, 0.6*opt.Threshold*ct.Scale) < opt.Peers.MinCells {
		n.Anomalous, n.OnsetIdx, n.Onset = false, -1, 0
	}
	from := g.W0
	if n.OnsetIdx >= 0 {
		from = n.OnsetIdx
	}
	pc.Member, pc.Peer = windowMedian(ct.Member, from, g.W1), windowMedian(ct.Peers, from, g.W1)
	return n
}

// heldCells counts the cells of v in [from, to) beyond cut in direction
// dir (NaN skipped).
func heldCells(v []float64, from, to, dir int, cut float64) int {
	n := 0
	for t := max(from, 0); t < to && t < len(v); t++ {
		x := v[t]
		if dir < 0 {
			x = -x
		}
		if !math.IsNaN(x) && x >= cut {
			n++
		}
	}
	return n
}

// cellAt is the grid cell holding time t (the first cell at or after it,
// the last cell when t is after the grid).
func (g *Graph) cellAt(t ingest.Time) int {
	i, _ := slices.BinarySearch(g.Grid, t)
	return min(i, len(g.Grid)-1)
}

// moreAnomalous orders two anomalies: an anomalous one first, then the
// larger score.
func moreAnomalous(a, b Anomaly) bool {
	if a.Anomalous != b.Anomalous {
		return a.Anomalous
	}
	return a.Score > b.Score
}

// windowMedian is the median of v over [from, to), NaN skipped.
func windowMedian(v []float64, from, to int) float64 {
	var xs []float64
	for t := from; t < to && t < len(v); t++ {
		if !math.IsNaN(v[t]) {
			xs = append(xs, v[t])
		}
	}
	return measure.Quantile(xs, 0.5)
}

// rolloutEdges links each rollout node to what its new pods are part of:
// the service's node of the same signal (its errors, latency, resource
// use) and the new pods' own nodes; an availability node to the service's
// errors and latency, and to the old pods' load, latency and resource use
// (they take the share the new pods do not serve).
func (g *Graph) rolloutEdges(eb *edgeBuilder) {
	for i, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindRollout || n.Peer == nil {
			continue
		}
		svc := svcEntity(n.Entity.Service)
		const why = "the new version's pods serve part of the service's requests"
		if n.Facet == FacetUnready {
			g.callerEdges(eb, i, n)
			for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
				eb.add(i, g.find(svc, sig, FacetNone), EdgePlacement, 0.85, "the new version's pods asked for do not serve")
			}
			for _, p := range n.Peer.Peers {
				for _, j := range g.entityNodes(ingest.Entity{Kind: ingest.KindPod, Name: p, Service: svc.Name}) {
					if sg := g.Nodes[j].Signal; sg == ingest.SignalTraffic || sg == ingest.SignalLatency || sg.Saturation() {
						eb.add(i, j, EdgePlacement, 0.7, "the old version's pods take the share the new pods do not serve")
					}
				}
			}
			continue
		}
		if n.Facet == FacetCalls {
			// Requests the new version serves without the calls it
			// should make fail or return wrong answers to its callers,
			// and its callees see fewer calls.
			g.callerEdges(eb, i, n)
			for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
				eb.add(i, g.find(svc, sig, FacetNone), EdgePlacement, 0.85, "the new version's pods stopped making calls the old ones make")
			}
			for _, callee := range n.Peer.Stopped {
				eb.add(i, g.find(svcEntity(callee), ingest.SignalTraffic, FacetNone), EdgeCall, 0.8, "the new version's pods stopped calling it")
				eb.add(i, g.find(ingest.Entity{Kind: ingest.KindEdge, Name: n.Entity.Service + "->" + callee}, ingest.SignalTraffic, FacetNone),
					EdgeCall, 0.8, "the new version's pods stopped calling it")
			}
			continue
		}
		g.callerEdges(eb, i, n)
		g.calleeEdges(eb, i, n)
		eb.add(i, g.find(svc, n.Signal, FacetNone), EdgePlacement, 0.9, why)
		if n.Signal == ingest.SignalLatency {
			eb.add(i, g.find(svc, ingest.SignalLatency, FacetSelf), EdgePlacement, 0.85, why)
		}
		for _, p := range n.Peer.Members {
			eb.add(i, g.find(ingest.Entity{Kind: ingest.KindPod, Name: p, Service: svc.Name}, n.Signal, FacetNone), EdgePlacement, 0.9,
				"the new version's pods run the new version")
		}
	}
}

// calleeEdges links a rollout node to what the service's callees are asked:
// a new version of a caller can send requests its callees reject or wait
// on (wrong parameters, a new payload), which their own errors and latency
// then show.
func (g *Graph) calleeEdges(eb *edgeBuilder, i int, n *Node) {
	const why = "a new version of a caller changes the requests its callees get"
	for _, c := range g.calls {
		if c.caller != n.Entity.Service || c.caller == c.callee {
			continue
		}
		for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
			if n.Signal != sig && n.Facet != FacetCalls && n.Facet != FacetUnready {
				continue
			}
			eb.add(i, g.find(svcEntity(c.callee), sig, FacetNone), EdgeCall, 0.6, why)
		}
	}
}

// callerEdges links a rollout node to what the service's callers receive:
// a new version of a callee can answer what its callers then fail on or
// wait for, whether or not the callee's own measurements see it (a wrong
// answer is a success to the callee's mesh proxy).
func (g *Graph) callerEdges(eb *edgeBuilder, i int, n *Node) {
	const why = "a new version of a callee changes what its callers receive"
	for _, c := range g.calls {
		if c.callee != n.Entity.Service || c.caller == c.callee {
			continue
		}
		edge := ingest.Entity{Kind: ingest.KindEdge, Name: c.caller + "->" + c.callee}
		for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
			if n.Facet != FacetUnready && n.Signal != sig {
				continue
			}
			eb.add(i, g.find(svcEntity(c.caller), sig, FacetNone), EdgeCall, 0.7, why)
			eb.add(i, g.find(edge, sig, FacetNone), EdgeCall, 0.7, why)
			if sig == ingest.SignalLatency {
				eb.add(i, g.find(edge, sig, FacetServer), EdgeCall, 0.7, why)
			}
		}
	}
}
