package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// The tools' results: small, typed (so that the SDK derives their output
// schemas) and deterministic. A number that is not finite is null (nil).
// Summary sizes are bounded by the constants below; detail=full lifts them.
const (
	mcpTopCauses   = 3  // causes of an analyze summary
	mcpWarnings    = 5  // warnings of a summary
	mcpEvidence    = 5  // evidence of an explain_cause summary
	mcpTraceIDs    = 10 // trace IDs of an explain_cause summary
	mcpFindings    = 5  // regressions and improvements of a compare summary
	mcpInputRows   = 20 // inputs of a list_inputs summary
	mcpRootEntries = 50 // entries of each root listed
)

// num is f, or nil when f is NaN or infinite (JSON has neither).
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// fmtNum formats a confidence or share with two decimals ("n/a" when not finite).
func fmtNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// instant is t in RFC3339 (UTC), "" for zero.
func instant(t ingest.Time) string {
	if t == 0 {
		return ""
	}
	return t.Std().Format(time.RFC3339Nano)
}

// firstN is the first n of xs (all of them when full).
func firstN[T any](xs []T, n int, full bool) []T {
	if full || len(xs) <= n {
		return xs
	}
	return xs[:n]
}

// CauseSummary is one ranked cause in an analyze result.
type CauseSummary struct {
	Rank           int       `json:"rank"`
	Service        string    `json:"service"`
	Component      string    `json:"component"`
	ComponentKind  string    `json:"component_kind"`
	Signal         string    `json:"signal"`
	Confidence     *float64  `json:"confidence"`
	Severity       string    `json:"severity"`
	State          string    `json:"state"`
	ExplainedShare *float64  `json:"explained_share" jsonschema:"share 0..1 of the target's deviation the cause explains (do-intervention)"`
	NextSteps      []StepOut `json:"next_steps,omitempty" jsonschema:"how to confirm the cause, then how to mitigate it"`
}

// StepOut is a next step (scorecard.Step) without its empty fields.
type StepOut struct {
	Kind    string `json:"kind" jsonschema:"confirm, or mitigate (changes the cluster)"`
	Text    string `json:"text"`
	Command string `json:"command,omitempty" jsonschema:"a shell command"`
	Where   string `json:"where,omitempty" jsonschema:"where to run it (empty: where kubectl reaches the cluster)"`
	Query   string `json:"query,omitempty" jsonschema:"a PromQL expression of the series that moved"`
	URL     string `json:"url,omitempty"`
	Source  string `json:"source"`
}

// steps are a cause's next steps as the tools give them.
func steps(ss []scorecard.Step) []StepOut {
	var out []StepOut
	for _, s := range ss {
		out = append(out, StepOut(s))
	}
	return out
}

// AnalyzeOutput is the analyze tool's result.
type AnalyzeOutput struct {
	Verdict        string         `json:"verdict" jsonschema:"the one-line answer"`
	Confident      bool           `json:"confident"`
	Counterfactual string         `json:"counterfactual,omitempty"`
	WouldDecide    []string       `json:"would_decide,omitempty" jsonschema:"when the verdict abstains: the data that would decide"`
	Target         string         `json:"target" jsonschema:"the symptom explained, SERVICE:SIGNAL:STAT"`
	TargetChosenBy string         `json:"target_chosen_by"`
	At             string         `json:"at"`
	AtChosenBy     string         `json:"at_chosen_by"`
	WindowChosenBy string         `json:"window_chosen_by,omitempty" jsonschema:"why the window is not centred on at: it reaches back to the target's onset"`
	WindowStart    string         `json:"window_start"`
	WindowEnd      string         `json:"window_end"`
	Causes         []CauseSummary `json:"causes" jsonschema:"ranked causes (summary: the top ones); explain_cause gives one in depth"`
	CausesShown    int            `json:"causes_shown"`
	RequestBreaks  []string       `json:"request_breaks,omitempty" jsonschema:"services whose requests broke (most of them stopped doing what they did, or some for a step every baseline request took), the most significant first: SERVICE: the step that broke"`
	Warnings       []string       `json:"warnings,omitempty" jsonschema:"data-quality warnings (summary: the first ones)"`
	WarningsTotal  int            `json:"warnings_total"`
	Inputs         int            `json:"inputs"`
	Skipped        []string       `json:"skipped,omitempty" jsonschema:"inputs not analysed, with why"`
	Card           json.Marshaler `json:"card,omitempty" jsonschema:"with detail full: the whole JSON scorecard (docs/scorecard.schema.json)"`
	Markdown       string         `json:"markdown,omitempty" jsonschema:"with detail full: the scorecard in Markdown"`
}

