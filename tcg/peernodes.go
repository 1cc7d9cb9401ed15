package tcg

import (
	"fmt"
	"maps"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// FacetPeers is a member's contrast with its peers: a pod against the
// other pods of its version of its service, a GPU against the other GPUs
// of its pod (a tensor-parallel group) or of its service.
const FacetPeers Facet = "peers"

// minReplicaPeers is the fewest peers a pod is compared with: with one,
// a difference cannot say which of the two moved.
const minReplicaPeers = 2

// podOfReplica names the pod a series measures as a replica: a pod's
// own series and the per-pod series of its calls, not a device's or
// node's series that carry a pod label (those are compared as devices).
func podOfReplica(s *ingest.Series) string {
	switch s.Entity.Kind {
	case ingest.KindGPU, ingest.KindNode:
		return ""
	}
	return ingest.PodOf(s)
}

// peerNodes compares each member with its peers family by family
// (package peers: net of its usual difference from them in the baseline,
// on the scale of how far it strays from them) and returns, for each
// member's signal whose contrast is anomalous, a node of the member with
// FacetPeers. Peers serve the same requests with the same dependencies in
// the same minutes: what moves them all is what they share, and what one
// shows alone is its own. rolling are the services whose rollout is
// judged. Only anomalous contrasts become nodes (the
// others carry nothing). O(families · (points · log points + members ·
// cells · log members)) through peers.Cohort, plus the peers listed for
// each anomalous contrast.
func (g *Graph) peerNodes(b *ingest.Bundle, m *peers.Model, rolling map[string]bool, opt Options) []*Node {
	c := peers.Cells{B0: g.B0, B1: g.B1, W0: g.W0, W1: g.W1}
	var out []*Node
	// compareGroup contrasts each member of a group with the others,
	// family by family. An outlier is a minority (maxOutliers): when more
	// members of a family depart from the rest than that, the family
	// changed for the group, not for one member.
	compareGroup := func(group []string, ent func(string) ingest.Entity, peersOf func(string) []string, fams []peers.Family, what func(string) string) {
		best := map[string]map[ingest.SignalKind]*Node{}
		sampled := 0
		for _, f := range fams {
			var found []*Node
			// Each member against all the others (peers.Cohort: what
			// peers.Compare gives, without re-reading the others for each
			// member); the peers' names and series are listed only for
			// the anomalous contrasts, which become nodes.
			ch := peers.NewCohort(f.Members(group), c, opt.Peers)
			sampled = max(sampled, ch.Sampled())
			for i, member := range group {
				ms := f.Series([]string{member})
				if len(ms) == 0 || !ch.HasPeers(i) || ch.MaxCells(i) < opt.Peers.MinCells {
					continue // (below MinCells, Compare's Cells would be too)
				}
				dir := ingest.BadDirection(ms[0])
				if dir == 0 {
					continue
				}
				ct := ch.Compare(i)
				if ct.Cells < opt.Peers.MinCells {
					continue
				}
				pc := &PeerContrast{Family: f.Key, What: what(member), Members: []string{member}, MemberSeries: ms, ScaleFrom: ct.ScaleFrom}
				n := g.contrastNode(ent(member), f.Signal, FacetPeers, ct, dir, opt, pc, ms[0].Unit)
				if n.Anomalous {
					pc.Peers = peersOf(member)
					pc.PeerSeries = f.Series(pc.Peers)
					found = append(found, n)
				}
			}
			if len(found) > maxOutliers(len(group)) {
				continue
			}
			for _, n := range found {
				m := n.Peer.Members[0]
				if best[m] == nil {
					best[m] = map[ingest.SignalKind]*Node{}
				}
				if cur := best[m][f.Signal]; cur == nil || moreAnomalous(n.Anomaly, cur.Anomaly) {
					best[m][f.Signal] = n
				}
			}
		}
		for _, m := range slices.Sorted(maps.Keys(best)) {
			for _, sig := range slices.Sorted(maps.Keys(best[m])) {
				out = append(out, best[m][sig])
			}
		}
		if sampled > 0 {
			g.Warnings = append(g.Warnings, fmt.Sprintf("peer contrasts with %s (%d members): for members without baseline beside their peers, "+
				"the peer spread of an evenly spaced %d-member sample stands for their own (peers.Params.MaxSpreadWork)", what(group[0]), len(group), sampled))
		}
	}
	// Pods: each against the other pods of its service's group (version),
	// but in a service whose rollout is judged: while its pods are being
	// replaced, the rollout's contrast speaks for it.
	for _, svc := range slices.Sorted(maps.Keys(m.Groups)) {
		if rolling[svc] {
			continue
		}
		for _, grp := range m.Groups[svc] {
			pods := grp.Pods
			if len(pods) < minReplicaPeers+1 {
				continue
			}
			members := map[string]bool{}
			for _, p := range pods {
				members[p] = true
			}
			compareGroup(pods, func(p string) ingest.Entity {
				return g.canon(ingest.Entity{Kind: ingest.KindPod, Name: p, Service: svc})
			}, func(p string) []string {
				return slices.DeleteFunc(slices.Clone(pods), func(q string) bool { return q == p })
			}, m.FamiliesOf(b, podOfReplica, members), func(string) string { return "the other pods of " + grp.Label() })
		}
	}
	// GPUs: each against the other GPUs of its pod when the pod has
	// several (a tensor-parallel group works in lockstep), else of its
	// service.
	byPod, bySvc := map[string][]string{}, map[string][]string{}
	ents := map[string]ingest.Entity{}
	podOf := map[string]string{}
	for _, s := range b.Series {
		if s.Entity.Kind != ingest.KindGPU || !s.Aligned {
			continue
		}
		id := s.Entity.Name
		if _, ok := ents[id]; !ok {
			ents[id] = s.Entity
		}
		if p := ingest.PodOf(s); p != "" && podOf[id] == "" {
			podOf[id] = p
		}
	}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindGPU {
			if _, ok := ents[e.Name]; ok {
				ents[e.Name] = e // the merged placement
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ents)) {
		if p := podOf[id]; p != "" {
			byPod[p] = append(byPod[p], id)
		}
		if svc := ents[id].Service; svc != "" {
			bySvc[svc] = append(bySvc[svc], id)
		}
	}
	gpus := map[string]bool{}
	for id := range ents {
		gpus[id] = true
	}
	fams := m.FamiliesOf(b, peers.DeviceOf, gpus)
	// A pod's GPUs (a tensor-parallel group) are compared among
	// themselves; the GPUs of a service that has one per pod, among the
	// service's.
	done := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(ents)) {
		if done[id] {
			continue
		}
		group, what := byPod[podOf[id]], "the other GPUs of "+podOf[id]
		if len(group) < 2 {
			group, what = bySvc[ents[id].Service], "the other GPUs of "+ents[id].Service
			var single []string // the service's GPUs that are not in a group of their own pod
			for _, q := range group {
				if len(byPod[podOf[q]]) < 2 {
					single = append(single, q)
				}
			}
			group = single
			if len(group) < minReplicaPeers+1 {
				continue
			}
		}
		for _, q := range group {
			done[q] = true
		}
		compareGroup(group, func(q string) ingest.Entity { return ents[q] }, func(q string) []string {
			return slices.DeleteFunc(slices.Clone(group), func(x string) bool { return x == q })
		}, fams, func(string) string { return what })
	}
	return out
}

