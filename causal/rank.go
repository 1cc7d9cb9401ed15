package causal

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"gonum.org/v1/gonum/stat"
)

// Options configure the analysis. Zero fields take defaults.
type Options struct {
	Method string // a registered method's name (Methods; default DefaultMethod)
	// DisplayWeights weight the card's display dimensions (the --weights
	// flag); they never change the ranking (Params.Weights does).
	DisplayWeights DisplayWeights
	MinScore       float64 // candidates below are pruned (default DefaultMinScore)
	MaxCauses      int     // most causes kept (default DefaultMaxCauses)
	// Params is the default method's parameter table (zero: DefaultParams).
	Params *Params
	// Ablate turns score terms off (for eval --ablate).
	Ablate []string
	// MinConfidence, when positive, overrides Params.MinConfidence.
	MinConfidence float64
	// Explain, when non-nil, receives a table of every candidate's score
	// terms (standardised deviation D, own noise U, total effect on the
	// target, latency cap, explained share, attribution, dimensions, fit).
	Explain io.Writer
}

func (o Options) withDefaults() Options {
	if o.Method == "" {
		o.Method = DefaultMethod
	}
	if o.DisplayWeights == (DisplayWeights{}) {
		o.DisplayWeights = DefaultDisplayWeights()
	}
	if o.MinScore <= 0 {
		o.MinScore = DefaultMinScore
	}
	if o.MaxCauses <= 0 {
		o.MaxCauses = DefaultMaxCauses
	}
	if o.Params == nil {
		p := DefaultParams()
		o.Params = &p
	}
	if o.MinConfidence > 0 && o.MinConfidence != o.Params.MinConfidence {
		p := *o.Params
		p.MinConfidence = o.MinConfidence
		o.Params = &p
	}
	return o
}

// Intervention is the counterfactual of do(candidate := baseline) on the target.
type Intervention struct {
	Target         string  // target node label
	Unit           string  // the target series' unit
	Baseline       float64 // target's baseline median
	Observed       float64 // target's observed median in the window
	Counterfactual float64 // predicted target had the candidate stayed at baseline
	ExplainedShare float64 // share of the target's deviation that disappears, 0..1 (NaN when the target barely moved)
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
	Component     string // the part one acts on (Part): pod, GPU UUID, node, rollout, or service (workload) — never an edge
	ComponentKind ingest.EntityKind
	// Via is the entity the signal was measured on when it is not the
	// component ("edge/checkout->cart" for a call's latency resolved to
	// the callee's replica or the network to it), "" otherwise.
	Via string
	// PartWhy says how the component was resolved from Via ("" when the
	// signal is the component's own).
	PartWhy string
	Signal  ingest.SignalKind
	Facet   string
	Score   float64
	// Confidence is the probability that the candidate's service is the
	// root cause (tcg; calibrated on the development sets), 0..1.
	Confidence float64
	// Attribution is the share of the target's anomaly traced to this
	// node's own change (the Shapley attribution over own changes).
	Attribution float64
	// Terms are the score's terms (see Terms).
	Terms map[string]float64
	// Hosted are the services placed on a node or GPU candidate.
	Hosted       []string
	State        tcg.State
	Transitions  []tcg.Transition // the node's state changes, the causal stage's last
	Intervention Intervention
	Dimensions   Dimensions
	Path         []int // node indices from the candidate to the target
	PathEdges    []int // edge indices along Path
	// PathShares are, when Path is the path that carries most of the
	// candidate's effect (effectPath), the share of the effect that
	// reaches each of its nodes along it; nil for the greedy fallback.
	PathShares []float64
	Events     []ingest.Event
	// Logs are, for a candidate of log evidence, the templates whose rate
	// changed most (new error templates first), with examples and trace
	// links: the evidence travels with the analysis.
	Logs   []ingest.LogTemplateEvidence
	Series *ingest.Series // representative series
}

