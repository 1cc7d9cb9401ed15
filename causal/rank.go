package causal

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/stat"
)

// Weights are the seed's scorecard dimensions' weights.
type Weights struct {
	LatencySurge, ErrorPropagation, ResourceSaturation, ConfigDrift float64
}

// DefaultWeights are the seed's 0.35/0.30/0.25/0.10.
func DefaultWeights() Weights { return Weights{0.35, 0.30, 0.25, 0.10} }

// Options configure the analysis. Zero fields take defaults.
type Options struct {
	Method    string // "tcg" (default), or a comparison method: "baro", "nsigma", "selftime", "traversal", "circa"
	Weights   Weights
	Seed      uint64  // bootstrap seed (default 1)
	Bootstrap int     // bootstrap replicates (default 200)
	MinScore  float64 // candidates below are pruned (default 0.05)
	MaxCauses int     // most causes kept (default 10)
	Ridge     float64 // ridge penalty of the SCM fits (default 1)
	// Abstain below this confidence of the top cause (default 0.35).
	MinConfidence float64
	// Explain, when non-nil, receives a table of every candidate's score
	// terms (standardised deviation D, own noise U, total effect on the
	// target, latency cap, explained share, attribution, dimensions, fit).
	Explain io.Writer
}

func (o Options) withDefaults() Options {
	if o.Method == "" {
		o.Method = "tcg"
	}
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights()
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Bootstrap <= 0 {
		o.Bootstrap = 200
	}
	if o.MinScore <= 0 {
		o.MinScore = 0.05
	}
	if o.MaxCauses <= 0 {
		o.MaxCauses = 10
	}
	if o.Ridge <= 0 {
		o.Ridge = 1
	}
	if o.MinConfidence <= 0 {
		o.MinConfidence = 0.35
	}
	return o
}

// Methods lists the ranking methods.
func Methods() []string { return []string{"tcg", "baro", "nsigma", "selftime", "traversal", "circa"} }

// Intervention is the counterfactual of do(candidate := baseline) on the target.
type Intervention struct {
	Target         string  // target node label
	Unit           string  // the target series' unit
	Baseline       float64 // target's baseline median
	Observed       float64 // target's observed median in the window
	Counterfactual float64 // predicted target had the candidate stayed at baseline
	ExplainedShare float64 // share of the target's deviation that disappears, 0..1
	Interval       [2]float64
}

// Dimensions are the seed's scorecard dimensions, each 0..1.
type Dimensions struct {
	LatencySurge, ErrorPropagation, ResourceSaturation, ConfigDrift float64
}

// Candidate is one ranked possible cause.
type Candidate struct {
	Node          int // graph node index (-1 for the baseline methods' series)
	NodeID        string
	Service       string
	Component     string // most specific entity: pod, GPU UUID, edge, node, or service
	ComponentKind ingest.EntityKind
	Signal        ingest.SignalKind
	Facet         string
	Score         float64
	Confidence    float64 // bootstrap probability of ranking first (tcg), 0..1
	// Attribution is the share of the target's deviation traced to this
	// node's own (parent-unexplained) deviation.
	Attribution  float64
	State        tcg.State
	Intervention Intervention
	Dimensions   Dimensions
	Path         []int // node indices from the candidate to the target
	PathEdges    []int // edge indices along Path
	Events       []ingest.Event
	Series       *ingest.Series // representative series
}

// Result is the ranked analysis.
type Result struct {
	Method     string
	Candidates []Candidate // rank order, pruned
	Total      int         // candidates before pruning
	Dropped    int         // pruned below MinScore or beyond MaxCauses
	MinScore   float64
	// Unexplained is the share of the target's deviation that no candidate's
	// intervention removes.
	Unexplained float64
	Confident   bool
	Seed        uint64
	Bootstrap   int
	Weights     Weights
	Warnings    []string
}

// Analyze ranks the causes of the incident on the graph.
func Analyze(g *tcg.Graph, b *ingest.Bundle, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	switch opt.Method {
	case "tcg":
		return analyzeTCG(g, b, opt), nil
	case "baro", "nsigma":
		return analyzeBaseline(g, b, opt), nil
	case "selftime":
		return analyzeSelfTime(g, b, opt), nil
	case "traversal":
		return analyzeTraversal(g, b, opt), nil
	case "circa":
		return analyzeCIRCA(g, b, opt), nil
	}
	return nil, fmt.Errorf("unknown method %q (want one of %s)", opt.Method, strings.Join(Methods(), ", "))
}