// maxOutliers is how many members of a group of n may depart from the
// rest in one family and still be outliers: a minority, at least one.
func maxOutliers(n int) int { return max(1, n/3) }

// peerEdges links each peer node to what its member's own node of the
// signal reaches, and to that node (the member's value holds its
// difference from its peers). A device's contrast also reaches the work
// placed on it: even its utilisation, which as a level only measures the
// work done, is a cause when it departs from peers doing the same work.
func (g *Graph) peerEdges(eb *edgeBuilder, podsOn map[string][]ingest.Entity) {
	from := map[int][]int{}
	for ei, e := range g.Edges {
		from[e.From] = append(from[e.From], ei)
	}
	for i, n := range g.Nodes {
		if n.Facet != FacetPeers || n.Peer == nil {
			continue
		}
		own := g.find(n.Entity, n.Signal, FacetNone)
		const why = "its difference from its peers is part of its value"
		eb.add(i, own, EdgeComponent, 0.9, why)
		if own >= 0 {
			for _, ei := range from[own] {
				e := g.Edges[ei]
				eb.add(i, e.To, e.Kind, e.Confidence, e.Reason)
			}
		}
		// Among one member's contrasts, the generic order: its resource use
		// beyond its peers' slows it beyond them, and slow requests fail.
		for _, sig := range peerEffects(n.Signal) {
			eb.add(i, g.find(n.Entity, sig, FacetPeers), EdgeComponent, 0.7, "within one member: resource use → latency → errors")
		}
		if n.Entity.Kind == ingest.KindGPU || n.Entity.Kind == ingest.KindNode {
			for _, p := range podsOn[n.Entity.ID()] {
				// what the device does unlike its peers, the pods it
				// serves do unlike theirs
				for _, sig := range []ingest.SignalKind{ingest.SignalLatency, ingest.SignalErrors, ingest.SignalQueue, ingest.SignalKVCache} {
					eb.add(i, g.find(p, sig, FacetPeers), EdgePlacement, 0.8, "a device unlike its peers makes the pod it serves unlike its peers")
				}
				targets := []ingest.Entity{p}
				if p.Kind == ingest.KindPod {
					targets = append(targets, svcEntity(p.Service))
				}
				for _, t := range targets {
					for _, sig := range []ingest.SignalKind{ingest.SignalLatency, ingest.SignalErrors} {
						eb.add(i, g.find(t, sig, FacetNone), EdgePlacement, 0.8, "a device unlike its peers slows the work placed on it")
					}
				}
			}
		}
	}
}

// peerEffects are the signals a contrast of sig reaches within the same
// member, in the generic order (resource use → latency → errors).
func peerEffects(sig ingest.SignalKind) []ingest.SignalKind {
	switch {
	case sig.Saturation() || sig == ingest.SignalRestarts:
		return []ingest.SignalKind{ingest.SignalLatency, ingest.SignalErrors}
	case sig == ingest.SignalLatency:
		return []ingest.SignalKind{ingest.SignalErrors}
	}
	return nil
}
