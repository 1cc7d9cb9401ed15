package causal

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Per-node evidence of the fitted mechanisms: residual z-scores, parents'
// and children's anomalies and the exact physical composition that traces
// give (latency = own work + calls × client time; resource use summed over
// pods).

// NodeEvidence is what the ranking knows of one node.
type NodeEvidence struct {
	Node int
	// Z is the node's marginal robust deviation (tcg's anomaly score).
	Z float64
	// ZRes is its mechanism-change score: the deviation its parents, by
	// the mechanism fitted on the baseline, do not explain.
	ZRes float64
	// ZPhys is, for a latency node in seconds, its added seconds minus
	// what its latency parents added (callees, calls, own work), in
	// baseline scales; NaN for other nodes.
	ZPhys float64
	// ParentZ and ChildZ are the largest marginal deviations among the
	// node's parents and children (0 when none is anomalous).
	ParentZ, ChildZ float64
	// AnomalousChildren counts the children that are anomalous.
	AnomalousChildren int
	// Depth is the number of hops to the target (-1: no path).
	Depth int
	// Parts are, when the node's rise decomposes exactly over its parents
	// (latency composition, resource use summed over pods), each such
	// parent's share of the rise in the node's units.
	Parts map[int]float64
	// RHT is CIRCA's regression-based hypothesis test score: the largest
	// |z| of the window's residuals against the baseline's (non-robust).
	// Only Evidence fills it (eval's feature dumps); the ranking leaves it 0.
	RHT float64
}

// nodeEvidence computes the evidence of every node for which need is true
// (every node when need is nil; m must have fitted them), the nodes spread
// over the CPUs (each reads the graph and the fits, and writes only its own
// slot); the others keep only Node, Z, Depth and ZPhys = NaN.
// O(nodes + Σ_needed (in + out edges) · cells).
func nodeEvidence(g *tcg.Graph, m *mechanisms, p MechanismParams, need []bool) []NodeEvidence {
	out := make([]NodeEvidence, len(g.Nodes))
	var todo []int
	for i, n := range g.Nodes {
		out[i] = NodeEvidence{Node: i, Z: n.Score, Depth: n.Depth, ZPhys: math.NaN()}
		if need == nil || need[i] {
			todo = append(todo, i)
		}
	}
	byEnt := nodesByEntity(g)
	parallel.For(len(todo), 16, func(k int) {
		i := todo[k]
		n := g.Nodes[i]
		ev := NodeEvidence{Node: i, Z: n.Score, Depth: n.Depth, ZPhys: math.NaN()}
		ev.ZRes = m.residualZ(i, p.Clamp)
		for _, ei := range g.In(i) {
			if q := g.Nodes[g.Edges[ei].From]; q.Anomalous {
				ev.ParentZ = math.Max(ev.ParentZ, q.Score)
			}
		}
		for _, ei := range g.Out(i) {
			if q := g.Nodes[g.Edges[ei].To]; q.Anomalous {
				ev.ChildZ = math.Max(ev.ChildZ, q.Score)
				ev.AnomalousChildren++
			}
		}
		if n.Anomalous {
			ev.ZPhys, ev.Parts = physicalResidual(g, byEnt, i)
		}
		out[i] = ev
	})
	return out
}

// nodesByEntity lists every node's index under its entity's ID, in index
// order (all facets). O(nodes).
func nodesByEntity(g *tcg.Graph) map[string][]int {
	out := make(map[string][]int)
	for i, n := range g.Nodes {
		id := n.Entity.ID()
		out[id] = append(out[id], i)
	}
	return out
}

// addRHT fills every node's RHT (the ranking does not use it: only
// Evidence's feature dump does).
func addRHT(g *tcg.Graph, ev []NodeEvidence) {
	for i := range ev {
		var ps []int
		for _, ei := range g.In(i) {
			if g.Edges[ei].Kind != tcg.EdgeLagged {
				ps = append(ps, g.Edges[ei].From)
			}
		}
		ev[i].RHT = rhtScore(g, i, ps)
	}
}

