package scorecard

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// BuildOptions are what the Card needs beyond the analysis.
type BuildOptions struct {
	Version  string
	Args     []string      // the exact command-line arguments, for the rerun manifest
	Slice    time.Duration // heatmap slice width (DefaultSlice when zero)
	Demo     string        // the demo note, when run on the embedded demo
	Heatmaps int           // how many heatmaps (default 3)
	// MaxCauses bounds the causes shown (default evidence.DefaultMaxCauses,
	// the causes evidence.Collect gives evidence by default; a comparison
	// method ranks up to 50).
	MaxCauses int
	// OverviewRows bounds the overview heatmap's services (default 40).
	OverviewRows int
	// Runbooks are the team's runbooks (--runbooks): their steps come
	// before the built-in next steps, or replace them.
	Runbooks []Runbook
	// Links are the user's UIs (Jaeger, Grafana) the next steps link to.
	Links StepLinks
}

// maxRequestBreaks is how many services whose requests broke a card lists.
const maxRequestBreaks = 3

// Build fills the Card from the graph, the ranked result and the evidence
// gathered for it (evidence.Collect); it never reads the raw bundle. It is
// a pure function of its inputs.
func Build(g *tcg.Graph, r *causal.Result, ev *evidence.Set, opt BuildOptions) *Card {
	if opt.Slice <= 0 {
		opt.Slice = DefaultSlice
	}
	if opt.Heatmaps <= 0 {
		opt.Heatmaps = 3
	}
	if opt.MaxCauses <= 0 {
		opt.MaxCauses = evidence.DefaultMaxCauses
	}
	if opt.OverviewRows <= 0 {
		opt.OverviewRows = 40
	}
	inc := g.Incident
	c := &Card{SchemaVersion: SchemaVersion, Tool: Tool{Name: "pipeline-analyze", Version: opt.Version}, Method: r.Method, Demo: opt.Demo}
	c.Incident = Incident{
		Target: Target{Service: inc.Target.Service, Signal: inc.Target.Signal.String(), Stat: inc.Target.Stat},
		At:     inc.At, WindowStart: inc.WindowStart, WindowEnd: inc.WindowEnd, BaselineStart: inc.BaselineStart,
		BaselineEnd: inc.WindowStart, TargetChosenBy: inc.TargetChosenBy, AtChosenBy: inc.AtChosenBy, WindowChosenBy: inc.WindowChosenBy,
	}
	if g.Target >= 0 {
		c.Incident.Target.Component = g.Nodes[g.Target].Entity.ID()
	}
	if inc.Alert != nil {
		c.Incident.AlertName, c.Incident.AlertAt, c.Incident.RunbookURL = inc.Alert.Name, inc.Alert.StartsAt, inc.Alert.RunbookURL
	}
	// The unexplained share on the rows' scale: the target's deviation, in
	// its units, that remains with every candidate at its baseline.
	c.Unexplained = r.Unexplained
	if causalMethod(r) {
		c.Unexplained = causal.DeviationShare(g, r.Unexplained)
	}
	shown := r.Candidates
	if len(shown) > opt.MaxCauses {
		shown = shown[:opt.MaxCauses]
	}
	c.Pruned = Pruned{Shown: len(shown), Total: r.Total, Dropped: r.Dropped + len(r.Candidates) - len(shown), MinScore: r.MinScore}
	c.Verdict = verdict(g, r, c)
	c.Changes, c.OlderChanges = changeRows(r.Changes)
	for i := range r.RequestBreaks[:min(maxRequestBreaks, len(r.RequestBreaks))] {
		p := &r.RequestBreaks[i]
		rc := RequestBreak{Service: p.Service, Evidence: patternEvidence(p)}
		for k, cand := range shown {
			if cand.Service == p.Service {
				rc.CauseRank = k + 1
				break
			}
		}
		c.RequestBreaks = append(c.RequestBreaks, rc)
	}
	for i, cand := range shown {
		var ce evidence.Cause
		if i < len(ev.Causes) {
			ce = ev.Causes[i]
		}
		cs := buildCause(g, r, i, cand, ce)
		if !c.Verdict.Confident && cs.Severity == SeverityCritical {
			cs.Severity = SeverityWarning // no cause is critical while the verdict abstains
		}
		if cand.Node >= 0 && cand.Node < len(g.Nodes) && (c.Verdict.Confident || i < 3) {
			// Steps that change the cluster only for what the verdict
			// blames: the first cause's component, when it is confident.
			blamed := c.Verdict.Confident && cand.Component == shown[0].Component && cand.ComponentKind == shown[0].ComponentKind
			cs.NextSteps = nextSteps(g, g.Nodes[cand.Node], rolloutWorkload(g, cand), !blamed, opt.Runbooks, opt.Links)
			if i == 0 && c.Incident.RunbookURL != "" {
				cs.NextSteps = append([]Step{runbookStep(c.Incident.RunbookURL)}, cs.NextSteps...)
			}
		}
		c.Causes = append(c.Causes, cs)
	}
	c.Rows = buildRows(g, r, shown, c.Causes, opt.Slice)
	c.Incident.Paged = buildPaged(g, r, opt.Slice)
	if len(c.Rows) > 0 {
		c.Verdict = rowVerdict(c.Verdict, c.Rows[0], r)
	}
	if !c.Verdict.Confident {
		c.Verdict.WouldDecide = wouldDecide(ev.Inputs, g)
	}
	for i := 0; i < len(shown) && len(c.Heatmaps) < opt.Heatmaps; i++ {
		if h, ok := heatmap(g, shown[i], i+1, opt.Slice); ok {
			c.Heatmaps = append(c.Heatmaps, h)
		}
	}
	c.Overview = overview(ev.Entities, g, opt.Slice, opt.OverviewRows)
	c.RequestShape = buildShape(ev, c.Causes)
	c.Warnings = footnotes(ev.Warnings, g, r)
	for _, in := range ev.Inputs {
		c.Inputs = append(c.Inputs, InputRow{Path: in.Path, Format: in.Format.String(), SHA256: in.SHA256, Size: in.Size,
			Start: in.Start, End: in.End, Spans: in.Counts.Spans, Traces: in.Counts.Traces, Series: in.Counts.Series,
			Points: in.Counts.Points, Events: in.Counts.Events, Alerts: in.Counts.Alerts, Skipped: in.Skipped, Error: in.Error})
		c.Manifest.Inputs = append(c.Manifest.Inputs, ManifestInput{Path: in.Path, SHA256: in.SHA256})
	}
	c.Inventory = inventory(ev.Entities, g)
	c.Manifest.Version = opt.Version
	c.Manifest.Args = append([]string{"pipeline-analyze"}, opt.Args...)
	if causalMethod(r) {
		c.Sampling = "confidence is the probability that the cause's service is the root cause, from the ranking's fitted model (calibrated on labelled development incidents; see docs/accuracy.md)"
	}
	return c
}

