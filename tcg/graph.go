package tcg

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// Facet distinguishes nodes of the same entity and signal kind that measure
// different things: a service's end-to-end latency versus its exclusive
// (self) time; an edge's caller-side, callee-side and network gap latency.
type Facet string

// Facets.
const (
	FacetNone   Facet = ""
	FacetSelf   Facet = "self"
	FacetClient Facet = "client"
	FacetServer Facet = "server"
	FacetGap    Facet = "gap"
	FacetMix    Facet = "mix" // the mix of a service's operations (traffic), or of its log templates (logs)
	// Log facets: records, error-level records, records of templates new
	// since the baseline, templates that stopped.
	FacetRecords Facet = "records"
	FacetErrors  Facet = "errors"
	FacetNew     Facet = "new"
	FacetMissing Facet = "missing"
	// FacetPattern is what a service's requests do, per request: the order
	// of their log statements and calls (ingest.LogPatternShift); on a call
	// edge, what the caller does after the callee answers.
	FacetPattern Facet = "pattern"
	// FacetUnready is a rollout's availability: the share of the new
	// version's pods asked for that report (package peers).
	FacetUnready Facet = "unready"
	// FacetCalls is a service's calls: on a rollout, the share of the
	// dependencies its old version's pods call that its new version's
	// pods call too (peers.Model.CallsContrast); on a service, its calls
	// per request against the baseline's (CallsPerRequest).
	FacetCalls Facet = "calls"
)

// StandIn says what a stand-in node is made of (see standIns).
type StandIn uint8

// Stand-in kinds.
const (
	StandInNone    StandIn = iota
	StandInCallers         // the callee side of the calls into the service
	StandInCalls           // the service's own calls (the target only)
)

// Node is one component signal: (entity, signal kind, facet).
type Node struct {
	ID     string // "kind/name:signal[/facet]", deterministic
	Entity ingest.Entity
	Signal ingest.SignalKind
	Facet  Facet
	Series []*ingest.Series // all series of this node, sorted by Key
	Rep    int              // index into Series of the representative (most anomalous)
	Dir    int              // +1 up is bad, -1 down is bad, 0 both
	Anomaly
	State       State
	Transitions []Transition
	Depth       int // hops to the target along edges (-1: no path)
	// StandIn says, for a service's node made of call-edge series
	// (standIns), whose: StandInCallers (the service as its callers see
	// it) or StandInCalls (the target seen through its own calls);
	// StandInNone for the others.
	StandIn StandIn
	// Peer is, for a node that compares a member with its peers (a
	// rollout's new pods with its old ones), what was compared; nil for
	// the others.
	Peer *PeerContrast
}

// Values returns the representative series' values on the grid.
func (n *Node) Values() []float64 { return n.Series[n.Rep].V }

// DeviationWords says how far the node's anomaly is from its baseline:
// "deviates 7.2 robust σ from its baseline", or, for a per-request pattern
// test (its score is the test's standard deviate, not a distance in robust
// σ), "is a 7.7 σ change of its requests' patterns (a test against the
// baseline's)".
func (n *Node) DeviationWords() string {
	if len(n.Series) > 0 && n.Rep >= 0 && n.Rep < len(n.Series) && n.Series[n.Rep].Name == ingest.LogPatternShift {
		return fmt.Sprintf("is a %.1f σ change of its requests' patterns (a test against the baseline's)", n.Score)
	}
	return fmt.Sprintf("deviates %.1f robust σ from its baseline", n.Score)
}

// Label is a short human name: "service/frontend latency (self)".
func (n *Node) Label() string {
	s := n.Entity.ID() + " " + n.Signal.String()
	if n.Facet != FacetNone {
		s += " (" + string(n.Facet) + ")"
	}
	return s
}