// physicalResidual is, for a latency node, the seconds it added beyond
// what its latency parents account for, in the node's baseline scales (NaN
// when the node is not a latency in seconds). It uses the exact
// composition traces give where they give it, on the span-derived means
// (means add up): a service's latency = its own work (exclusive time per
// request) + Σ calls per request × the client side of each call; a call's
// client side = its server side + the network/queueing gap. Otherwise the
// same statistic of its latency parents (a callee adds its latency to its
// caller's; a service's latency rises at most as much as its worst pod's).
// Every term is measured over the node's anomalous episode (its onset to
// the end of the episode) against the baseline.
// byEnt is nodesByEntity(g).
func physicalResidual(g *tcg.Graph, byEnt map[string][]int, i int) (float64, map[int]float64) {
	n := g.Nodes[i]
	if n.StandIn == tcg.StandInCalls {
		return standInResidual(g, i)
	}
	if n.Signal == ingest.SignalErrors {
		return errorsResidual(g, i)
	}
	if n.Signal != ingest.SignalLatency {
		return usageResidual(g, i)
	}
	cells := episodeCells(g, n)
	child := composableSeries(n, "")
	if child == nil || len(cells) == 0 {
		return math.NaN(), nil
	}
	dc, scale := shift(child, g.B0, g.B1, cells)
	if math.IsNaN(dc) || !(scale > 0) {
		return math.NaN(), nil
	}
	derived := child.Source == ingest.DerivedSource
	var parts, callees, pods []int
	for _, ei := range g.In(i) {
		q := g.Nodes[g.Edges[ei].From]
		if q.Signal != ingest.SignalLatency {
			continue
		}
		switch {
		case q.Facet == tcg.FacetSelf || q.Facet == tcg.FacetClient || q.Facet == tcg.FacetGap || q.Facet == tcg.FacetServer:
			parts = append(parts, g.Edges[ei].From)
		case q.Entity.Kind == ingest.KindPod && n.Entity.Kind != ingest.KindPod:
			pods = append(pods, g.Edges[ei].From)
		default:
			callees = append(callees, g.Edges[ei].From)
		}
	}
	if len(parts)+len(callees)+len(pods) == 0 {
		return math.NaN(), nil // nothing to compose: no exact check
	}
	sort.Ints(parts)
	sort.Ints(callees)
	sort.Ints(pods)
	want := statOf(child)
	if derived {
		want = "" // the derived composable series
	}
	explained := 0.0
	contrib := map[int]float64{}
	if len(parts) > 0 {
		for _, j := range parts {
			q := g.Nodes[j]
			qs := composableSeries(q, want)
			if qs == nil {
				continue
			}
			d, _ := shift(qs, g.B0, g.B1, cells)
			if math.IsNaN(d) {
				continue
			}
			k := 1.0
			if q.Facet == tcg.FacetClient && n.Entity.Kind == ingest.KindService {
				k = callsPerRequest(g, byEnt, q, n, cells)
			}
			explained += k * d
			if k*d > 0 {
				contrib[j] = k * d
			}
		}
	} else {
		calls := 0.0
		for _, j := range callees {
			if qs := composableSeries(g.Nodes[j], want); qs != nil {
				if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
					d *= calleeShare(g, byEnt, g.Nodes[j], n, cells)
					calls += d
					contrib[j] = d
				}
			}
		}
		worst, wj := 0.0, -1
		for _, j := range pods {
			if qs := composableSeries(g.Nodes[j], want); qs != nil {
				if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
					contrib[j] = d // a pod's share of its service's rise
					if d > worst {
						worst, wj = d, j
					}
				}
			}
		}
		_ = wj
		explained = math.Max(calls, worst)
	}
	dir := 1.0
	if n.Dir < 0 {
		dir = -1
	}
	return dir * (dc - explained) / scale, contrib
}

// standInResidual is, for a service's node made of its own calls' series
// (tcg.StandInCalls), 0: its rise is its calls' rises, each anomalous call
// its part in proportion to its deviation. NaN when none of its calls is
// anomalous.
func standInResidual(g *tcg.Graph, i int) (float64, map[int]float64) {
	n := g.Nodes[i]
	contrib := map[int]float64{}
	for _, ei := range g.In(i) {
		j := g.Edges[ei].From
		q := g.Nodes[j]
		if q.Anomalous && q.Entity.Kind == ingest.KindEdge && q.Entity.Caller == n.Entity.Service && q.Score > 0 {
			contrib[j] = q.Score
		}
	}
	if len(contrib) == 0 {
		return math.NaN(), nil
	}
	return 0, contrib
}