// AnalyzeResult is the analyze tool's result of a run's card (the
// analysis.Run's Card): with detail full, the whole card, in the JSON the
// CLI's -o json writes (scorecard.Card's MarshalJSON).
func AnalyzeResult(c *scorecard.Card, full bool) (*AnalyzeOutput, error) {
	t := c.Incident.Target
	out := &AnalyzeOutput{
		Verdict: c.Verdict.Text, Confident: c.Verdict.Confident, Counterfactual: c.Verdict.Counterfactual, WouldDecide: c.Verdict.WouldDecide,
		Target: strings.Join([]string{t.Service, t.Signal, t.Stat}, ":"), TargetChosenBy: c.Incident.TargetChosenBy,
		At: instant(c.Incident.At), AtChosenBy: c.Incident.AtChosenBy, WindowChosenBy: c.Incident.WindowChosenBy,
		WindowStart: instant(c.Incident.WindowStart), WindowEnd: instant(c.Incident.WindowEnd),
		Causes: []CauseSummary{}, CausesShown: len(c.Causes), WarningsTotal: len(c.Warnings), Inputs: len(c.Inputs),
	}
	for _, cause := range firstN(c.Causes, mcpTopCauses, full) {
		out.Causes = append(out.Causes, CauseSummary{Rank: cause.Rank, Service: cause.Service, Component: cause.Component,
			ComponentKind: cause.ComponentKind, Signal: cause.Signal, Confidence: num(cause.Confidence), Severity: cause.Severity,
			State: cause.State, ExplainedShare: num(cause.Intervention.ExplainedShare), NextSteps: steps(cause.NextSteps)})
	}
	for _, rb := range c.RequestBreaks {
		out.RequestBreaks = append(out.RequestBreaks, rb.Service+": "+rb.Evidence.Text)
	}
	for _, w := range firstN(c.Warnings, mcpWarnings, full) {
		out.Warnings = append(out.Warnings, warningLine(w.Source, w.Message))
	}
	for _, in := range c.Inputs {
		if in.Skipped {
			out.Skipped = append(out.Skipped, in.Path+": "+in.Error)
		}
	}
	if full {
		out.Card = c
		var sb strings.Builder
		if err := scorecard.Render(&sb, c, "markdown", scorecard.RenderOptions{Width: 100}); err != nil {
			return nil, fmt.Errorf("render the scorecard: %w", err)
		}
		out.Markdown = sb.String()
	}
	return out, nil
}

// warningLine is "source: message" (the message alone without a source).
func warningLine(source, msg string) string {
	if source == "" {
		return msg
	}
	return source + ": " + msg
}

// evidenceOut is one observation supporting a cause.
type evidenceOut struct {
	Kind     string   `json:"kind"`
	Text     string   `json:"text"`
	Series   string   `json:"series,omitempty"`
	Baseline *float64 `json:"baseline"`
	Incident *float64 `json:"incident"`
	Unit     string   `json:"unit,omitempty"`
	At       string   `json:"at,omitempty"`
	TraceIDs []string `json:"trace_ids,omitempty"`
}

// pathStepOut is one hop of a cause's propagation path to the target.
type pathStepOut struct {
	Node       string   `json:"node"`
	Service    string   `json:"service"`
	Signal     string   `json:"signal"`
	LagSeconds float64  `json:"lag_seconds" jsonschema:"delay of the edge into this step"`
	EdgeKind   string   `json:"edge_kind"`
	Share      *float64 `json:"share" jsonschema:"share of the cause's effect reaching this step"`
}