// nodeWords names a node for people: "GPU-5a1c… on gpu-node-b (DRAM bandwidth)".
func nodeWords(n *tcg.Node) string {
	e := n.Entity
	name := e.Name
	switch e.Kind {
	case ingest.KindEdge:
		name = "call " + e.Caller + " → " + e.Callee
	case ingest.KindGPU, ingest.KindPod:
		if e.Node != "" {
			name += " on " + e.Node
		}
	case ingest.KindRollout:
		name = "rollout of " + e.Service + " to " + e.Name
		if n.Peer != nil && n.Peer.Rollout.New.Name != e.Name {
			name += ", ReplicaSet " + n.Peer.Rollout.New.Name
		}
	}
	return fmt.Sprintf("%s (%s)", name, signalWords(n.Signal, string(n.Facet)))
}

var signalText = map[ingest.SignalKind]string{
	ingest.SignalLatency: "latency", ingest.SignalErrors: "errors", ingest.SignalTraffic: "traffic",
	ingest.SignalCPU: "CPU", ingest.SignalCPUThrottle: "CPU throttling", ingest.SignalMemory: "memory",
	ingest.SignalDiskIO: "disk I/O", ingest.SignalNetwork: "network", ingest.SignalQueue: "queueing",
	ingest.SignalKVCache: "KV cache", ingest.SignalGPUUtil: "GPU utilisation", ingest.SignalGPUMemBW: "DRAM bandwidth",
	ingest.SignalGPUClock: "GPU clocks", ingest.SignalGPUThrottle: "GPU throttling", ingest.SignalTemperature: "temperature",
	ingest.SignalPower: "power", ingest.SignalXID: "XID/ECC errors", ingest.SignalGPUMemory: "GPU memory",
	ingest.SignalNVLink: "NVLink", ingest.SignalRestarts: "restarts", ingest.SignalOther: "other signal",
	ingest.SignalChange: "deployment or configuration change", ingest.SignalLogs: "log rate",
}