// errorsResidual is the error origin along calls: for a node's errors (a
// service's, or a call's as its caller sees it), the part of their rise
// that the errors of what it calls do not account for, in its baseline
// scales, and each callee's part. A caller whose failures are its callee's
// failures passed on (the same requests failing) owns none of them; the
// failures begin at the deepest failing service whose callees do not
// explain them. Parents count when they are errors of another entity (a
// callee, the callee's side of a call), each callee once (its largest
// rise). Rises compose in failures per cell when both sides' requests are
// counted (a ratio times its requests: the caller's failures are its
// callees' failures, whatever each one's denominator), else in the node's
// own unit (a ratio's rise against a ratio's: one call per request). The
// largest callee's part explains the rise, not their sum: two views of the
// same failing calls (a proxy and the service behind it) must not count
// twice. All in the bad direction (a success ratio's fall is a failure
// ratio's rise). NaN when no such parent moved.
func errorsResidual(g *tcg.Graph, i int) (float64, map[int]float64) {
	dc, scale, contrib := errorsComposition(g, i)
	if math.IsNaN(dc) || contrib == nil {
		return math.NaN(), nil
	}
	explained := 0.0
	for _, d := range contrib {
		explained = math.Max(explained, d)
	}
	return (dc - math.Min(explained, math.Max(dc, 0))) / scale, contrib
}

// errorsComposition is errorsResidual's accounting: the rise of node i's
// failures over its episode in the bad direction (dc, in its series'
// unit, NaN when it cannot be measured), its baseline scale, and each
// failing callee's part of it in the same unit (nil when none moved).
func errorsComposition(g *tcg.Graph, i int) (float64, float64, map[int]float64) {
	n := g.Nodes[i]
	cells := episodeCells(g, n)
	child := n.Series[n.Rep]
	dc, scale := failureShift(child, g.B0, g.B1, cells)
	if math.IsNaN(dc) || !(scale > 0) || len(cells) == 0 {
		return math.NaN(), 0, nil
	}
	dc *= badSign(n.Dir)
	// failures is how many failed requests per cell one unit of a rise of
	// node m's series s is: a ratio's requests per cell (when they are
	// counted), a rate's cell in seconds; false when unknown.
	failures := func(m *tcg.Node, s *ingest.Series) (float64, bool) {
		switch s.Unit {
		case "1/s":
			return g.Step.Seconds(), g.Step > 0
		case "ratio":
			cs, ok := g.Counts[m.Entity.ID()]
			if !ok {
				return 1, false
			}
			var rs []float64
			for _, t := range cells {
				if c := cs.At(t); !math.IsNaN(c) {
					rs = append(rs, c)
				}
			}
			if len(rs) == 0 {
				return 1, false
			}
			return measure.Quantile(rs, 0.5), true
		}
		return 1, false
	}
	kc, counted := failures(n, child)
	best := map[string]float64{} // per callee: its largest part, in the node's units
	arg := map[string]int{}
	for _, ei := range g.In(i) {
		j := g.Edges[ei].From
		q := g.Nodes[j]
		if q.Signal != ingest.SignalErrors || !q.Anomalous || q.Entity.ID() == n.Entity.ID() || q.Facet == tcg.FacetUnready {
			continue
		}
		qs := q.Series[q.Rep]
		d, _ := shift(qs, g.B0, g.B1, cells)
		d *= badSign(q.Dir)
		if math.IsNaN(d) || d <= 0 {
			continue
		}
		kq, qCounted := failures(q, qs)
		switch {
		case counted && qCounted:
			d = d * kq / kc // its failures, as a share of the node's requests
		case qs.Unit != child.Unit:
			continue
		}
		key := q.Entity.Service
		if key == "" {
			key = q.Entity.ID()
		}
		if _, seen := arg[key]; !seen || d > best[key] {
			best[key], arg[key] = d, j
		}
	}
	if len(best) == 0 {
		return dc, scale, nil
	}
	contrib := map[int]float64{}
	for key, d := range best {
		contrib[arg[key]] = d
	}
	return dc, scale, contrib
}

// badSign is +1 for a series whose rise is bad (or either way), −1 for one
// whose fall is.
func badSign(dir int) float64 {
	if dir < 0 {
		return -1
	}
	return 1
}

