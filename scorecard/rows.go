package scorecard

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// componentKey names the component a candidate belongs to: its kind and
// name (a node "cpu-node-1" and a pod "cpu-node-1" are two components).
func componentKey(kind, name string) string { return kind + "/" + name }

// buildRows groups the shown causes by component: one row per component,
// in rank order of its first cause, with the component's numbers
// (confidence, explained share, onset). all are every ranked candidate
// (r.Candidates), from which a component's share of its service's
// probability is taken.
func buildRows(g *tcg.Graph, r *causal.Result, shown []causal.Candidate, causes []Cause, slice time.Duration) []Row {
	comparison := !causalMethod(r)
	// The component's best score among every ranked candidate, and the
	// sum of exp(best − top) over the components of each service.
	best := map[string]float64{}
	svcOf := map[string]string{}
	var order []string
	for _, cand := range r.Candidates {
		k := componentKey(cand.ComponentKind.String(), cand.Component)
		if old, ok := best[k]; !ok || cand.Score > old {
			if !ok {
				order = append(order, k)
				svcOf[k] = cand.Service
			}
			best[k] = cand.Score
		}
	}
	top := map[string]float64{}
	for _, k := range order {
		s := svcOf[k]
		if t, ok := top[s]; !ok || best[k] > t {
			top[s] = best[k]
		}
	}
	mass := map[string]float64{}
	for _, k := range order { // a fixed summation order: the same bits every run
		mass[svcOf[k]] += math.Exp(best[k] - top[svcOf[k]])
	}
	var rows []Row
	index := map[string]int{}
	for i, cand := range shown {
		cs := causes[i]
		k := componentKey(cs.ComponentKind, cs.Component)
		ri, ok := index[k]
		if !ok {
			ri = len(rows)
			index[k] = ri
			row := Row{Service: cs.Service, Component: cs.Component, ComponentKind: cs.ComponentKind,
				Confidence: math.NaN(), ServiceConfidence: math.NaN(), ExplainedShare: math.NaN(), Severity: cs.Severity,
				Chart: Chart{Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN()}}
			if !comparison {
				row.ServiceConfidence = cs.Confidence
				if b, ok := best[k]; ok && mass[cs.Service] > 0 {
					row.Confidence = cs.Confidence * math.Exp(b-top[cs.Service]) / mass[cs.Service]
				}
			}
			if len(cs.Evidence) > 0 {
				row.Evidence = cs.Evidence[0].Text
			}
			if cand.Node >= 0 && cand.Node < len(g.Nodes) {
				row.Chart = nodeChart(g, g.Nodes[cand.Node], slice)
			}
			rows = append(rows, row)
		}
		row := &rows[ri]
		row.Causes = append(row.Causes, cs.Rank)
		if !contains(row.Signals, cs.Signal) {
			row.Signals = append(row.Signals, cs.Signal)
		}
		if x := cs.Intervention.ExplainedShare; !math.IsNaN(x) && (math.IsNaN(row.ExplainedShare) || x > row.ExplainedShare) {
			row.ExplainedShare = x
		}
		if cand.Node >= 0 && cand.Node < len(g.Nodes) {
			if on := nodeOnset(g, g.Nodes[cand.Node]); on != 0 && (row.Onset == 0 || on < row.Onset) {
				row.Onset = on
			}
		}
	}
	// The first row is the verdict's (the ranking's first cause); the
	// others follow their confidence, so that a row never stands above a
	// more probable one (ties: the rank of their first cause).
	if len(rows) > 2 && !comparison {
		rest := rows[1:]
		sort.SliceStable(rest, func(i, j int) bool {
			a, b := rest[i].Confidence, rest[j].Confidence
			if a != b && !math.IsNaN(a) && !math.IsNaN(b) {
				return a > b
			}
			return rest[i].Causes[0] < rest[j].Causes[0]
		})
	}
	alert := ingest.Time(0)
	if g.Incident.Alert != nil {
		alert = g.Incident.Alert.StartsAt
	}
	for i := range rows {
		rows[i].Rank = i + 1
		rows[i].AfterAlert = alert != 0 && rows[i].Onset > alert
	}
	return rows
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// nodeChart is a node's representative series over the heatmaps' frame
// (one window length before the window to its end), with its baseline
// level and normal band (± the anomaly threshold in robust σ).
func nodeChart(g *tcg.Graph, nd *tcg.Node, slice time.Duration) Chart {
	ch := Chart{Label: nd.Label(), Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN(),
		WindowStart: g.Incident.WindowStart, WindowEnd: g.Incident.WindowEnd, Onset: nodeOnset(g, nd)}
	if g.Incident.Alert != nil {
		ch.Alert = g.Incident.Alert.StartsAt
	}
	if nd.Rep < 0 || nd.Rep >= len(nd.Series) {
		return ch
	}
	s := nd.Series[nd.Rep]
	ch.Unit = s.Unit
	fillChart(&ch, g, s.V, slice)
	if nd.Scale > 0 && !math.IsNaN(nd.Baseline) {
		th := g.Threshold
		if th <= 0 {
			th = tcg.DefaultThreshold
		}
		ch.Baseline = nd.Baseline
		ch.BandLow, ch.BandHigh = nd.Baseline-th*nd.Scale, nd.Baseline+th*nd.Scale
	}
	return ch
}

// fillChart sets the chart's values: v (on the graph's grid) from the
// heatmaps' frame start to the window's end.
func fillChart(ch *Chart, g *tcg.Graph, v []float64, slice time.Duration) {
	h, _, ok := heatFrame(g, slice)
	if !ok || len(g.Grid) == 0 {
		return
	}
	i0 := sort.Search(len(g.Grid), func(i int) bool { return g.Grid[i] >= h.Start })
	i1 := sort.Search(len(g.Grid), func(i int) bool { return g.Grid[i] > g.Incident.WindowEnd })
	if i0 >= i1 || i0 >= len(v) {
		return
	}
	i1 = min(i1, len(v))
	ch.Start, ch.Step = g.Grid[i0], g.Step
	ch.Values = make([]float64, i1-i0)
	for k := range ch.Values {
		ch.Values[k] = round4(v[i0+k])
	}
}

// round4 keeps 4 significant digits, so that the JSON stays short and
// equal cards stay byte-identical.
func round4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	e := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*e) / e
}