func clip01(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func squash(z, half float64) float64 {
	if z <= 0 || math.IsNaN(z) {
		return 0
	}
	return z / (z + half)
}

// scoreParts holds what a candidate's score is made of, for one sample of
// window cells.
type scoreParts struct{ explained, attribution, score float64 }

func analyzeTCG(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
	res := &Result{Method: "tcg", MinScore: opt.MinScore, Seed: opt.Seed, Bootstrap: opt.Bootstrap, Weights: opt.Weights}
	res.Warnings = append(res.Warnings, g.Warnings...)
	if g.Target < 0 {
		res.Warnings = append(res.Warnings, "no target node: causes are ranked by anomaly only")
	}
	m := fitSCM(g, g.B0, g.W1, opt.Ridge)
	var gains []float64
	if g.Target >= 0 {
		gains = m.gainsTo(g.Target, 8)
	} else {
		gains = make([]float64, len(g.Nodes))
	}
	cells := make([]int, 0, g.W1-g.W0)
	for t := g.W0; t < g.W1; t++ {
		cells = append(cells, t)
	}
	// Candidate nodes: anomalous, with a path to the target (or every
	// anomalous node when there is no target).
	var cand []int
	for i, n := range g.Nodes {
		// The target itself is the symptom: its unexplained residual is
		// reported as the unexplained share, not as a cause.
		if n.Anomalous && (g.Target < 0 || (n.Depth >= 0 && i != g.Target)) {
			cand = append(cand, i)
		}
	}
	res.Total = len(cand)
	dims := make([]Dimensions, len(cand))
	dimScore := make([]float64, len(cand))
	for k, i := range cand {
		dims[k] = dimensions(g, b, i)
		w := opt.Weights
		dimScore[k] = w.LatencySurge*dims[k].LatencySurge + w.ErrorPropagation*dims[k].ErrorPropagation +
			w.ResourceSaturation*dims[k].ResourceSaturation + w.ConfigDrift*dims[k].ConfigDrift
	}
	// The score's mix of counterfactual terms, own severity and the seed's
	// dimensions (documented in doc.go and the README; chosen on eval).
	sw := [4]float64{0.35, 0.15, 0.2, 0.3}
	evaluate := func(cells []int) []scoreParts {
		out := make([]scoreParts, len(cand))
		var dT float64
		if g.Target >= 0 {
			dT, _ = m.meansOver(g.Target, cells)
		}
		for k, i := range cand {
			d, u := m.meansOver(i, cells)
			n := g.Nodes[i]
			var e, a float64
			if g.Target >= 0 && dT > 1e-9 {
				e = clip01(gains[i] * d / dT)
				a = clip01(gains[i] * u / dT)
			}
			own := 1.0
			if d != 0 {
				own = clip01(u / d)
			}
			st := stateFactor(n.State)
			sev := squash(n.Score, 5)
			out[k] = scoreParts{explained: e, attribution: a,
				score: st * (sw[0]*a + sw[1]*e + sw[2]*own*sev + sw[3]*dimScore[k])}
		}
		return out
	}
	caps := latencyCaps(g, b, m, cand)
	evaluate0 := evaluate
	evaluate = func(cells []int) []scoreParts {
		ps := evaluate0(cells)
		for k := range ps {
			if caps[k] < 1 {
				// scale the score's counterfactual terms down to what the
				// candidate's added seconds can account for
				ps[k].score -= (ps[k].explained - math.Min(ps[k].explained, caps[k])) * 0.15 * stateFactor(g.Nodes[cand[k]].State)
				ps[k].score -= (ps[k].attribution - math.Min(ps[k].attribution, caps[k])) * 0.35 * stateFactor(g.Nodes[cand[k]].State)
				ps[k].explained = math.Min(ps[k].explained, caps[k])
				ps[k].attribution = math.Min(ps[k].attribution, caps[k])
			}
		}
		return ps
	}
	base := evaluate(cells)
	if opt.Explain != nil && g.Target >= 0 {
		dT, uT := m.meansOver(g.Target, cells)
		fmt.Fprintf(opt.Explain, "target %s: D=%.2f U=%.2f R²=%.2f\n", g.Nodes[g.Target].ID, dT, uT, m.r2[g.Target])
		fmt.Fprintf(opt.Explain, "%-64s %7s %7s %6s %5s %5s %5s %5s %5s %3s %6s\n", "candidate", "D", "U", "gain", "cap", "expl", "attr", "dims", "R²", "in", "score")
		for _, k := range sortedByScore(base) {
			i := cand[k]
			d, u := m.meansOver(i, cells)
			fmt.Fprintf(opt.Explain, "%-64s %7.2f %7.2f %6.3f %5.2f %5.2f %5.2f %5.2f %5.2f %3d %6.3f\n",
				g.Nodes[i].ID, d, u, gains[i], caps[k], base[k].explained, base[k].attribution, dimScore[k], m.r2[i], len(g.In(i)), base[k].score)
		}
	}
	// Bootstrap over window cells: interval of the explained share and the
	// probability of ranking first.
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	firsts := make([]int, len(cand))
	shares := make([][]float64, len(cand))
	if len(cells) > 0 && len(cand) > 0 {
		sample := make([]int, len(cells))
		for r := 0; r < opt.Bootstrap; r++ {
			for j := range sample {
				sample[j] = cells[rng.IntN(len(cells))]
			}
			ps := evaluate(sample)
			best := 0
			for k := range ps {
				shares[k] = append(shares[k], ps[k].explained)
				if ps[k].score > ps[best].score {
					best = k
				}
			}
			firsts[best]++
		}
	}
	order := make([]int, len(cand))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, c := base[order[x]].score, base[order[y]].score
		if a != c {
			return a > c
		}
		return g.Nodes[cand[order[x]]].ID < g.Nodes[cand[order[y]]].ID
	})
	var tObs, tBase, tScale float64
	var tUnit, tLabel string
	if g.Target >= 0 {
		tn := g.Nodes[g.Target]
		ts := g.TargetSeries
		tUnit, tLabel = ts.Unit, tn.Label()
		tBase, tObs, tScale = windowStats(ts.V, g.B0, g.B1, g.W0, g.W1)
		_ = tScale
	}
	maxExplained := 0.0
	for rank, k := range order {
		i := cand[k]
		n := g.Nodes[i]
		p := base[k]
		if p.score < opt.MinScore || rank >= opt.MaxCauses {
			res.Dropped++
			continue
		}
		c := Candidate{Node: i, NodeID: n.ID, Service: n.Entity.Service, Component: n.Entity.Name, ComponentKind: n.Entity.Kind,
			Signal: n.Signal, Facet: string(n.Facet), Score: p.score, Attribution: p.attribution, State: n.State,
			Dimensions: dims[k], Series: n.Series[n.Rep]}
		if n.Entity.Kind == ingest.KindNode {
			c.Service = nodeService(g, n)
		}
		if p, ok := g.SinglePod[n.Entity.Name]; ok && n.Entity.Kind == ingest.KindService {
			c.Component, c.ComponentKind = p, ingest.KindPod // the most specific entity
		}
		if c.Service == "" {
			c.Service = n.Entity.Name
		}
		if opt.Bootstrap > 0 {
			c.Confidence = float64(firsts[k]) / float64(opt.Bootstrap)
		}
		c.Intervention = Intervention{Target: tLabel, Unit: tUnit, Baseline: tBase, Observed: tObs,
			Counterfactual: tObs - p.explained*(tObs-tBase), ExplainedShare: p.explained}
		if s := shares[k]; len(s) > 0 {
			c.Intervention.Interval = [2]float64{ingest.Quantile(s, 0.025), ingest.Quantile(s, 0.975)}
		} else {
			c.Intervention.Interval = [2]float64{p.explained, p.explained}
		}
		if i != g.Target {
			maxExplained = math.Max(maxExplained, p.explained)
		}
		c.Path, c.PathEdges = pathToTarget(g, m, i)
		c.Events = eventsFor(b, n, g)
		res.Candidates = append(res.Candidates, c)
	}
	res.Unexplained = 1 - maxExplained
	if len(res.Candidates) > 0 && res.Candidates[0].Confidence >= opt.MinConfidence {
		res.Confident = true
	}
	if g.Target >= 0 && !g.Nodes[g.Target].Anomalous {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the target %s is not anomalous in the window", g.Nodes[g.Target].Label()))
		res.Confident = false
	}
	return res
}