// Result is the ranked analysis.
type Result struct {
	// Method is the name of the method that ranked it (Kind says what
	// kind of method that is).
	Method     string
	Candidates []Candidate // rank order, pruned
	Total      int         // candidates before pruning
	Dropped    int         // pruned below MinScore or beyond MaxCauses
	MinScore   float64
	// Unexplained is the share of the target's deviation that no candidate's
	// intervention removes (NaN when the target barely moved: there is no
	// deviation to share out, and candidates' ExplainedShare is NaN too).
	Unexplained float64
	// RequestBreaks are the services whose requests broke (RequestBreaks
	// under Params.BreakLevel, BreakShare and BreakShareInvariant), the most
	// significant first: when no candidate explains a share of the target,
	// BreakOrigin ranks first (requestBreakFirst). The default method only.
	RequestBreaks []ingest.PatternShift
	// BreakOrigin is where the request breaks point (BreakOriginOf): the
	// first break's service, or the service whose answer the first break
	// and another begin at; "" without breaks.
	BreakOrigin string
	// BreakCallers are, when BreakOrigin is such a callee, the broken
	// services whose step begins at its answer (nil otherwise).
	BreakCallers []string
	// MinVerdictShare is the least share of the target's deviation the
	// first cause must explain for a confident verdict, and under which the
	// service whose requests broke goes first (Params.MinVerdictShare); NaN
	// for a comparison method, which applies no such rule.
	MinVerdictShare float64
	Confident       bool
	// Abstention says why the verdict is not confident ("" when it is).
	Abstention string
	// Changes are the look-back's changes (rollouts, configuration
	// updates, change records), oldest first, each with its relation to the
	// symptom's onset and its verdict: what the card lists under "what
	// changed", whatever the method.
	Changes []ChangeVerdict
	// Scored holds every candidate of the default method with its score
	// terms, in rank order (eval refits and re-ranks from it).
	Scored []Scored
	// DisplayWeights are the card's display dimensions' weights the run
	// used (Options.DisplayWeights).
	DisplayWeights DisplayWeights
	Warnings       []string
}