// rowVerdict words the verdict from the first row, so that it names the
// row's component and carries the table's numbers: a confident verdict the
// row's confidence (and its service's, when they differ); an abstention
// because the first cause explains too little the row's explained share.
func rowVerdict(v Verdict, row Row, r *causal.Result) Verdict {
	if !causalMethod(r) {
		return v
	}
	if v.Confident {
		if i := strings.Index(v.Text, ", confidence "); i >= 0 {
			v.Text = v.Text[:i] + " of " + row.Service + ", " + confidenceWords(row)
		}
		return v
	}
	if strings.HasPrefix(r.Abstention, "the most probable cause (") && !math.IsNaN(row.ExplainedShare) {
		rest := ""
		if i := strings.Index(v.Text, " (best guesses: "); i >= 0 {
			rest = v.Text[i:]
		}
		v.Text = fmt.Sprintf("no confident root cause: #1 %s of %s (confidence %.2f) explains %s of the target's deviation, under the %s a verdict needs%s",
			componentName(row.ComponentKind, row.Component), row.Service, row.ServiceConfidence, fmtShare(row.ExplainedShare), minShareText(v.MinShare), rest)
	}
	return v
}

// confidenceWords is "confidence 0.87" for a row whose service has no
// other component, else "confidence 0.53 (0.87 that it is SERVICE)".
func confidenceWords(row Row) string {
	if math.IsNaN(row.Confidence) || math.Abs(row.Confidence-row.ServiceConfidence) < 0.005 {
		return fmt.Sprintf("confidence %.2f", row.ServiceConfidence)
	}
	return fmt.Sprintf("confidence %.2f (%.2f that it is %s)", row.Confidence, row.ServiceConfidence, row.Service)
}

// minShareText is the verdict's least share in words ("5%").
func minShareText(m float64) string {
	if math.IsNaN(m) {
		return "least share"
	}
	return fmt.Sprintf("%.3g%%", 100*m)
}

// componentName is "kind/name" ("pod/vllm-0").
func componentName(kind, name string) string {
	if kind == "" {
		return name
	}
	return kind + "/" + name
}

// nodeOnset is when a node started: a change node's is its first change's
// first event (the graph's onset is a grid cell's time, which may lie
// after the alert the change preceded, or before the change), any other
// node's its onset. The row, its chart and its evidence say the same.
func nodeOnset(g *tcg.Graph, n *tcg.Node) ingest.Time {
	if n.Signal != ingest.SignalChange {
		return n.Onset
	}
	first := ingest.Time(0)
	for _, c := range g.Changes {
		if c.Node >= 0 && c.Node < len(g.Nodes) && g.Nodes[c.Node] == n && c.At != 0 && !c.After && (first == 0 || c.At < first) {
			first = c.At
		}
	}
	if first == 0 {
		return n.Onset
	}
	return first
}