// usageResidual is, for a node's or a service's resource use (CPU, memory,
// network, disk) that is the sum of what the pods placed on it use, the
// part of its rise its pods' rises do not account for, in its baseline
// scales, and each pod's rise (same signal, same unit). NaN when the node
// has no such parts.
func usageResidual(g *tcg.Graph, i int) (float64, map[int]float64) {
	n := g.Nodes[i]
	if !n.Signal.Saturation() || n.Entity.Kind != ingest.KindNode {
		return math.NaN(), nil
	}
	cells := episodeCells(g, n)
	child := n.Series[n.Rep]
	dc, scale := shift(child, g.B0, g.B1, cells)
	if math.IsNaN(dc) || !(scale > 0) || len(cells) == 0 {
		return math.NaN(), nil
	}
	contrib := map[int]float64{}
	explained := 0.0
	for _, ei := range g.In(i) {
		j := g.Edges[ei].From
		q := g.Nodes[j]
		if q.Signal != n.Signal || q.Entity.Kind == ingest.KindNode || q.Entity.Kind == ingest.KindGPU {
			continue
		}
		qs := q.Series[q.Rep]
		if qs.Unit != child.Unit {
			continue
		}
		if d, _ := shift(qs, g.B0, g.B1, cells); d > 0 {
			contrib[j] = d
			explained += d
		}
	}
	if len(contrib) == 0 {
		return math.NaN(), nil
	}
	dir := 1.0
	if n.Dir < 0 {
		dir = -1
	}
	return dir * (dc - explained) / scale, contrib
}

// composableSeries picks the node's series that composes with its
// neighbours': the span-derived mean (exclusive time, gap) when the node has
// one and want is "", else the series of statistic want (statOf), else the
// representative when it is in seconds. nil when none is in seconds, and
// when want is a statistic the node's series name but none of them is
// want: a callee's p99 rising does not add to its caller's median, nor a
// quantile to a mean (statistics compose only with their own kind), so such
// a neighbour cannot account for the node's rise.
func composableSeries(n *tcg.Node, want string) *ingest.Series {
	if want == "" {
		for _, s := range n.Series {
			if s.Source == ingest.DerivedSource && s.Unit == "s" && (s.Stat == "mean" || s.Stat == "self" || s.Stat == "gap") {
				return s
			}
		}
	}
	if want != "" {
		known := false
		for _, s := range n.Series {
			st := statOf(s)
			if st == want && s.Unit == "s" {
				return s
			}
			known = known || st != "" && s.Unit == "s"
		}
		if known {
			return nil
		}
	}
	if r := n.Series[n.Rep]; r.Unit == "s" {
		return r
	}
	for _, s := range n.Series {
		if s.Unit == "s" {
			return s
		}
	}
	return nil
}

// statOf is the statistic a series measures: its Stat, else the one its
// labels name — a quantile label (0.99: "p99") or a stat label
// (CloudWatch's Average: "mean", p95: "p95") — else "".
func statOf(s *ingest.Series) string {
	if s.Stat != "" {
		return s.Stat
	}
	if q := s.Labels.Get("quantile"); q != "" {
		if f, err := strconv.ParseFloat(q, 64); err == nil && f > 0 && f < 1 {
			return "p" + strconv.FormatFloat(math.Round(f*1e6)/1e4, 'f', -1, 64)
		}
	}
	switch v := strings.ToLower(s.Labels.Get("stat")); {
	case v == "average" || v == "avg" || v == "mean":
		return "mean"
	case len(v) > 1 && v[0] == 'p':
		if _, err := strconv.ParseFloat(v[1:], 64); err == nil {
			return v
		}
	}
	return ""
}

// episodeCells are the window cells of the node's anomalous episode: from
// its onset (the window start when it has none) to the window end.
func episodeCells(g *tcg.Graph, n *tcg.Node) []int {
	from := g.W0
	if n.OnsetIdx >= g.W0 && n.OnsetIdx < g.W1 {
		from = n.OnsetIdx
	}
	out := make([]int, 0, g.W1-from)
	for t := from; t < g.W1; t++ {
		out = append(out, t)
	}
	return out
}

// shift returns the median of s over cells minus its baseline median, and
// its baseline robust scale (measure.RobustSpread).
func shift(s *ingest.Series, b0, b1 int, cells []int) (float64, float64) {
	var bs, ws []float64
	for t := b0; t < b1 && t < len(s.V); t++ {
		if !math.IsNaN(s.V[t]) {
			bs = append(bs, s.V[t])
		}
	}
	for _, t := range cells {
		if t < len(s.V) && !math.IsNaN(s.V[t]) {
			ws = append(ws, s.V[t])
		}
	}
	if len(bs) < 2 || len(ws) == 0 {
		return math.NaN(), math.NaN()
	}
	med, mad := medianMAD(bs)
	sb := append([]float64(nil), bs...)
	sort.Float64s(sb)
	scale := measure.RobustSpread(bs, med, mad, measure.QuantileSorted(sb, 0.75)-measure.QuantileSorted(sb, 0.25))
	return measure.Quantile(ws, 0.5) - med, scale
}