// Analyze ranks the causes of the incident on the graph with the method
// registered under Options.Method (RegisterMethod).
func Analyze(g *tcg.Graph, b *ingest.Bundle, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	m, ok := LookupMethod(opt.Method)
	if !ok {
		return nil, fmt.Errorf("unknown method %q (want one of %s)", opt.Method, strings.Join(Methods(), ", "))
	}
	res := m.Rank(g, b, opt)
	res.Method = m.Name
	if res.Changes == nil {
		res.Changes = judgeChanges(g, res.Candidates)
	}
	return res, nil
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

// scored is one candidate node with its score terms.
type scored struct {
	node  int
	terms map[string]float64
	score float64
}

// analyzeTCG is the default method: fit the mechanisms of the anomalous
// nodes and the target on the baseline, decompose the target's anomaly
// over the nodes' own changes (flows), score and rank the candidates
// (scoreCandidates), turn the scores into service probabilities, and build
// each shown candidate with its counterfactual, state, path and evidence.
func analyzeTCG(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result {
	p := opt.Params.withAblation(opt.Ablate)
	res := &Result{Method: DefaultMethod, MinScore: opt.MinScore, DisplayWeights: opt.DisplayWeights, MinVerdictShare: p.MinVerdictShare}
	res.Warnings = append(res.Warnings, g.Warnings...)
	if g.Target < 0 {
		res.Warnings = append(res.Warnings, "no target node: causes are ranked by their own change and what it explains downstream")
	}
	// The ranking reads the evidence of the anomalous nodes and the
	// target only (newAnomalySpace, explainTCG): only they are fitted.
	need := make([]bool, len(g.Nodes))
	for i, n := range g.Nodes {
		need[i] = n.Anomalous || i == g.Target
	}
	m := fitMechanisms(g, p.Mechanism, need)
	ev := nodeEvidence(g, m, p.Mechanism, need)
	sp := newAnomalySpace(g, ev, p.PrecedenceOwn)
	fl := sp.flows()
	var tflow map[int]float64
	aT := 0.0
	if g.Target >= 0 && sp.pos[g.Target] >= 0 {
		tflow, aT = fl[g.Target], sp.a[g.Target]
	}
	cands := scoreCandidates(g, sp, tflow, aT, p)
	if b != nil {
		res.RequestBreaks = RequestBreaks(b.Patterns, p.BreakLevel, p.BreakShare, p.BreakShareInvariant)
		res.BreakOrigin, res.BreakCallers = BreakOriginOf(res.RequestBreaks)
		cands = requestBreakFirst(g, cands, res.BreakOrigin, p.MinVerdictShare)
	}
	res.Total = len(cands)
	// Probabilities: a softmax over the services' best scores and "none
	// of them" (NoneScore), the model Fit fits (ServiceProbabilities).
	services := make([]string, len(cands))
	for k, c := range cands {
		services[k] = candidateService(g, sp, fl, c.node)
		res.Scored = append(res.Scored, Scored{Node: c.node, NodeID: g.Nodes[c.node].ID, Service: services[k], Terms: c.terms})
	}
	// The services' probabilities follow the final order: a content signal
	// that yielded the first place (contentNotFirst) scores below the one
	// that took it; every other candidate's score is the model's.
	best := map[string]float64{}
	for k, c := range cands {
		if old, ok := best[services[k]]; !ok || c.score > old {
			best[services[k]] = c.score
		}
	}
	prob, _ := serviceSoftmax(best, p.NoneScore)
	p.Calibration.Calibrate(prob)
	if opt.Explain != nil {
		explainTCG(opt.Explain, g, sp, cands, services, p, aT, ev)
		if aT > 0 {
			explainFlow(opt.Explain, g, sp, tflow, aT)
		}
	}
	var tObs, tBase float64
	var tUnit, tLabel string
	if g.Target >= 0 {
		ts := g.TargetSeries
		tUnit, tLabel = ts.Unit, g.Nodes[g.Target].Label()
		tBase, tObs, _ = windowStats(ts.V, g.B0, g.B1, g.W0, g.W1)
		if tn := g.Nodes[g.Target]; tn.Anomalous && ts == tn.Series[tn.Rep] {
			// what the anomaly test measured: the episode, not the
			// whole window (an onset late in it would hide half of it)
			tBase, tObs = tn.Baseline, tn.Incident
		}
	}
	// A target within noise: no cause takes a share of it (not "0%").
	stillTarget := g.Target >= 0 && !targetMoved(g)
	confirmedComp := map[string]bool{}
	for rank, c := range cands {
		i := c.node
		n := g.Nodes[i]
		if rank >= opt.MaxCauses {
			res.Dropped++
			continue
		}
		share := c.terms[TermTargetShare]
		cd := Candidate{Node: i, NodeID: n.ID, Service: services[rank], Component: n.Entity.Name, ComponentKind: n.Entity.Kind,
			Signal: n.Signal, Facet: string(n.Facet), Score: c.score, Attribution: share, Terms: c.terms,
			Confidence: prob[services[rank]], Dimensions: dimensions(g, b, i), Series: n.Series[n.Rep],
			Hosted: g.Hosted[n.Entity.ID()]}
		part := partOf(g, i)
		cd.Component, cd.ComponentKind, cd.Via, cd.PartWhy = part.Name, part.Kind, part.Via, part.Why
		cd.Intervention = counterfactual(g, tLabel, tUnit, tBase, tObs, aT, share)
		if stillTarget {
			cd.Intervention.ExplainedShare = math.NaN()
		}
		firstOfComponent := !confirmedComp[n.Entity.ID()]
		confirmedComp[n.Entity.ID()] = true
		cd.State, cd.Transitions = candidateState(g, sp, i, cd.Intervention.ExplainedShare, firstOfComponent && cd.Confidence >= p.MinConfidence, p)
		if nodes, shares, ok := effectPath(g, sp, i); ok {
			cd.Path, cd.PathShares = nodes, shares
			for k := 1; k < len(nodes); k++ {
				cd.PathEdges = append(cd.PathEdges, edgeBetween(g, nodes[k-1], nodes[k]))
			}
		} else {
			cd.Path, cd.PathEdges = pathToTarget(g, fl, i)
		}
		cd.Events = eventsFor(b, n, g)
		if n.Signal == ingest.SignalLogs && rank < maxLogEvidence {
			in := g.Incident
			cd.Logs = features.LogEvidence(b, n.Entity, in.BaselineStart, in.WindowStart, in.WindowStart, in.WindowEnd, logEvidenceTemplates)
		}
		res.Candidates = append(res.Candidates, cd)
	}
	switch {
	case stillTarget:
		res.Unexplained = math.NaN()
	case aT > 0:
		res.Unexplained = tflow[g.Target] / aT
	default:
		res.Unexplained = 1
	}
	decide(res, g, aT, p)
	return res
}

// scoreCandidates scores every anomalous node but the target on its terms
// (own change, what it explains downstream, whether it reaches the target's
// service, its signal level, its component's share of the target's
// anomaly tflow of aT) and ranks them: by score, then the component's
// probability mass, then node ID; ancestors within the margin first.
func scoreCandidates(g *tcg.Graph, sp *anomalySpace, tflow map[int]float64, aT float64, p Params) []scored {
	reach := reachesTargetService(g)
	timing := changeTiming(g, p.ChangeTau)
	late := lateness(g, p.ChangeTau)
	// A component's share of the target: do(every own change of the
	// component := baseline) removes the sum of its signals' shares.
	// Summed in node order: a float sum in map order differs in its last
	// digits from run to run.
	// The component is the part one acts on (partOf): a call's latency
	// resolved to its callee's replica adds to that replica's share.
	partKey := func(i int) string {
		p := partOf(g, i)
		return p.Kind.String() + "/" + p.Name
	}
	compShare := map[string]float64{}
	for _, i := range slices.Sorted(maps.Keys(tflow)) {
		if i != g.Target {
			compShare[partKey(i)] += tflow[i]
		}
	}
	failShare := targetFailureShares(g, partKey)
	var cands []scored
	for _, i := range sp.order {
		if i == g.Target {
			continue
		}
		t := map[string]float64{TermOwn: sp.r[i], TermDownstream: math.Log1p(sp.downstream(i)), TermReach: 0}
		if reach[i] {
			t[TermReach] = 1
		}
		if lt := levelTerm(g.Nodes[i].Signal, string(g.Nodes[i].Facet)); lt != "" {
			t[lt] = 1
		}
		switch {
		case failShare != nil:
			t[TermTargetShare] = failShare[partKey(i)]
		case aT > 0:
			t[TermTargetShare] = compShare[partKey(i)] / aT
		default:
			t[TermTargetShare] = 0
		}
		t[TermChangeTiming] = timing[i]
		t[TermLate] = late[i]
		sc := 0.0
		for _, k := range Terms() {
			sc += p.Weights[k] * t[k]
		}
		cands = append(cands, scored{node: i, terms: t, score: sc})
	}
	// Ties go to the component with more anomalous signals (its
	// probability mass), then to the node ID.
	compMass := map[string]float64{}
	for _, c := range cands {
		compMass[g.Nodes[c.node].Entity.ID()] += math.Exp(c.score - tieMassShift)
	}
	sort.SliceStable(cands, func(x, y int) bool {
		if cands[x].score != cands[y].score {
			return cands[x].score > cands[y].score
		}
		mx, my := compMass[g.Nodes[cands[x].node].Entity.ID()], compMass[g.Nodes[cands[y].node].Entity.ID()]
		if mx != my {
			return mx > my
		}
		return g.Nodes[cands[x].node].ID < g.Nodes[cands[y].node].ID
	})
	return contentNotFirst(g, ancestorsFirst(g, sp, cands, p.AncestorMargin), p.MinVerdictShare)
}

// targetFailureShares is, for an errors target that barely moved (under
// the detection threshold: no deviation to share out), the share of its
// failures' rise in the window that each failing callee's failures
// account for (errorsComposition: counted in failed requests where both
// sides' requests are counted), at most 1, by component (partKey); nil
// for any other target. A failure ratio that wanders in its baseline can
// hide a callee's clean break: the callee's failures are the caller's
// failures all the same — the same requests failing — so the callee
// explains what the target's failures did, whether or not that rose above
// the target's own noise.
func targetFailureShares(g *tcg.Graph, partKey func(int) string) map[string]float64 {
	if g.Target < 0 || targetMoved(g) || g.Nodes[g.Target].Signal != ingest.SignalErrors {
		return nil
	}
	dc, _, contrib := errorsComposition(g, g.Target)
	if !(dc > 0) || len(contrib) == 0 {
		return nil
	}
	out := map[string]float64{}
	for j, d := range contrib { // a max: the same in any order
		k := partKey(j)
		out[k] = math.Max(out[k], math.Min(1, d/dc))
	}
	return out
}

// decide sets the verdict: confident when the top cause's probability
// reaches MinConfidence and it explains at least MinVerdictShare of the
// target's deviation; else the abstention says why.
func decide(res *Result, g *tcg.Graph, aT float64, p Params) {
	if len(res.Candidates) > 0 && res.Candidates[0].Confidence >= p.MinConfidence {
		res.Confident = true
	}
	if res.Confident && aT > 0 && res.Candidates[0].Intervention.ExplainedShare < p.MinVerdictShare {
		res.Confident = false
		res.Abstention = fmt.Sprintf("the most probable cause (%.2f) explains %.0f%% of the target's deviation (under %.0f%%)",
			res.Candidates[0].Confidence, 100*res.Candidates[0].Intervention.ExplainedShare, 100*p.MinVerdictShare)
	}
	if g.Target >= 0 && !g.Nodes[g.Target].Anomalous {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the target %s is not anomalous in the window", g.Nodes[g.Target].Label()))
		res.Confident = false
		res.Abstention = fmt.Sprintf("the target %s is not anomalous in the window", g.Nodes[g.Target].Label()) + firstBreak(res)
	} else if len(res.Candidates) == 0 {
		res.Abstention = "no anomalous signal was found besides the target"
	} else if g.Target >= 0 && !targetMoved(g) {
		// Anomalous, but its episode is within what its baseline does (a
		// spike that recurs, a deviation under the threshold): a share of
		// it is a share of noise, so no verdict stands on one.
		res.Confident = false
		res.Abstention = fmt.Sprintf("the target %s barely moved in the window (%.1f σ, under the detection threshold %g): no cause can explain a share of it",
			g.Nodes[g.Target].Label(), g.Nodes[g.Target].Score, threshold(g)) + firstBreak(res)
	} else if !res.Confident && res.Abstention == "" {
		res.Abstention = fmt.Sprintf("the top cause's probability %.2f is below %.2f", res.Candidates[0].Confidence, p.MinConfidence)
	}
}

// firstBreak names, for an abstention over a target that did not move,
// the service whose requests broke that ranks first ("" when none broke).
func firstBreak(res *Result) string {
	switch {
	case res.BreakOrigin == "":
		return ""
	case len(res.BreakCallers) > 0:
		return "; first: " + res.BreakOrigin + ", whose answer " + strings.Join(res.BreakCallers, " and ") +
			" react to differently since the onset (their requests broke right after calling it)"
	}
	return "; first: the service whose requests broke, " + res.BreakOrigin
}

// counterfactual turns a target share (of the target's log-anomaly) into
// the target's counterfactual value in its units: with the target's
// anomaly a_T = ln(1 + z_T), removing the share leaves z' = e^{a_T(1−share)}
// − 1 robust σ, so the value falls back toward the baseline by the share
// (1 − z'/z_T) of its deviation.
func counterfactual(g *tcg.Graph, label, unit string, base, obs, aT, share float64) Intervention {
	// No interval is estimated: the share is a point value (Interval NaN).
	iv := Intervention{Target: label, Unit: unit, Baseline: base, Observed: obs, Counterfactual: obs,
		Interval: [2]float64{math.NaN(), math.NaN()}}
	if aT <= 0 || g.Target < 0 {
		return iv
	}
	zT := math.Expm1(aT)
	zc := math.Expm1(aT * (1 - clip01(share)))
	frac := 0.0
	if zT > 0 {
		frac = clip01(1 - zc/zT)
	}
	iv.ExplainedShare = frac
	iv.Counterfactual = obs - frac*(obs-base)
	return iv
}

// candidateService names the service a candidate counts for: its entity's
// service; for a node (host) or an unplaced GPU, the hosted service that
// its own change reaches most (else the most anomalous hosted one).
func candidateService(g *tcg.Graph, sp *anomalySpace, fl []map[int]float64, i int) string {
	n := g.Nodes[i]
	if n.Entity.Service != "" && n.Entity.Kind != ingest.KindNode {
		return n.Entity.Service
	}
	hosted := g.Hosted[n.Entity.ID()]
	if len(hosted) > 0 {
		best, bv := "", -1.0
		for _, j := range sp.ofServices(hosted) {
			o := g.Nodes[j]
			if o.Entity.Kind == ingest.KindNode || o.Entity.Kind == ingest.KindGPU {
				continue
			}
			v := fl[j][i] + tieEpsilon*o.Score
			if v > bv || v == bv && o.Entity.Service < best {
				best, bv = o.Entity.Service, v
			}
		}
		if best != "" {
			return best
		}
		return hosted[0]
	}
	if n.Entity.Service != "" {
		return n.Entity.Service
	}
	return n.Entity.Name
}

// candidateState is the candidate's final state: ROOT_CONFIRMED when it is
// eligible (its component's best-ranked signal, its service at least
// MinConfidence probable), its own change is most of its anomaly (r/a >
// MinOwnShare) and setting its
// component back to baseline removes at least MinTargetShare of the
// target's deviation, with a transition that says so;
// otherwise the graph's state (TRIGGERED or PROPAGATING).
func candidateState(g *tcg.Graph, sp *anomalySpace, i int, share float64, eligible bool, p Params) (tcg.State, []tcg.Transition) {
	n := g.Nodes[i]
	tr := append([]tcg.Transition(nil), n.Transitions...)
	own := 0.0
	if sp.a[i] > 0 {
		own = sp.r[i] / sp.a[i]
	}
	if eligible && own > p.MinOwnShare && share >= p.MinTargetShare {
		tr = append(tr, tcg.Transition{At: n.Onset, From: n.State, To: tcg.RootConfirmed, Edge: -1,
			Reason: fmt.Sprintf("its own change is %.0f%% of its anomaly (its parents explain the rest) and undoing it removes %.0f%% of the target's deviation", 100*own, 100*share)})
		return tcg.RootConfirmed, tr
	}
	return n.State, tr
}

// explainTCG prints every candidate's score terms.
func explainTCG(w io.Writer, g *tcg.Graph, sp *anomalySpace, cands []scored, services []string, p Params, aT float64, ev []NodeEvidence) {
	if g.Target >= 0 {
		fmt.Fprintf(w, "target %s: anomaly a=%.2f own=%.2f (residual z %.2f, physical %.2f), anomalous parents:", g.Nodes[g.Target].ID, aT, sp.r[g.Target], ev[g.Target].ZRes, ev[g.Target].ZPhys)
		for _, q := range sp.parents[g.Target] {
			fmt.Fprintf(w, " %s", g.Nodes[q].ID)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-60s %-18s %6s %6s %6s %7s %5s %6s %6s\n", "candidate", "service", "a", "own", "share", "downstr", "reach", "score", "state")
	for k, c := range cands {
		i := c.node
		fmt.Fprintf(w, "%-60s %-18s %6.2f %6.2f %6.2f %7.2f %5.0f %6.2f %6s\n", g.Nodes[i].ID, services[k], sp.a[i], c.terms[TermOwn],
			c.terms[TermTargetShare], c.terms[TermDownstream], c.terms[TermReach], c.score, g.Nodes[i].State)
	}
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
	base, win = measure.Quantile(bs, 0.5), measure.Quantile(ws, 0.5)
	iqr = measure.Quantile(bs, 0.75) - measure.Quantile(bs, 0.25)
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
			d.LatencySurge = math.Max(d.LatencySurge, squash(o.Score, dimensionHalf))
		case o.Signal == ingest.SignalErrors:
			d.ErrorPropagation = math.Max(d.ErrorPropagation, squash(o.Score, dimensionHalf))
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
	// Config drift: change events on the candidate's service within
	// changeLookback before the window end; full weight inside the lookback
	// of driftFullWindows windows.
	end := g.Grid[min(g.W1, len(g.Grid))-1]
	span := ingest.Time(driftFullWindows * (g.W1 - g.W0) * int(g.Step))
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() || (e.Entity.Service != svc && e.Entity.Name != n.Entity.Name) {
			continue
		}
		age := end - e.Time
		if age < 0 || age > ingest.Time(changeLookback) {
			continue
		}
		v := 1.0
		if age > span {
			v = 1 - float64(age-span)/float64(ingest.Time(changeLookback)-span)
		}
		d.ConfigDrift = math.Max(d.ConfigDrift, v)
	}
	return d
}

// r2 is the squared Pearson correlation over cells [lo, hi) where both are
// defined (0 when fewer than minCorrelationCells or a constant series).
func r2(x, y []float64, lo, hi int) float64 {
	var xs, ys []float64
	for t := lo; t < hi && t < len(x) && t < len(y); t++ {
		if !math.IsNaN(x[t]) && !math.IsNaN(y[t]) {
			xs, ys = append(xs, x[t]), append(ys, y[t])
		}
	}
	if len(xs) < minCorrelationCells || measure.Constant(xs) || measure.Constant(ys) {
		return 0
	}
	c := stat.Correlation(xs, ys, nil)
	if math.IsNaN(c) {
		return 0
	}
	return c * c
}

// pathToTarget follows, from node i, the edge toward a node one hop closer
// to the target that carries most of i's own change (its flow share).
func pathToTarget(g *tcg.Graph, fl []map[int]float64, i int) ([]int, []int) {
	path, edges := []int{i}, []int(nil)
	cur := i
	for g.Nodes[cur].Depth > 0 && len(path) < maxPathNodes {
		best, bw := -1, -1.0
		for _, ei := range g.Out(cur) {
			e := g.Edges[ei]
			if g.Nodes[e.To].Depth != g.Nodes[cur].Depth-1 {
				continue
			}
			w := e.Confidence * pathTieEpsilon
			if fl[e.To] != nil {
				w += fl[e.To][i]
			}
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
// entity within changeLookback before the window end, oldest first.
func eventsFor(b *ingest.Bundle, n *tcg.Node, g *tcg.Graph) []ingest.Event {
	end := g.Grid[min(g.W1, len(g.Grid))-1]
	var out []ingest.Event
	for _, e := range b.Events {
		if e.Entity.Service != n.Entity.Service && e.Entity.Name != n.Entity.Name {
			continue
		}
		if e.Time > end || end-e.Time > ingest.Time(changeLookback) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// reachesTargetService marks the nodes with a path to any node of the
// target's service (its latency, errors, logs ..., and its calls: the
// call edges it is the caller of): a cause must reach the component that
// alerted, whichever of its signals the alert watched.
func reachesTargetService(g *tcg.Graph) []bool {
	r := make([]bool, len(g.Nodes))
	if g.Target < 0 {
		return r
	}
	svc := g.Nodes[g.Target].Entity.Service
	var queue []int
	for i, n := range g.Nodes {
		// The target's service is its own nodes and its calls: what it
		// receives from a callee (errors, latency of the call) is what
		// it serves, whichever of them the alert watched.
		if i == g.Target || svc != "" && (n.Entity.Service == svc && n.Entity.Kind != ingest.KindEdge ||
			n.Entity.Kind == ingest.KindEdge && n.Entity.Caller == svc) {
			r[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, ei := range g.In(cur) {
			if p := g.Edges[ei].From; !r[p] {
				r[p] = true
				queue = append(queue, p)
			}
		}
	}
	return r
}

// explainFlow prints the target's anomaly by source and, for the largest
// sources, the path the flow took (each step's largest parent share).
func explainFlow(w io.Writer, g *tcg.Graph, sp *anomalySpace, tflow map[int]float64, aT float64) {
	type src struct {
		i   int
		amt float64
	}
	var ss []src
	for i, amt := range tflow {
		ss = append(ss, src{i, amt})
	}
	sort.Slice(ss, func(a, b int) bool {
		if ss[a].amt != ss[b].amt {
			return ss[a].amt > ss[b].amt
		}
		return ss[a].i < ss[b].i
	})
	fmt.Fprintf(w, "target anomaly by source:\n")
	for k, s := range ss {
		if k == explainSources {
			break
		}
		fmt.Fprintf(w, "  %5.1f%%  %s\n", 100*s.amt/aT, g.Nodes[s.i].ID)
	}
	if len(ss) > 0 {
		src := ss[0].i
		fl := sp.flows()
		cur := g.Target
		fmt.Fprintf(w, "path of the largest source back from the target: %s", g.Nodes[cur].ID)
		for step := 0; step < explainPathSteps && cur != src; step++ {
			best, bv := -1, 0.0
			for k, q := range sp.parents[cur] {
				if v := sp.weight[cur][k] * fl[q][src] / sp.a[q]; v > bv {
					best, bv = q, v
				}
			}
			if best < 0 {
				break
			}
			cur = best
			fmt.Fprintf(w, " <- %s", g.Nodes[cur].ID)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "target's anomalous parents and their weights:")
	for k, q := range sp.parents[g.Target] {
		fmt.Fprintf(w, " %s=%.2f", g.Nodes[q].ID, sp.weight[g.Target][k])
	}
	fmt.Fprintln(w)
}