func signalWords(s ingest.SignalKind, facet string) string {
	w := signalText[s]
	if w == "" {
		w = s.String()
	}
	if s == ingest.SignalLogs {
		switch facet {
		case "new":
			return "new log templates"
		case "missing":
			return "log templates that stopped"
		case "errors":
			return "error log rate"
		case "mix":
			return "mix of log templates"
		case "pattern":
			return "what its requests do"
		}
		return w
	}
	switch facet {
	case "peers":
		return w + " unlike its peers"
	case "unready":
		return "new pods not serving"
	case "self":
		w = "own processing time"
	case "gap":
		w = "network/queueing delay"
	case "client":
		w = "caller-side latency"
	case "server":
		w = "callee-side latency"
	case "mix":
		w = "mix of operations"
	case "calls":
		w = "calls it makes"
	}
	return w
}

// reachedWords says where a recurring episode went, in its bad direction:
// "reached 1.2 s or more", or, where a fall is bad, "fell to 0.95 or less".
func reachedWords(level float64, unit string, dir int) string {
	if dir < 0 {
		return "fell to " + formatValue(level, unit) + " or less"
	}
	return "reached " + formatValue(level, unit) + " or more"
}

// formatValue renders a value with its unit at fixed precision.
func formatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "~"
	}
	switch unit {
	case "s":
		if math.Abs(v) < 1 {
			return fmt.Sprintf("%.0f ms", v*1000)
		}
		return fmt.Sprintf("%.2f s", v)
	case "ratio":
		return fmt.Sprintf("%.3f", v)
	case "":
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

func targetWords(g *tcg.Graph) string {
	t := g.Incident.Target
	what := signalText[t.Signal]
	if st := g.TargetSeries; isShareSeries(st) {
		what = strings.ReplaceAll(st.Stat, "_", " ") // "success ratio", not "errors"
	}
	s := t.Service + " " + what
	if st := g.TargetSeries; st != nil && len(st.Stat) > 1 && st.Stat[0] == 'p' && strings.Trim(st.Stat[1:], "0123456789.") == "" {
		s = strings.ToUpper(st.Stat) + " " + s // P99 latency
	}
	return s
}

func verdict(g *tcg.Graph, r *causal.Result, c *Card) Verdict {
	if len(r.Candidates) == 0 {
		return Verdict{Text: "no confident root cause: no anomalous signal leads to the target", MinShare: r.MinVerdictShare}
	}
	top := r.Candidates[0]
	words := top.Component + " (" + signalWords(top.Signal, top.Facet) + ")"
	if top.Node >= 0 {
		words = nodeWords(g.Nodes[top.Node])
	}
	if top.Via != "" {
		// the part one acts on, and the signal where it was measured
		words = top.ComponentKind.String() + " " + top.Component + " (" + signalWords(top.Signal, top.Facet) + " of " + strings.Replace(top.Via, "->", " → ", 1) + ")"
	}
	v := Verdict{Confident: r.Confident && causalMethod(r), MinShare: r.MinVerdictShare}
	if v.Confident {
		v.Text = fmt.Sprintf("root cause: %s, confidence %.2f", words, top.Confidence)
	} else {
		var guesses []string
		seen := map[string]bool{}
		for _, cand := range r.Candidates {
			if len(guesses) == 3 {
				break
			}
			if seen[cand.Service] {
				continue
			}
			seen[cand.Service] = true
			g := cand.Service
			if causalMethod(r) {
				g += fmt.Sprintf(" %.2f", cand.Confidence)
			}
			guesses = append(guesses, g)
		}
		reason := r.Abstention
		if !causalMethod(r) {
			reason = comparisonNote(r.Method)
		} else if reason == "" {
			reason = "the ranking is not confident"
		}
		v.Text = fmt.Sprintf("no confident root cause: %s (best guesses: %s)", reason, strings.Join(guesses, ", "))
	}
	if causalMethod(r) && g.TargetSeries != nil && (v.Confident || top.Intervention.ExplainedShare >= r.MinVerdictShare) {
		// (an abstention's top guess that explains nothing has no counterfactual worth a line)
		iv := top.Intervention
		unit := seriesUnit(g.TargetSeries, alertExpr(g))
		// The baseline is named so that a counterfactual on the far side of
		// the observed value (a target that dropped) still reads right.
		v.Counterfactual = fmt.Sprintf("had %s stayed at its baseline, %s would have been %s instead of %s (baseline %s; %.0f%% of the deviation explained)",
			cfSubject(v.Confident), targetWords(g)+" ("+g.TargetSeries.Name+")", pagedValue(iv.Counterfactual, g.TargetSeries, unit), pagedValue(iv.Observed, g.TargetSeries, unit),
			pagedValue(iv.Baseline, g.TargetSeries, unit), 100*iv.ExplainedShare)
	}
	return v
}

// cfSubject is what the counterfactual sets back: the verdict's cause
// (named in the line above it), or the first guess.
func cfSubject(confident bool) string {
	if confident {
		return "it"
	}
	return "the first guess"
}

// comparisonNote says what a comparison method is, for its verdict.
func comparisonNote(method string) string {
	m, _ := causal.LookupMethod(method)
	what := m.Note
	if what == "" {
		what = method + " ranks candidates by its own criterion"
	}
	return "--method " + method + " is a comparison baseline that does not decide: " + what
}

// causalMethod reports whether the result is the engine's own causal
// method's (counterfactuals, confidences, a verdict that decides) rather
// than a comparison baseline's: the registry's kind, never the name.
func causalMethod(r *causal.Result) bool { return r.Kind() == causal.KindCausal }

// severity grades a cause by its confidence; a comparison method's causes
// are all SeverityInfo.
func severity(cand causal.Candidate, r *causal.Result) string {
	if !causalMethod(r) {
		return SeverityInfo
	}
	// critical: more likely than not the root cause; warning: a real
	// contender (one chance in five); info: the rest.
	switch {
	case cand.Confidence >= 0.5:
		return SeverityCritical
	case cand.Confidence >= 0.2:
		return SeverityWarning
	}
	return SeverityInfo
}

// buildCause renders one ranked candidate with its evidence ce.
func buildCause(g *tcg.Graph, r *causal.Result, i int, cand causal.Candidate, ce evidence.Cause) Cause {
	cs := Cause{Rank: i + 1, Service: cand.Service, Component: cand.Component, ComponentKind: cand.ComponentKind.String(),
		Via: cand.Via, PartWhy: cand.PartWhy, Signal: cand.Signal.String(), Score: cand.Score, Confidence: cand.Confidence, Severity: severity(cand, r),
		State: cand.State.String()}
	if cand.Facet != "" {
		cs.Signal += "/" + cand.Facet
	}
	iv := cand.Intervention
	// The intervened node is the cause itself: do(cause := baseline).
	intervened := cand.NodeID
	if cand.Node >= 0 {
		intervened = g.Nodes[cand.Node].ID
	}
	cs.Intervention = Intervention{Target: intervened, Observed: iv.Observed, Counterfactual: iv.Counterfactual, Unit: iv.Unit,
		ExplainedShare: iv.ExplainedShare, Interval: iv.Interval}
	if !causalMethod(r) {
		cs.Intervention = Intervention{Observed: math.NaN(), Counterfactual: math.NaN(), ExplainedShare: math.NaN(), Interval: [2]float64{math.NaN(), math.NaN()}}
	}
	w := r.DisplayWeights
	d := cand.Dimensions
	cs.Dimensions = []Dimension{
		{DimLatencySurge, d.LatencySurge, w.LatencySurge},
		{DimErrorPropagation, d.ErrorPropagation, w.ErrorPropagation},
		{DimResourceSaturation, d.ResourceSaturation, w.ResourceSaturation},
		{DimConfigDrift, d.ConfigDrift, w.ConfigDrift},
	}
	if cand.Node < 0 {
		cs.Dimensions = nil // a comparison method's candidate is a series: no dimensions, state or counterfactual
		cs.Confidence = math.NaN()
		if s := cand.Series; s != nil {
			cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSeries, Series: s.Name + s.Labels.String(),
				Text: fmt.Sprintf("largest deviation %.1f (baseline-scaled) in the window", cand.Score), Baseline: math.NaN(), Incident: math.NaN(), Unit: s.Unit})
		}
		return cs
	}
	n := g.Nodes[cand.Node]
	s := n.Series[n.Rep]
	if ev, ok := contrastEvidence(g, n); ok {
		cs.Evidence = append(cs.Evidence, ev)
	} else if r := n.Recurrence; r != nil {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSeries, Series: shortKey(s), Baseline: n.Baseline,
			Incident: n.Incident, Unit: s.Unit, At: nodeOnset(g, n),
			Text: fmt.Sprintf("%s %s in %d of %d window samples, as it did in %d of %d baseline samples: %.1f σ as a rate (a %.0f robust σ spike that recurs)",
				n.Label(), reachedWords(r.Level, s.Unit, n.Dir), r.WindowHits, r.WindowN, r.BaselineHits, r.BaselineN, r.Score, r.Raw)})
	} else {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSeries, Series: shortKey(s), Baseline: n.Baseline,
			Incident: n.Incident, Unit: s.Unit, At: nodeOnset(g, n),
			Text: n.Label() + " " + n.DeviationWords()})
	}
	if ce.Pattern != nil {
		cs.Evidence = append(cs.Evidence, patternEvidence(ce.Pattern))
	}
	if n.Tail != nil {
		t := n.Tail
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSpans, Baseline: t.BaselineQ, Incident: t.WindowQ, Unit: "s",
			Text: fmt.Sprintf("P%.0f of %d spans %s → %d spans %s; %.0f%% exceed the baseline P%.0f (DKW bound %.0f%%, shifted: %v)",
				100*t.Q, t.BaselineN, formatValue(t.BaselineQ, "s"), t.WindowN, formatValue(t.WindowQ, "s"), 100*t.Exceed, 100*t.Q, 100*t.Bound, t.Shifted)})
	}
	if ce.Shares != nil {
		cs.Evidence = append(cs.Evidence, sharesEvidence(*ce.Shares))
	}
	if ids := ce.SlowTraces; len(ids) > 0 {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSpans, TraceIDs: ids, Baseline: math.NaN(), Incident: math.NaN(),
			Text: fmt.Sprintf("slowest traces through %s in the window", n.Entity.Service)})
	}
	if len(cand.Hosted) > 0 {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidencePlacement, Baseline: math.NaN(), Incident: math.NaN(),
			Text: fmt.Sprintf("this %s hosts %s", n.Entity.Kind, strings.Join(cand.Hosted, ", "))})
	}
	cs.Evidence = append(cs.Evidence, kernelEvidence(ce.Kernels)...)
	for _, pl := range ce.Placements {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidencePlacement, Baseline: math.NaN(), Incident: math.NaN(),
			Text: pl.String() + " runs on this GPU (the GPU's process list matched the traces' process tags)"})
	}
	// Other anomalous signals of the same component, strongest first.
	var others []*tcg.Node
	for _, o := range g.Nodes {
		if o != n && o.Anomalous && o.Entity.Service == n.Entity.Service && o.Entity.Service != "" {
			others = append(others, o)
		}
	}
	sort.SliceStable(others, func(i, j int) bool {
		if others[i].Score != others[j].Score {
			return others[i].Score > others[j].Score
		}
		return others[i].ID < others[j].ID
	})
	for _, o := range others[:min(3, len(others))] {
		os := o.Series[o.Rep]
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceSeries, Series: shortKey(os), Baseline: o.Baseline,
			Incident: o.Incident, Unit: os.Unit, At: o.Onset,
			Text: fmt.Sprintf("also %s, %.1f robust σ", o.Label(), o.Score)})
	}
	for _, t := range n.Transitions {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceTransition, At: t.At, Baseline: math.NaN(), Incident: math.NaN(),
			Text: fmt.Sprintf("%s → %s: %s", t.From, t.To, t.Reason)})
	}
	for _, l := range cand.Logs {
		cs.Evidence = append(cs.Evidence, logEvidence(l))
	}
	for _, e := range cand.Events {
		cs.Evidence = append(cs.Evidence, Evidence{Kind: EvidenceEvent, At: e.Time, Baseline: math.NaN(), Incident: math.NaN(),
			Text: fmt.Sprintf("%s %s on %s: %s", e.Kind, e.Reason, e.Entity.ID(), e.Message)})
	}
	// Only the hops that hold: each a moved signal reached with a lag ≥ 0.
	for k, ni := range cand.Path[:causal.HoldingPrefix(g, cand.Path, cand.PathEdges)] {
		pn := g.Nodes[ni]
		step := PathStep{Node: pn.Entity.ID(), Service: pn.Entity.Service, Signal: pn.Signal.String(), Share: math.NaN()}
		if k < len(cand.PathShares) {
			step.Share = math.Round(1000*cand.PathShares[k]) / 1000
		}
		if pn.Facet != "" {
			step.Signal += "/" + string(pn.Facet)
		}
		if k > 0 && cand.PathEdges[k-1] >= 0 {
			e := g.Edges[cand.PathEdges[k-1]]
			step.Lag, step.EdgeKind = e.Lag, e.Kind.String()
		}
		cs.Path = append(cs.Path, step)
	}
	return cs
}

