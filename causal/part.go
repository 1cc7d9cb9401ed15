package causal

import (
	"fmt"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Part is the component an on-call acts on for a candidate: a pod, a GPU,
// a node, a workload (service) or a rollout — never a call edge. A
// candidate's signal may be measured on another entity (a call edge's
// latency, a node's CPU); the part is whose change that signal is, by
// the mechanisms below, and Via keeps the entity the signal was measured
// on.
//
// The mechanisms, each from the graph's data alone:
//
//   - A call edge A→B resolves to B's server side when B's own side moved
//     with it (its server-side latency or errors, its pods' signals): the
//     replica of B whose own signals moved most, or B's only replica, or
//     the workload B when none of its replicas stands out. When B's own
//     side did not move, the edge's change is the network between A and B:
//     B's (its replica's network) when the calls of other callers into B
//     moved too or A calls nothing else that moved, A's when A's calls to
//     other services moved as well and B's other callers' did not.
//   - A node's resource signal resolves to the pod (or workload) whose own
//     use of that resource moved with it, when the pods whose use moved are
//     all of one workload: the node's pressure is that workload's own
//     work. A node stays the part when the pods whose use moved belong to
//     several workloads, or none did (pressure from outside the pods the
//     data shows).
//
// Everything else is its own part: a pod, GPU, rollout or workload.
type Part struct {
	Kind    ingest.EntityKind
	Name    string
	Service string
	// Via is the entity the candidate's signal was measured on when it is
	// not the part ("edge/checkout->cart", "node/cpu-node-1"), "" otherwise.
	Via string
	// Why says in one line how the part was chosen ("" when the part is
	// the signal's own entity).
	Why string
}

// partOf resolves node i's part (see Part).
func partOf(g *tcg.Graph, i int) Part {
	n := g.Nodes[i]
	own := Part{Kind: n.Entity.Kind, Name: n.Entity.Name, Service: n.Entity.Service}
	if pod, ok := g.SinglePod[n.Entity.Name]; ok && n.Entity.Kind == ingest.KindService {
		own.Kind, own.Name = ingest.KindPod, pod
	}
	if n.Signal == ingest.SignalChange {
		return changePart(g, i, own)
	}
	switch n.Entity.Kind {
	case ingest.KindEdge:
		return edgePart(g, i)
	case ingest.KindNode:
		if p, ok := nodePart(g, i); ok {
			return p
		}
	case ingest.KindPod:
		if p, ok := workloadPart(g, i); ok {
			return p
		}
	}
	return own
}

// workloadPart resolves a replica's signal to its workload when the
// replica does not stand out among its siblings: another replica's same
// signal moved at least half as much (a change of the whole workload
// moves every replica alike; one replica's own fault leaves the others
// behind). ok is false when the replica is the part.
func workloadPart(g *tcg.Graph, i int) (Part, bool) {
	n := g.Nodes[i]
	if n.Facet == tcg.FacetPeers || n.Entity.Service == "" {
		return Part{}, false // a contrast with its peers already says it stands out
	}
	pods := g.PodsOf(n.Entity.Service)
	if len(pods) < 2 {
		return Part{}, false
	}
	alike := 0
	for _, p := range pods {
		if p.Name == n.Entity.Name {
			continue
		}
		for _, j := range g.NodesOf(p) {
			m := g.Nodes[j]
			if m.Signal == n.Signal && m.Facet == n.Facet && m.Anomalous && m.Score >= n.Score/replicaStandOut {
				alike++
				break
			}
		}
	}
	if alike == 0 {
		return Part{}, false
	}
	svc := n.Entity.Service
	return Part{Kind: ingest.KindService, Name: svc, Service: svc, Via: n.Entity.ID(),
		Why: fmt.Sprintf("%d other of %d replicas of %s moved alike (%s): a change of the workload, not of one replica", alike, len(pods), svc, n.Signal)}, true
}

// edgePart resolves a call edge's signal to its callee's server side or
// to the network between caller and callee (see Part).
func edgePart(g *tcg.Graph, i int) Part {
	n := g.Nodes[i]
	caller, callee, ok := strings.Cut(n.Entity.Name, "->")
	if !ok || callee == "" {
		return Part{Kind: ingest.KindService, Name: n.Entity.Service, Service: n.Entity.Service, Via: n.Entity.ID()}
	}
	via := n.Entity.ID()
	serverMoved, server := calleeSideMoved(g, n, caller, callee)
	if n.Facet == tcg.FacetServer || serverMoved {
		rep, repWhy := replicaOf(g, callee)
		why := fmt.Sprintf("the callee's own side moved (%s)", server)
		if n.Facet == tcg.FacetServer {
			why = "measured on the callee's side of the call"
		}
		if repWhy != "" {
			why += "; " + repWhy
		}
		rep.Via, rep.Why = via, why
		return rep
	}
	// The network between them: whose end is shared by the calls that
	// moved?
	intoCallee, intoMoved := edgesMoved(g, n.Signal, "", callee)
	fromCaller, fromMoved := edgesMoved(g, n.Signal, caller, "")
	side := callee
	if fromMoved >= 2 && intoMoved <= 1 && intoCallee > 1 {
		side = caller
	}
	rep, _ := replicaOf(g, side)
	rep.Via = via
	rep.Why = fmt.Sprintf("the network between %s and %s: the callers' side moved and %s's own side did not; "+
		"calls into %s that moved: %d of %d, calls from %s that moved: %d of %d — the shared end is %s",
		caller, callee, callee, callee, intoMoved, intoCallee, caller, fromMoved, fromCaller, side)
	return rep
}

// calleeSideMoved reports whether the callee's own side of an edge's
// signal moved: the edge's server facet, or the callee's (or its pods')
// node of the same signal, anomalous; with a short description of what
// moved.
func calleeSideMoved(g *tcg.Graph, edge *tcg.Node, caller, callee string) (bool, string) {
	sig := edge.Signal
	best, bestScore := -1, 0.0
	consider := func(j int) {
		m := g.Nodes[j]
		if !m.Anomalous || m.Score <= bestScore {
			return
		}
		best, bestScore = j, m.Score
	}
	for j, m := range g.Nodes {
		if !m.Anomalous {
			continue
		}
		switch {
		case m.Entity.Kind == ingest.KindEdge && m.Entity.Name == caller+"->"+callee:
			if m.Signal == sig && m.Facet == tcg.FacetServer {
				consider(j)
			}
		case m.Entity.Service == callee && (m.Entity.Kind == ingest.KindService || m.Entity.Kind == ingest.KindPod):
			if m.StandIn != tcg.StandInNone {
				continue // the callee as its callers see it: the edges themselves
			}
			switch {
			case m.Signal == sig && (m.Facet == tcg.FacetNone || m.Facet == tcg.FacetSelf || m.Facet == tcg.FacetServer):
				consider(j)
			case sig == ingest.SignalErrors && (m.Signal == ingest.SignalRestarts || m.Signal == ingest.SignalLogs && m.Facet == tcg.FacetErrors):
				consider(j)
			}
		}
	}
	if best < 0 {
		return false, ""
	}
	m := g.Nodes[best]
	return true, fmt.Sprintf("%s %s", m.Label(), strings.TrimPrefix(m.DeviationWords(), "deviates "))
}

// edgesMoved counts the call edges of a signal's client side into callee
// (caller "") or out of caller (callee "") that have nodes, and how many
// of them are anomalous.
func edgesMoved(g *tcg.Graph, sig ingest.SignalKind, caller, callee string) (all, moved int) {
	seen := map[string]bool{}
	movedSeen := map[string]bool{}
	for _, m := range g.Nodes {
		if m.Entity.Kind != ingest.KindEdge || m.Signal != sig || m.Facet == tcg.FacetServer {
			continue
		}
		a, b, ok := strings.Cut(m.Entity.Name, "->")
		if !ok || caller != "" && a != caller || callee != "" && b != callee {
			continue
		}
		seen[m.Entity.Name] = true
		if m.Anomalous {
			movedSeen[m.Entity.Name] = true
		}
	}
	return len(seen), len(movedSeen)
}

// replicaOf names the replica of a service whose own signals moved most
// (the largest anomaly among its pods' nodes), its only replica, or the
// workload itself when it has several and none moved; with why, when a
// replica was chosen among several.
func replicaOf(g *tcg.Graph, svc string) (Part, string) {
	if pod, ok := g.SinglePod[svc]; ok {
		return Part{Kind: ingest.KindPod, Name: pod, Service: svc}, ""
	}
	pods := g.PodsOf(svc)
	if len(pods) == 0 {
		return Part{Kind: ingest.KindService, Name: svc, Service: svc}, ""
	}
	if len(pods) == 1 {
		return Part{Kind: ingest.KindPod, Name: pods[0].Name, Service: svc}, ""
	}
	best, second, bestScore, secondScore := "", "", 0.0, 0.0
	for _, p := range pods {
		sc := 0.0
		for _, j := range g.NodesOf(p) {
			if m := g.Nodes[j]; m.Anomalous && m.Signal != ingest.SignalTraffic && m.Score > sc {
				sc = m.Score
			}
		}
		switch {
		case sc > bestScore:
			second, secondScore = best, bestScore
			best, bestScore = p.Name, sc
		case sc > secondScore:
			second, secondScore = p.Name, sc
		}
	}
	// One replica stands out when it moved and no other moved half as
	// much (replicaStandOut): a change of the whole workload moves every
	// replica alike.
	if best != "" && secondScore < bestScore/replicaStandOut {
		why := fmt.Sprintf("of %d replicas, %s moved most (%.1f σ", len(pods), best, bestScore)
		if second != "" {
			why += fmt.Sprintf("; next %s %.1f σ", second, secondScore)
		}
		return Part{Kind: ingest.KindPod, Name: best, Service: svc}, why + ")"
	}
	return Part{Kind: ingest.KindService, Name: svc, Service: svc}, ""
}

// nodePart resolves a node's resource signal to the workload whose own
// use of that resource moved with it (see Part); ok is false when the
// node itself is the part.
func nodePart(g *tcg.Graph, i int) (Part, bool) {
	n := g.Nodes[i]
	if !n.Signal.Saturation() && n.Signal != ingest.SignalCPUThrottle {
		return Part{}, false
	}
	var movedPods []ingest.Entity
	services := map[string]bool{}
	for _, p := range g.PodsOn[n.Entity.ID()] {
		ent := p
		if p.Kind == ingest.KindPod && g.SinglePod[p.Service] == p.Name {
			ent = ingest.Entity{Kind: ingest.KindService, Name: p.Service, Service: p.Service}
		}
		for _, j := range g.NodesOf(ent) {
			m := g.Nodes[j]
			if m.Signal != n.Signal || !m.Anomalous || m.Facet != tcg.FacetNone {
				continue
			}
			// its own use moved with the node's, not after it
			if m.OnsetIdx > n.OnsetIdx+1 {
				continue
			}
			movedPods = append(movedPods, p)
			services[p.Service] = true
			break
		}
	}
	if len(movedPods) == 0 || len(services) != 1 {
		return Part{}, false
	}
	svc := movedPods[0].Service
	part := Part{Kind: ingest.KindService, Name: svc, Service: svc}
	if len(movedPods) == 1 {
		if movedPods[0].Kind == ingest.KindPod {
			part.Kind, part.Name = ingest.KindPod, movedPods[0].Name
		} else if pod, ok := g.SinglePod[svc]; ok {
			part.Kind, part.Name = ingest.KindPod, pod
		}
	}
	names := make([]string, 0, len(movedPods))
	for _, p := range movedPods {
		names = append(names, p.Name)
	}
	part.Via = n.Entity.ID()
	part.Why = fmt.Sprintf("the node's %s moved with the own use of %s (%s) and of no other workload on it: that workload's own work",
		n.Signal, svc, strings.Join(names, ", "))
	return part, true
}

// changePart names a service's change node by the change one acts on:
// its rollout (rolled back as one) when the version model knows the
// change as one, else the workload, with the change's time and what it
// was. The change nearest before the node's onset's window end is the
// one the node's step holds.
func changePart(g *tcg.Graph, i int, own Part) Part {
	var last *tcg.Change
	for k := range g.Changes {
		if c := &g.Changes[k]; c.Node == i && !c.After {
			last = c
		}
	}
	if last == nil {
		return own
	}
	p := Part{Kind: ingest.KindService, Name: last.Service, Service: last.Service, Via: g.Nodes[i].Entity.ID()}
	if last.Rollout != "" {
		p.Kind, p.Name = ingest.KindRollout, last.Rollout
	}
	p.Why = fmt.Sprintf("its change at %s: %s", last.At.String(), last.What)
	return p
}