// interventionOut is the do()-intervention on a cause.
type interventionOut struct {
	Node           string     `json:"node" jsonschema:"the intervened node"`
	Observed       *float64   `json:"observed" jsonschema:"the target as observed"`
	Counterfactual *float64   `json:"counterfactual" jsonschema:"the target had the cause stayed at its baseline"`
	Unit           string     `json:"unit"`
	ExplainedShare *float64   `json:"explained_share"`
	Interval       []*float64 `json:"interval" jsonschema:"interval (low, high) of explained_share"`
}

// dimensionOut is one scored aspect of a cause.
type dimensionOut struct {
	Name   string   `json:"name"`
	Value  *float64 `json:"value"`
	Weight *float64 `json:"weight"`
}

// ExplainOutput is the explain_cause tool's result.
type ExplainOutput struct {
	Rank           int             `json:"rank"`
	Service        string          `json:"service"`
	Component      string          `json:"component"`
	ComponentKind  string          `json:"component_kind"`
	Signal         string          `json:"signal"`
	Confidence     *float64        `json:"confidence"`
	Score          *float64        `json:"score"`
	Severity       string          `json:"severity"`
	State          string          `json:"state"`
	Target         string          `json:"target" jsonschema:"the symptom of the analysis, SERVICE:SIGNAL:STAT"`
	Intervention   interventionOut `json:"intervention"`
	Counterfactual string          `json:"counterfactual,omitempty" jsonschema:"the verdict's counterfactual in words (the top cause's)"`
	Path           []pathStepOut   `json:"path"`
	Evidence       []evidenceOut   `json:"evidence" jsonschema:"summary: the first ones"`
	EvidenceTotal  int             `json:"evidence_total"`
	TraceIDs       []string        `json:"trace_ids" jsonschema:"traces of the evidence, in its order (summary: the first ones)"`
	TraceIDsTotal  int             `json:"trace_ids_total"`
	Dimensions     []dimensionOut  `json:"dimensions,omitempty" jsonschema:"with detail full: the score's dimensions"`
	NextSteps      []StepOut       `json:"next_steps"`
}