// identifying are the labels that name what a series measures; exporter
// bookkeeping (instance, job, driver version, PCI bus ...) is left out of
// the report's series names.
var identifying = map[string]bool{"service": true, "pod": true, "UUID": true, "gpu": true, "node": true, "Hostname": true,
	"caller": true, "callee": true, "source_workload": true, "destination_workload": true, "reporter": true, "stat": true,
	"quantile": true, "direction": true, "container": true, "client": true, "server": true, "kernel": true}

// shortKey renders a series as name{identifying labels}.
func shortKey(s *ingest.Series) string {
	var ls ingest.Labels
	for _, l := range s.Labels {
		if identifying[l.Name] {
			ls = append(ls, l)
		}
	}
	return s.Name + ls.String()
}

// heatmap builds the bottleneck heatmap of one cause: rows are the nodes on
// its propagation path (cause first, depth increasing toward the target);
// cells are each slice's robust deviation in the bad direction on the
// HeatScaleZ scale.
func heatmap(g *tcg.Graph, cand causal.Candidate, rank int, slice time.Duration) (Heatmap, bool) {
	if cand.Node < 0 || len(cand.Path) == 0 {
		return Heatmap{}, false
	}
	h, n, ok := heatFrame(g, slice)
	if !ok {
		return Heatmap{}, false
	}
	h.CauseRank = rank
	first := g.Nodes[cand.Path[0]]
	h.Title = nodeWords(first) // renderers prefix the cause's rank
	h.Onset = first.Onset
	for depth, ni := range cand.Path {
		nd := g.Nodes[ni]
		h.Rows = append(h.Rows, HeatRow{Label: nd.Label(), Depth: depth, Target: ni == g.Target})
		h.Cells = append(h.Cells, scaleHeat(nodeHeatRow(g, nd, h.Start, slice, n)))
	}
	// A contrast cause shows its member and peers side by side.
	rows, cells := peerHeatRows(g, first, h.Start, slice, n)
	h.Rows = append(h.Rows, rows...)
	h.Cells = append(h.Cells, cells...)
	return h, true
}