// failureShift is shift for a failure count, rate or ratio, whose baseline
// is often exactly 0 (no error in an hour): its scale is then the graph's
// floor, a share of the largest magnitude either side shows, as the
// anomaly test's is (tcg.MaxShareFloor).
func failureShift(s *ingest.Series, b0, b1 int, cells []int) (float64, float64) {
	d, scale := shift(s, b0, b1, cells)
	if math.IsNaN(d) || scale > 0 {
		return d, scale
	}
	mx := 0.0
	for t := b0; t < b1 && t < len(s.V); t++ {
		if !math.IsNaN(s.V[t]) {
			mx = math.Max(mx, math.Abs(s.V[t]))
		}
	}
	for _, t := range cells {
		if t < len(s.V) && !math.IsNaN(s.V[t]) {
			mx = math.Max(mx, math.Abs(s.V[t]))
		}
	}
	return d, tcg.MaxShareFloor * mx
}

// callsPerRequest is the median over cells of an edge's calls per request
// of its caller (span-derived), 1 when unknown. byEnt (nodesByEntity)
// gives the two entities' nodes: O(their nodes' series + cells).
func callsPerRequest(g *tcg.Graph, byEnt map[string][]int, client, caller *tcg.Node, cells []int) float64 {
	var calls, reqs *ingest.Series
	for _, j := range byEnt[client.Entity.ID()] {
		if nd := g.Nodes[j]; nd.Signal == ingest.SignalTraffic {
			for _, s := range nd.Series {
				if s.Name == ingest.EdgeCalls {
					calls = s
				}
			}
		}
	}
	for _, j := range byEnt[caller.Entity.ID()] {
		if nd := g.Nodes[j]; nd.Signal == ingest.SignalTraffic && nd.Facet == tcg.FacetNone {
			for _, s := range nd.Series {
				if s.Name == ingest.TraceRequests {
					reqs = s
				}
			}
		}
	}
	if calls == nil || reqs == nil {
		return 1
	}
	if m, ok := medianRatio(calls, reqs, cells); ok {
		return m
	}
	return 1
}

// medianRatio is the median over cells of num's value per den's (cells
// where either is missing or den is not positive left out); ok is false
// when no cell has both.
func medianRatio(num, den *ingest.Series, cells []int) (float64, bool) {
	var rs []float64
	for _, t := range cells {
		if t < len(num.V) && t < len(den.V) {
			if c, r := num.V[t], den.V[t]; !math.IsNaN(c) && !math.IsNaN(r) && r > 0 {
				rs = append(rs, c/r)
			}
		}
	}
	if len(rs) == 0 {
		return 0, false
	}
	return measure.Quantile(rs, 0.5), true
}

// calleeShare is how much of a callee's latency a caller's request
// carries when no trace measures it: the callee's requests per request of
// the caller over the cells (the same request measurement on both, e.g.
// one requests metric of a service map), at most 1 — a callee that serves
// one request in twenty adds a twentieth of its rise to its caller's mean,
// and a workflow started asynchronously for some requests cannot add its
// seconds to every request of its caller. 1 when either side has no such
// measurement (the callee's rise counts whole, as before).
func calleeShare(g *tcg.Graph, byEnt map[string][]int, callee, caller *tcg.Node, cells []int) float64 {
	traffic := func(n *tcg.Node) *ingest.Series {
		for _, j := range byEnt[n.Entity.ID()] {
			if nd := g.Nodes[j]; nd.Signal == ingest.SignalTraffic && nd.Facet == tcg.FacetNone && len(nd.Series) > 0 {
				return nd.Series[nd.Rep]
			}
		}
		return nil
	}
	cs, rs := traffic(callee), traffic(caller)
	if cs == nil || rs == nil || cs.Name != rs.Name || cs.Unit != rs.Unit || len(cs.V) != len(rs.V) {
		return 1
	}
	if m, ok := medianRatio(cs, rs, cells); ok {
		return math.Min(1, m)
	}
	return 1
}

// Evidence fits the mechanisms on the baseline and returns every node's
// evidence (for eval's feature dumps and tests).
func Evidence(g *tcg.Graph) []NodeEvidence {
	p := DefaultMechanismParams()
	ev := nodeEvidence(g, fitMechanisms(g, p, nil), p, nil)
	addRHT(g, ev)
	return ev
}