// Graph is the temporal causal graph of one incident.
type Graph struct {
	Nodes  []*Node
	Edges  []Edge
	Target int // index of the target node (-1 when none)
	// TargetSeries is the target node's series the incident is about (e.g.
	// the p90 latency the alert named).
	TargetSeries *ingest.Series
	Incident     Incident
	// Threshold is the robust z from which a deviation counts as anomalous
	// (Options.Threshold).
	Threshold float64
	Grid      []ingest.Time
	Step      time.Duration
	// Cell ranges on the grid: baseline [B0,B1), incident window [W0,W1).
	B0, B1, W0, W1 int
	Warnings       []string
	// Pruned counts nodes dropped before edges were built (no data in the
	// baseline or window).
	Pruned int
	// SinglePod maps a service with exactly one pod to that pod: its pod
	// series were merged into the service's nodes.
	SinglePod map[string]string
	// Hosted maps a node or GPU entity ID to the services placed on it,
	// sorted: a device cause is reported with the workloads it hosts.
	Hosted map[string][]string
	// Counts are, by entity ID, the series counting the entity's requests
	// per cell (a count per period or a rate): what a ratio of its
	// requests is a share of.
	Counts map[string]CountSeries
	// Changes are the services' changes up to the window's end (rollouts,
	// configuration updates, scaling, change records), oldest first: the
	// ranking judges them by their timing, the card lists them.
	Changes []Change
	// PodsOn maps a node or GPU entity ID to the pods (or, where no pod is
	// known, the services) placed on it, sorted by entity ID.
	PodsOn map[string][]ingest.Entity

	placedBy map[string]string // device ID + "|" + entity ID → why it is placed there
	calls    []call            // the call topology (callTopology)
	pods     map[string][]ingest.Entity
	byEnt    map[string][]int // facetless node indices by entity ID
	// allByEnt is every node index by entity ID (NodesOf), built once.
	allByEnt     map[string][]int
	allByEntOnce sync.Once

	in, out [][]int // edge indices by To and by From
	byID    map[string]int
}

// In returns the indices of edges into node i.
func (g *Graph) In(i int) []int { return g.in[i] }

// Out returns the indices of edges out of node i.
func (g *Graph) Out(i int) []int { return g.out[i] }

// NodeByID returns the node index or -1.
func (g *Graph) NodeByID(id string) int {
	if i, ok := g.byID[id]; ok {
		return i
	}
	return -1
}

func nodeID(e ingest.Entity, sig ingest.SignalKind, f Facet) string {
	id := e.ID() + ":" + sig.String()
	if f != FacetNone {
		id += "/" + string(f)
	}
	return id
}

// facetOf classifies a series into a facet.
func facetOf(s *ingest.Series) Facet {
	switch s.Name {
	case ingest.EdgeClient:
		return FacetClient
	case ingest.EdgeServer:
		return FacetServer
	case ingest.EdgeGap:
		return FacetGap
	case ingest.TraceSelf:
		return FacetSelf
	case ingest.TraceOpMix, ingest.LogMixShift:
		return FacetMix
	case ingest.LogRecords:
		return FacetRecords
	case ingest.LogErrors:
		return FacetErrors
	case ingest.LogNewTemplates:
		return FacetNew
	case ingest.LogMissingTemplates:
		return FacetMissing
	case ingest.LogPatternShift:
		return FacetPattern
	case CallsPerRequest:
		return FacetCalls
	}
	if s.Entity.Kind == ingest.KindEdge && s.Signal == ingest.SignalLatency {
		switch s.Labels.Get("reporter") {
		case "source", "client":
			return FacetClient
		case "destination", "server":
			return FacetServer
		}
	}
	return FacetNone
}