// heatFrame is the time frame every heatmap of the incident shares: from
// one window length before the window (or the data's start) to the
// window's end, in slices of slice; n is the number of slices.
func heatFrame(g *tcg.Graph, slice time.Duration) (h Heatmap, n int, ok bool) {
	inc := g.Incident
	win := inc.WindowEnd - inc.WindowStart
	start := inc.WindowStart - win
	if len(g.Grid) > 0 && start < g.Grid[0] {
		start = g.Grid[0]
	}
	start = ingest.Time(int64(start) / int64(slice) * int64(slice))
	n = int((inc.WindowEnd - start + ingest.Time(slice) - 1) / ingest.Time(slice))
	if n <= 0 {
		return Heatmap{}, 0, false
	}
	return Heatmap{Start: start, Slice: slice, Alert: inc.At}, n, true
}

// nodeHeatRow is a node's robust deviation from its baseline in the bad
// direction (never below 0) for each of n slices from start, NaN where
// there is no data.
func nodeHeatRow(g *tcg.Graph, nd *tcg.Node, start ingest.Time, slice time.Duration, n int) []float64 {
	row := make([]float64, n)
	v := nd.Values()
	for j := range row {
		t := start + ingest.Time(int64(j)*int64(slice))
		// the grid cell covering this slice
		c := sort.Search(len(g.Grid), func(i int) bool { return g.Grid[i] >= t })
		if c >= len(g.Grid) || c >= len(v) || nd.Scale <= 0 || math.IsNaN(v[c]) {
			row[j] = math.NaN()
			continue
		}
		z := (v[c] - nd.Baseline) / nd.Scale
		switch {
		case nd.Dir < 0:
			z = -z
		case nd.Dir == 0:
			z = math.Abs(z)
		}
		row[j] = math.Max(0, z)
	}
	return row
}