// nodeService names the workload a node-level cause most likely hurts: the
// most anomalous pod placed on the node (a node has no service of its own).
func nodeService(g *tcg.Graph, n *tcg.Node) string {
	best, bs := "", 0.0
	for _, o := range g.Nodes {
		if (o.Entity.Kind == ingest.KindPod || o.Entity.Kind == ingest.KindService) && o.Entity.Node == n.Entity.Name && o.Anomalous && o.Score > bs && o.Entity.Service != "" {
			best, bs = o.Entity.Service, o.Score
		}
	}
	if best == "" {
		return n.Entity.Service
	}
	return best
}

// sortedByScore returns indices of ps by descending score (stable).
func sortedByScore(ps []scoreParts) []int {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]].score > ps[idx[b]].score })
	return idx
}

// stateFactor weighs a candidate by its state-machine verdict.
func stateFactor(s tcg.State) float64 {
	switch s {
	case tcg.RootConfirmed:
		return 1
	case tcg.Propagating:
		return 0.7
	}
	return 0.55
}

// latencyCaps bounds, for latency candidates measured in seconds, the share
// of the target's (seconds) deviation they can explain: latency is additive,
// so a callee that got 100 ms slower cannot explain 4 s of its caller's
// latency unless it is called ~40 times per request. The bound is
// calls-per-request along the candidate's path × its added seconds ÷ the
// target's added seconds. Other candidates get 1 (no bound).
func latencyCaps(g *tcg.Graph, b *ingest.Bundle, m *scm, cand []int) []float64 {
	caps := make([]float64, len(cand))
	for k := range caps {
		caps[k] = 1
	}
	if g.Target < 0 || g.TargetSeries == nil || g.TargetSeries.Unit != "s" {
		return caps
	}
	tBase, tObs, _ := windowStats(g.TargetSeries.V, g.B0, g.B1, g.W0, g.W1)
	dT := tObs - tBase
	if !(dT > 0) {
		return caps
	}
	mult := callsPerRequest(b)
	for k, i := range cand {
		n := g.Nodes[i]
		if n.Signal != ingest.SignalLatency || n.Series[n.Rep].Unit != "s" || i == g.Target {
			continue
		}
		d := n.Incident - n.Baseline
		if math.IsNaN(d) {
			continue
		}
		path, _ := pathToTarget(g, m, i)
		f := 1.0
		for j := 1; j < len(path); j++ {
			from, to := g.Nodes[path[j-1]].Entity.Service, g.Nodes[path[j]].Entity.Service
			if from != to {
				if r, ok := mult[to+"->"+from]; ok && r > 1 {
					f *= r
				}
			}
		}
		caps[k] = clip01(f * d / dT)
	}
	return caps
}