// Build constructs the graph: nodes, anomalies, edges, depths and the state
// machine. The bundle must be finalized.
func Build(b *ingest.Bundle, inc Incident, opt Options) (*Graph, error) {
	opt = opt.withDefaults(b.Step)
	if len(b.Grid) == 0 {
		return nil, fmt.Errorf("tcg: the inputs hold no time series or spans to analyse")
	}
	g := &Graph{Incident: inc, Threshold: opt.Threshold, Grid: b.Grid, Step: b.Step, Target: -1, byID: map[string]int{}}
	g.cells(inc)
	if g.B1-g.B0 < 2 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("baseline has %d steps before the incident window (%v); results are weak", g.B1-g.B0, inc.WindowStart))
	}
	// A service with exactly one pod: the pod is the service; its series
	// join the service's nodes (two nodes measuring the same thing would
	// split every effect between them).
	podsPer := map[string][]string{}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindPod && e.Service != "" {
			podsPer[e.Service] = append(podsPer[e.Service], e.Name)
		}
	}
	g.SinglePod = map[string]string{}
	for svc, pods := range podsPer {
		if len(pods) == 1 {
			g.SinglePod[svc] = pods[0]
		}
	}
	// Rollouts judged by their new pods against their old ones (package
	// peers) replace their service's change step.
	model := peers.Build(b, opt.Peers)
	rollouts, judged := g.rolloutNodes(b, model, opt)
	rollouts = append(rollouts, g.peerNodes(b, model, judged, opt)...)
	// Group series into nodes.
	groups := map[string][]*ingest.Series{}
	meta := map[string]*Node{}
	counts := requestCounts(b.Series, b.Step)
	g.Counts = counts
	series := append(append([]*ingest.Series(nil), b.Series...), changeSeries(b, opt.ChangeHold, nil, inc.At)...)
	series = append(series, callsSeries(b, bundleTopology(b), counts, g.B0, g.B1)...)
	for _, s := range series {
		if !s.Aligned || s.Entity.Kind == ingest.KindUnknown || s.Entity.Name == "" {
			continue
		}
		f := facetOf(s)
		ent := s.Entity
		if ent.Kind == ingest.KindPod && g.SinglePod[ent.Service] == ent.Name {
			ent = ingest.Entity{Kind: ingest.KindService, Name: ent.Service, Service: ent.Service, Node: ent.Node}
		}
		id := nodeID(ent, s.Signal, f)
		if _, ok := meta[id]; !ok {
			meta[id] = &Node{ID: id, Entity: ent, Signal: s.Signal, Facet: f}
		}
		groups[id] = append(groups[id], s)
	}
	// Placement facts are the entity's, not one series': a GPU's series
	// from nvidia-smi name no pod while DCGM's do. A host serves many
	// workloads, so a node entity names none.
	merged := make(map[string]ingest.Entity, len(b.Entities))
	for _, e := range b.Entities {
		merged[e.ID()] = e
	}
	for _, n := range meta {
		switch n.Entity.Kind {
		case ingest.KindGPU:
			if e, ok := merged[n.Entity.ID()]; ok {
				n.Entity.Service, n.Entity.Node, n.Entity.GPU = e.Service, e.Node, e.GPU
			}
		case ingest.KindNode:
			n.Entity.Service = ""
		}
	}
	if w := standIns(groups, meta, inc.Target); w != "" {
		g.Warnings = append(g.Warnings, w)
	}
	for _, n := range rollouts {
		meta[n.ID] = n
		groups[n.ID] = n.Series
	}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// Each node's series are sorted and its anomaly detected on its own
	// (every CPU, each writing only its node); the nodes are then added in
	// ID order. O(series · cells log cells).
	kept := make([]bool, len(ids))
	parallel.For(len(ids), 64, func(k int) {
		n := meta[ids[k]]
		if n.Peer != nil {
			kept[k] = true // a contrast, tested against its peers (rolloutNodes)
			return
		}
		ss := sortByKey(groups[ids[k]])
		n.Series = ss
		best, bestScore, bestAn := -1, math.Inf(-1), Anomaly{}
		for i, s := range ss {
			an, dir, ok := seriesAnomaly(s, b.Step, g.Grid, opt, g.B0, g.B1, g.W0, g.W1, counts)
			if !ok {
				continue
			}
			sc := an.Score
			if an.Anomalous {
				sc += 1e6 // anomalous series win over non-anomalous ones
			}
			if sc > bestScore {
				best, bestScore, bestAn = i, sc, an
				n.Dir = dir
			}
		}
		if best >= 0 {
			n.Rep, n.Anomaly = best, bestAn
			n.Depth = -1
			kept[k] = true
		}
	})
	for k, id := range ids {
		if !kept[k] {
			g.Pruned++
			continue
		}
		g.byID[id] = len(g.Nodes)
		g.Nodes = append(g.Nodes, meta[id])
	}
	g.tailTests(b, opt)
	g.materialParts(opt)
	g.changePriors(opt)
	g.pickTarget(inc.Target)
	g.buildEdges(b, opt)
	g.collectChanges(b, model, opt.ChangeHold)
	g.depths()
	g.runStateMachine(opt)
	return g, nil
}