// scaleHeat puts deviations on the HeatScaleZ scale (0..1, 3 decimals);
// NaN stays NaN.
func scaleHeat(row []float64) []float64 {
	for j, z := range row {
		if !math.IsNaN(z) {
			row[j] = math.Round(1000*math.Min(z, HeatScaleZ)/HeatScaleZ) / 1000
		}
	}
	return row
}

func warnKind(w ingest.Warning) string {
	for _, k := range []error{ingest.ErrClockSkew, ingest.ErrGap, ingest.ErrOrphanSpan, ingest.ErrDuplicateID, ingest.ErrBadValue,
		ingest.ErrUnmatched, ingest.ErrPartialInput, ingest.ErrSkippedInput, ingest.ErrSourceWarning, ingest.ErrLimit, ingest.ErrCounterReset} {
		if errors.Is(w, k) {
			return strings.ReplaceAll(k.Error(), " ", "_")
		}
	}
	return "warning"
}

// footnotes numbers the bundle's warnings, then the graph's and the
// ranking's (each message once).
func footnotes(warnings []ingest.Warning, g *tcg.Graph, r *causal.Result) []Footnote {
	var out []Footnote
	for _, w := range warnings {
		out = append(out, Footnote{Kind: warnKind(w), Source: w.Source, Count: max(w.Count, 1), Message: w.Message})
	}
	seen := map[string]bool{}
	for _, m := range append(append([]string{}, g.Warnings...), r.Warnings...) {
		if seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, Footnote{Kind: "analysis", Source: "analysis", Count: 1, Message: m})
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// inventory lists every entity with the signals the graph holds of it.
func inventory(entities []ingest.Entity, g *tcg.Graph) Inventory {
	sigs := map[string]map[string]bool{}
	for _, n := range g.Nodes {
		id := n.Entity.ID()
		if sigs[id] == nil {
			sigs[id] = map[string]bool{}
		}
		s := n.Signal.String()
		if n.Facet != "" {
			s += "/" + string(n.Facet)
		}
		sigs[id][s] = true
	}
	var inv Inventory
	for _, e := range entities {
		row := EntityRow{Kind: e.Kind.String(), Name: e.Name, Service: e.Service, Node: e.Node}
		for s := range sigs[e.ID()] {
			row.Signals = append(row.Signals, s)
		}
		sort.Strings(row.Signals)
		inv.Entities = append(inv.Entities, row)
	}
	return inv
}

// logEvidence renders one log template's change: what changed, its rate
// before and in the window, one example line (escaped by every renderer)
// and the traces it links to.
func logEvidence(l ingest.LogTemplateEvidence) Evidence {
	what := "changed rate"
	switch {
	case l.New:
		what = "new in the window"
	case l.Missing:
		what = "stopped in the window"
	}
	text := fmt.Sprintf("%s log template %q %s: %.2f → %.2f per minute", strings.ToLower(l.Severity.String()), truncate(l.Pattern, 160), what,
		l.BaselinePerMin, l.WindowPerMin)
	if l.Example != "" {
		text += fmt.Sprintf("; e.g. %q", truncate(l.Example, 160))
	}
	ev := Evidence{Kind: EvidenceLog, Text: text, Baseline: l.BaselinePerMin, Incident: l.WindowPerMin, Unit: "1/min", At: l.FirstInWindow}
	for _, t := range l.Traces {
		ev.TraceIDs = append(ev.TraceIDs, t.TraceID.String())
	}
	return ev
}