// explainResult is the explain_cause result of one cause of card c.
func explainResult(c *scorecard.Card, cause *scorecard.Cause, full bool) *ExplainOutput {
	t := c.Incident.Target
	iv := cause.Intervention
	out := &ExplainOutput{Rank: cause.Rank, Service: cause.Service, Component: cause.Component, ComponentKind: cause.ComponentKind,
		Signal: cause.Signal, Confidence: num(cause.Confidence), Score: num(cause.Score), Severity: cause.Severity, State: cause.State,
		Target: strings.Join([]string{t.Service, t.Signal, t.Stat}, ":"),
		Intervention: interventionOut{Node: iv.Target, Observed: num(iv.Observed), Counterfactual: num(iv.Counterfactual), Unit: iv.Unit,
			ExplainedShare: num(iv.ExplainedShare), Interval: []*float64{num(iv.Interval[0]), num(iv.Interval[1])}},
		Path: []pathStepOut{}, Evidence: []evidenceOut{}, EvidenceTotal: len(cause.Evidence), TraceIDs: []string{},
		NextSteps: steps(cause.NextSteps)}
	if cause.Rank == 1 {
		out.Counterfactual = c.Verdict.Counterfactual
	}
	if out.NextSteps == nil {
		out.NextSteps = []StepOut{}
	}
	for _, p := range cause.Path {
		out.Path = append(out.Path, pathStepOut{Node: p.Node, Service: p.Service, Signal: p.Signal, LagSeconds: p.Lag.Seconds(),
			EdgeKind: p.EdgeKind, Share: num(p.Share)})
	}
	var ids []string
	for _, e := range cause.Evidence {
		for _, id := range e.TraceIDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	out.TraceIDsTotal = len(ids)
	out.TraceIDs = append(out.TraceIDs, firstN(ids, mcpTraceIDs, full)...)
	for _, e := range firstN(cause.Evidence, mcpEvidence, full) {
		out.Evidence = append(out.Evidence, evidenceOut{Kind: e.Kind, Text: e.Text, Series: e.Series, Baseline: num(e.Baseline),
			Incident: num(e.Incident), Unit: e.Unit, At: instant(e.At), TraceIDs: firstN(e.TraceIDs, 3, full)})
	}
	if full {
		for _, d := range cause.Dimensions {
			out.Dimensions = append(out.Dimensions, dimensionOut{Name: d.Name, Value: num(d.Value), Weight: num(d.Weight)})
		}
	}
	return out
}

// findingOut is one item a comparison singles out.
type findingOut struct {
	Rank    int    `json:"rank"`
	Label   string `json:"label"`
	Item    string `json:"item"`
	Verdict string `json:"verdict"`
	Text    string `json:"text"`
}

// workloadOut is one canary workload's verdict.
type workloadOut struct {
	Workload string   `json:"workload"`
	Service  string   `json:"service"`
	Verdict  string   `json:"verdict"`
	Score    *float64 `json:"score" jsonschema:"0-100"`
	Reason   string   `json:"reason"`
}

// CompareOutput is the compare tool's result.
type CompareOutput struct {
	Mode          string         `json:"mode" jsonschema:"before-after, canary or profile"`
	Verdict       string         `json:"verdict" jsonschema:"the one-line answer"`
	Target        *findingOut    `json:"target,omitempty" jsonschema:"before-after: the incident target's verdict"`
	Causes        []findingOut   `json:"causes,omitempty" jsonschema:"before-after: BEFORE's top causes, each with its verdict"`
	Regressions   []findingOut   `json:"regressions,omitempty"`
	Improvements  []findingOut   `json:"improvements,omitempty"`
	Counts        map[string]int `json:"counts,omitempty" jsonschema:"items per verdict"`
	Watch         []watchOut     `json:"watch,omitempty" jsonschema:"before-after: what to keep watching after the fix: the target's measurements and BEFORE's causes, the range each should stay in, and its PromQL"`
	Workloads     []workloadOut  `json:"workloads,omitempty" jsonschema:"canary mode: each canary workload's verdict"`
	Warnings      []string       `json:"warnings,omitempty"`
	WarningsTotal int            `json:"warnings_total"`
	Report        json.Marshaler `json:"report,omitempty" jsonschema:"with detail full: the whole JSON report (docs/compare.schema.json; profile: docs/profdiff.schema.json) without its plot data"`
}

// watchOut is one item to keep watching after the fix (model.Watch).
type watchOut struct {
	Label   string `json:"label"`
	Verdict string `json:"verdict"`
	Text    string `json:"text" jsonschema:"the range it should stay in"`
	Query   string `json:"query,omitempty" jsonschema:"PromQL of its series"`
}

// compareResult is the compare tool's result of a report: with detail
// full, the whole report in the JSON the CLI's -o json writes, its plot
// data left out.
func compareResult(rep *model.Report, full bool) *CompareOutput {
	finding := func(f model.Finding) findingOut {
		return findingOut{Rank: f.Rank, Label: f.Label, Item: f.Item, Verdict: string(f.Verdict), Text: f.Text}
	}
	findings := func(fs []model.Finding) []findingOut {
		var out []findingOut
		for _, f := range fs {
			out = append(out, finding(f))
		}
		return out
	}
	out := &CompareOutput{Mode: rep.Mode, Verdict: rep.Verdict.Text, WarningsTotal: len(rep.Warnings), Causes: findings(rep.Causes),
		Regressions: findings(firstN(rep.Regressions, mcpFindings, full)), Improvements: findings(firstN(rep.Improvements, mcpFindings, full))}
	if rep.Target.Label != "" {
		t := finding(rep.Target)
		out.Target = &t
	}
	for _, w := range rep.Canary.Workloads {
		out.Workloads = append(out.Workloads, workloadOut{Workload: w.Workload, Service: w.Service, Verdict: w.Verdict, Score: num(w.Score), Reason: w.Reason})
	}
	for _, w := range rep.Watch {
		out.Watch = append(out.Watch, watchOut{Label: w.Label, Verdict: string(w.Verdict), Text: w.Text, Query: w.Query})
	}
	for _, c := range rep.Counts {
		if c.N > 0 {
			if out.Counts == nil {
				out.Counts = map[string]int{}
			}
			out.Counts[string(c.Verdict)] = c.N
		}
	}
	for _, w := range firstN(rep.Warnings, mcpWarnings, full) {
		out.Warnings = append(out.Warnings, w.Message)
	}
	if full {
		all := *rep
		all.Plots = nil
		out.Report = all
	}
	return out
}

// inputOut is one input as list_inputs reports it.
type inputOut struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Size    int64  `json:"size"`
	Start   string `json:"start,omitempty"`
	End     string `json:"end,omitempty"`
	Spans   int    `json:"spans,omitempty"`
	Traces  int    `json:"traces,omitempty"`
	Series  int    `json:"series,omitempty"`
	Points  int    `json:"points,omitempty"`
	Events  int    `json:"events,omitempty"`
	Alerts  int    `json:"alerts,omitempty"`
	Logs    int    `json:"logs,omitempty"`
	Samples int    `json:"samples,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// rootOut is one root and what it holds.
type rootOut struct {
	Path    string   `json:"path"`
	Entries []string `json:"entries" jsonschema:"its entries by name (directories end in /; the first ones)"`
	Total   int      `json:"total"`
}

// ListOutput is the list_inputs tool's result.
type ListOutput struct {
	Roots         []rootOut      `json:"roots,omitempty" jsonschema:"without paths: the roots and their entries"`
	Live          []string       `json:"live,omitempty" jsonschema:"without paths: the kinds of live source the server fetches from"`
	Start         string         `json:"start,omitempty" jsonschema:"the data's time range"`
	End           string         `json:"end,omitempty"`
	Formats       map[string]int `json:"formats,omitempty" jsonschema:"inputs read per format"`
	Spans         int            `json:"spans"`
	Series        int            `json:"series"`
	Logs          int            `json:"logs"`
	Events        int            `json:"events"`
	Alerts        int            `json:"alerts"`
	Inputs        []inputOut     `json:"inputs,omitempty" jsonschema:"each input (summary: skipped ones first, then the first others)"`
	InputsTotal   int            `json:"inputs_total"`
	Warnings      []string       `json:"warnings,omitempty"`
	WarningsTotal int            `json:"warnings_total"`
}

// listResult is the list_inputs result of a bundle.
func listResult(b *ingest.Bundle, full bool) *ListOutput {
	out := &ListOutput{Start: instant(b.Start), End: instant(b.End), Formats: map[string]int{}, Spans: len(b.Spans), Series: len(b.Series),
		Logs: len(b.Logs), Events: len(b.Events), Alerts: len(b.Alerts), InputsTotal: len(b.Inputs), WarningsTotal: len(b.Warnings)}
	var rows []inputOut
	for _, in := range b.Inputs {
		if !in.Skipped {
			out.Formats[in.Format.String()]++
		}
		c := in.Counts
		rows = append(rows, inputOut{Path: in.Path, Format: in.Format.String(), Size: in.Size, Start: instant(in.Start), End: instant(in.End),
			Spans: c.Spans, Traces: c.Traces, Series: c.Series, Points: c.Points, Events: c.Events, Alerts: c.Alerts, Logs: c.Logs,
			Samples: c.Samples, Skipped: in.Skipped, Error: in.Error})
	}
	if !full { // the skipped inputs first: they are what needs attention
		slices.SortStableFunc(rows, func(a, b inputOut) int {
			switch {
			case a.Skipped == b.Skipped:
				return 0
			case a.Skipped:
				return -1
			}
			return 1
		})
	}
	out.Inputs = firstN(rows, mcpInputRows, full)
	for _, w := range firstN(b.Warnings, mcpWarnings, full) {
		out.Warnings = append(out.Warnings, warningLine(w.Source, w.Message))
	}
	return out
}

// listRoots lists each root's entries and the kinds of live source.
func (s *Server) listRoots() *ListOutput {
	out := &ListOutput{}
	for _, r := range s.Roots {
		ro := rootOut{Path: r, Entries: []string{}}
		ents, err := os.ReadDir(r) // sorted by name
		if err != nil {
			ro.Entries = append(ro.Entries, "(cannot read: "+unwrapPathError(err).Error()+")")
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			ro.Total++
			if len(ro.Entries) < mcpRootEntries {
				name := e.Name()
				if e.IsDir() {
					name += "/"
				}
				ro.Entries = append(ro.Entries, name)
			}
		}
		out.Roots = append(out.Roots, ro)
	}
	// The kinds only: an endpoint's URL may carry credentials.
	out.Live = s.LiveKinds
	return out
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// plural is "1 input", "3 inputs".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