// seriesAnomaly is the anomaly of one series of a node with baseline
// cells [b0,b1) and window cells [w0,w1), and the direction that is bad
// for it; ok is false when the series has nothing to judge.
func seriesAnomaly(s *ingest.Series, step time.Duration, grid []ingest.Time, opt Options, b0, b1, w0, w1 int, counts map[string]CountSeries) (an Anomaly, dir int, ok bool) {
	dir = ingest.BadDirection(s)
	switch {
	case s.Signal == ingest.SignalTraffic || s.Name == ingest.LogRecords:
		dir = 1 // a surge can cause an incident; a drop is an effect
	case s.Name == CallsPerRequest:
		dir = -1 // calls its requests no longer make
	}
	hold := 1
	if s.Every > 0 && step > 0 {
		hold = max(1, int(s.Every/step))
	}
	an = detectHeld(s.V, b0, b1, w0, w1, dir, opt.Threshold, grid, hold)
	if cs, has := counts[s.Entity.ID()]; has && countedRatio(s) {
		// a share of counted requests: judged as the counts it is
		if bn, ok := binomialAnomaly(s.V, cs, b0, b1, w0, w1, dir, opt.Threshold, grid, hold); ok {
			return bn, dir, true
		}
	}
	if s.Name == ingest.LogPatternShift {
		// A test of the window against the whole baseline, in
		// standard deviates: 0 and 1 are its location and scale.
		an = detectAtHeld(s.V, 0, 1, w0, w1, dir, opt.Threshold, grid, hold)
		// Its last window cell tests the whole window: the
		// strongest evidence the test gives.
		if last := s.V[min(w1, len(s.V))-1]; an.Anomalous && last > an.Score {
			an.Score, an.Incident = last, last
		}
	} else if floor := naturalScale(s, an.Baseline, step); an.Scale < floor && an.Scale > 0 {
		an = detectAtHeld(s.V, an.Baseline, floor, w0, w1, dir, opt.Threshold, grid, hold)
	}
	if s.Name != ingest.LogPatternShift {
		an = recurrenceCap(an, s.V, b0, b1, w0, w1, dir, hold, opt.RecurrenceShare)
	}
	if an.Scale == 0 && an.OnsetIdx < 0 && an.Score == 0 {
		return an, dir, false
	}
	return an, dir, true
}

// naturalScale is the least scale a series can have by what it measures,
// whatever its baseline did: a series of standard normal deviates (a mix
// or pattern test) varies by 1; a count of events by at least its Poisson
// spread, √max(level, 1) — a baseline that happened to sit still (no error
// record in twenty minutes) does not make three records sixty deviations
// away; a rate of spans counted per step likewise. 0 for other series.
func naturalScale(s *ingest.Series, level float64, step time.Duration) float64 {
	switch {
	case s.Source == ingest.DerivedSource && s.Unit == "1/s" && step > 0:
		// a rate of spans counted per step: the Poisson spread of the count
		sec := step.Seconds()
		return math.Sqrt(math.Max(math.Abs(level)*sec, 1)) / sec
	case s.Unit == "z":
		return 1
	case s.Stat == "count" && s.Signal == ingest.SignalLogs:
		return math.Sqrt(math.Max(math.Abs(level), 1))
	}
	return 0
}