// callsPerRequest returns, per traced edge "caller->callee", the median
// number of calls per caller request (from the span-derived series).
func callsPerRequest(b *ingest.Bundle) map[string]float64 {
	reqs := map[string][]float64{}
	calls := map[string][]float64{}
	for _, s := range b.Series {
		if s.Source != ingest.DerivedSource {
			continue
		}
		switch {
		case s.Name == ingest.TraceRequests && s.Entity.Kind == ingest.KindService:
			reqs[s.Entity.Name] = s.V
		case s.Name == ingest.EdgeCalls:
			calls[s.Entity.Name] = s.V
		}
	}
	out := map[string]float64{}
	for _, name := range sortedNames(calls) {
		c := calls[name]
		caller := name[:strings.Index(name, "->")]
		r, ok := reqs[caller]
		if !ok {
			continue
		}
		var ratios []float64
		for t := range c {
			if !math.IsNaN(c[t]) && !math.IsNaN(r[t]) && r[t] > 0 {
				ratios = append(ratios, c[t]/r[t])
			}
		}
		if len(ratios) > 0 {
			out[name] = ingest.Quantile(ratios, 0.5)
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// meansOver returns, for node i over the given cells (the window, or a
// bootstrap resample of it): the mean standardised deviation D and the mean
// residual U — the part of D the node's parents do not explain (abduction of
// its noise term).
func (m *scm) meansOver(i int, cells []int) (d, u float64) {
	n := 0
	in := m.g.In(i)
	for _, t := range cells {
		y := m.z[i][t]
		if math.IsNaN(y) {
			continue
		}
		y = clampZ(y)
		p := 0.0
		for j, ei := range in {
			v := m.parentValue(ei, t)
			if math.IsNaN(v) {
				v = 0
			}
			p += m.beta[i][j] * clampZ(v)
		}
		d += y
		u += y - p
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return d / float64(n), u / float64(n)
}

// windowStats returns the baseline median, window median and baseline IQR.
func windowStats(v []float64, b0, b1, w0, w1 int) (base, win, iqr float64) {
	var bs, ws []float64
	for t := b0; t < b1 && t < len(v); t++ {
		if !math.IsNaN(v[t]) {
			bs = append(bs, v[t])
		}
	}
	for t := w0; t < w1 && t < len(v); t++ {
		if !math.IsNaN(v[t]) {
			ws = append(ws, v[t])
		}
	}
	base, win = ingest.Quantile(bs, 0.5), ingest.Quantile(ws, 0.5)
	iqr = ingest.Quantile(bs, 0.75) - ingest.Quantile(bs, 0.25)
	return
}

// dimensions scores the seed's four dimensions for node i.
func dimensions(g *tcg.Graph, b *ingest.Bundle, i int) Dimensions {
	n := g.Nodes[i]
	var d Dimensions
	svc := n.Entity.Service
	for _, o := range g.Nodes {
		if o.Entity.Service != svc || !o.Anomalous {
			continue
		}
		switch {
		case o.Signal == ingest.SignalLatency:
			d.LatencySurge = math.Max(d.LatencySurge, squash(o.Score, 3))
		case o.Signal == ingest.SignalErrors:
			d.ErrorPropagation = math.Max(d.ErrorPropagation, squash(o.Score, 3))
		}
	}
	// Resource saturation: R² of the candidate's (or its component's most
	// anomalous) saturation series against the target, over baseline+window.
	if g.Target >= 0 {
		sat := -1
		if n.Signal.Saturation() {
			sat = i
		} else {
			for j, o := range g.Nodes {
				if o.Anomalous && o.Signal.Saturation() && o.Entity.Service == svc && (sat < 0 || o.Score > g.Nodes[sat].Score) {
					sat = j
				}
			}
		}
		if sat >= 0 {
			d.ResourceSaturation = r2(g.Nodes[sat].Values(), g.TargetSeries.V, g.B0, g.W1)
		}
	}
	// Config drift: change events on the candidate's service within 24 h
	// before the window end; full weight inside the lookback of 3 windows.
	end := g.Grid[min(g.W1, len(g.Grid))-1]
	span := ingest.Time(3 * (g.W1 - g.W0) * int(g.Step))
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() || (e.Entity.Service != svc && e.Entity.Name != n.Entity.Name) {
			continue
		}
		age := end - e.Time
		if age < 0 || age > ingest.Time(24*time.Hour) {
			continue
		}
		v := 1.0
		if age > span {
			v = 1 - float64(age-span)/float64(ingest.Time(24*time.Hour)-span)
		}
		d.ConfigDrift = math.Max(d.ConfigDrift, v)
	}
	return d
}

// r2 is the squared Pearson correlation over cells [lo, hi) where both are
// defined (0 when fewer than 4 or a constant series).
func r2(x, y []float64, lo, hi int) float64 {
	var xs, ys []float64
	for t := lo; t < hi && t < len(x) && t < len(y); t++ {
		if !math.IsNaN(x[t]) && !math.IsNaN(y[t]) {
			xs, ys = append(xs, x[t]), append(ys, y[t])
		}
	}
	if len(xs) < 4 || constantF(xs) || constantF(ys) {
		return 0
	}
	c := stat.Correlation(xs, ys, nil)
	if math.IsNaN(c) {
		return 0
	}
	return c * c
}

func constantF(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// pathToTarget follows, from node i, the out-edge toward a node one hop
// closer to the target with the largest |β|·confidence.
func pathToTarget(g *tcg.Graph, m *scm, i int) ([]int, []int) {
	path, edges := []int{i}, []int(nil)
	cur := i
	for g.Nodes[cur].Depth > 0 && len(path) < 20 {
		best, bw := -1, -1.0
		for _, ei := range g.Out(cur) {
			e := g.Edges[ei]
			if g.Nodes[e.To].Depth != g.Nodes[cur].Depth-1 {
				continue
			}
			w := math.Abs(m.edgeB[ei])*0.5 + e.Confidence*0.5
			if w > bw {
				best, bw = ei, w
			}
		}
		if best < 0 {
			break
		}
		edges = append(edges, best)
		cur = g.Edges[best].To
		path = append(path, cur)
	}
	return path, edges
}

// eventsFor returns the change and lifecycle events on node n's service or
// entity within 24 h before the window end, oldest first.
func eventsFor(b *ingest.Bundle, n *tcg.Node, g *tcg.Graph) []ingest.Event {
	end := g.Grid[min(g.W1, len(g.Grid))-1]
	var out []ingest.Event
	for _, e := range b.Events {
		if e.Entity.Service != n.Entity.Service && e.Entity.Name != n.Entity.Name {
			continue
		}
		if e.Time > end || end-e.Time > ingest.Time(24*time.Hour) {
			continue
		}
		out = append(out, e)
	}
	return out
}