// cells maps the incident's times onto grid index ranges.
func (g *Graph) cells(inc Incident) {
	idx := func(t ingest.Time) int {
		return sort.Search(len(g.Grid), func(i int) bool { return g.Grid[i] >= t })
	}
	g.W0, g.W1 = idx(inc.WindowStart), idx(inc.WindowEnd+1)
	g.B0, g.B1 = idx(inc.BaselineStart), g.W0
	if g.B0 > g.B1 {
		g.B0 = g.B1 // the data starts inside the window: no baseline
	}
	if g.W1 <= g.W0 {
		g.W1 = min(g.W0+1, len(g.Grid))
	}
}

// pickTarget chooses the node the incident is about.
func (g *Graph) pickTarget(t Target) {
	if t.Service == "" {
		return
	}
	sig := t.Signal
	best := -1
	for i, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindService || n.Entity.Name != t.Service || n.Signal != sig || n.Facet != FacetNone {
			continue
		}
		best = i
	}
	if best < 0 {
		for i, n := range g.Nodes {
			if n.Entity.Service == t.Service && n.Signal == sig && n.Facet == FacetNone &&
				(best < 0 || n.Entity.Kind < g.Nodes[best].Entity.Kind) {
				best = i
			}
		}
	}
	if best < 0 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("no %s series for target service %q", sig, t.Service))
		return
	}
	g.Target = best
	n := g.Nodes[best]
	g.TargetSeries = n.Series[n.Rep]
	if t.Stat != "" && n.StandIn == StandInNone {
		for _, s := range n.Series {
			if s.Stat == t.Stat && (g.TargetSeries.Stat != t.Stat || s.Source == ingest.DerivedSource) {
				g.TargetSeries = s
			}
		}
	}
}

// depths sets each node's hop distance to the target along edges.
func (g *Graph) depths() {
	if g.Target < 0 {
		return
	}
	g.Nodes[g.Target].Depth = 0
	queue := []int{g.Target}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, ei := range g.in[cur] {
			p := g.Edges[ei].From
			if g.Nodes[p].Depth < 0 {
				g.Nodes[p].Depth = g.Nodes[cur].Depth + 1
				queue = append(queue, p)
			}
		}
	}
}

// AnomalousCount returns how many nodes are anomalous.
func (g *Graph) AnomalousCount() int {
	n := 0
	for _, x := range g.Nodes {
		if x.Anomalous {
			n++
		}
	}
	return n
}

// DOT renders the graph (anomalous nodes and the edges between them) in
// Graphviz format, deterministic.
func (g *Graph) DOT() string {
	var sb strings.Builder
	sb.WriteString("digraph tcg {\n  rankdir=LR;\n")
	for i, n := range g.Nodes {
		if !n.Anomalous && i != g.Target {
			continue
		}
		fmt.Fprintf(&sb, "  n%d [label=%q];\n", i, fmt.Sprintf("%s\n%s z=%.1f", n.Label(), n.State, n.Score))
	}
	for _, e := range g.Edges {
		a, b := g.Nodes[e.From], g.Nodes[e.To]
		if (!a.Anomalous && e.From != g.Target) || (!b.Anomalous && e.To != g.Target) {
			continue
		}
		fmt.Fprintf(&sb, "  n%d -> n%d [label=%q];\n", e.From, e.To, fmt.Sprintf("%s +%v c=%.2f", e.Kind, e.Lag, e.Confidence))
	}
	sb.WriteString("}\n")
	return sb.String()
}

// sortByKey sorts ss stably by Series.Key, each key built once.
func sortByKey(ss []*ingest.Series) []*ingest.Series {
	if len(ss) < 2 {
		return ss
	}
	type keyed struct {
		key string
		s   *ingest.Series
	}
	ks := make([]keyed, len(ss))
	for i, s := range ss {
		ks[i] = keyed{s.Key(), s}
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	for i := range ks {
		ss[i] = ks[i].s
	}
	return ss
}
