package scorecard

import (
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

// SchemaVersion is the version of the Card's JSON shape (docs/scorecard.schema.json).
// It changes only when a field is renamed or removed or its meaning changes.
const SchemaVersion = "2"

// DefaultSlice is the heatmap time-slice width used when Heatmap.Slice is zero.
const DefaultSlice = 30 * time.Second

// Names of built-in methods the Card can report in Card.Method (every
// name in causal.Methods() can appear). No behaviour hangs on them: what a
// card shows for a method follows its kind in causal's registry
// (causal.KindOf).
const (
	MethodTCG    = "tcg"
	MethodBARO   = "baro"
	MethodNSigma = "nsigma"
)

// Severities of a Cause.
const (
	SeverityCritical = "critical"
	SeverityWarning  = "warning"
	SeverityInfo     = "info"
)

// States of a Cause, the final status of the component's anomaly state machine.
const (
	StateRootConfirmed = "ROOT_CONFIRMED"
	StatePropagating   = "PROPAGATING"
	StateTriggered     = "TRIGGERED"
	StateIdle          = "IDLE"
)

// Dimension names scored for every cause.
const (
	DimLatencySurge       = "latency_surge"
	DimErrorPropagation   = "error_propagation"
	DimResourceSaturation = "resource_saturation"
	DimConfigDrift        = "config_drift"
)

// Evidence kinds.
const (
	EvidenceSeries     = "series"
	EvidenceSpans      = "spans"
	EvidenceTransition = "transition"
	EvidenceEvent      = "event"
	EvidenceKernel     = "kernel"
	EvidencePlacement  = "placement" // a process of the workload runs on the GPU (matched by host and PID)
	EvidenceLog        = "log"       // a log template whose rate changed (new, missing, more or fewer)
	EvidencePeers      = "peers"     // a member against its peers in the same minutes (a rollout's new pods, a replica, a GPU)
	EvidencePattern    = "pattern"   // a per-request pattern of a service that broke
)

// Card is the one presentation model of an analysis: everything any renderer
// shows. It is plain data, filled by the analysis stages (build.go) and never
// modified by a renderer. Field order is the JSON field order.
//
// Conventions: every ingest.Time is zero when unknown (rendered "-" or JSON
// null); every float may be NaN when unknown (rendered "~" or JSON null);
// slices are in display order (renderers never re-sort them except heatmap
// rows, which are stably ordered by depth).
type Card struct {
	SchemaVersion string   `json:"schema_version"` // SchemaVersion
	Tool          Tool     `json:"tool"`
	Method        string   `json:"method"` // the ranking method's name (causal.Methods)
	Demo          string   `json:"demo"`   // non-empty when run on the embedded demo: says so and how to run on your data
	Incident      Incident `json:"incident"`
	Verdict       Verdict  `json:"verdict"`
	Causes        []Cause  `json:"causes"` // rank order
	// Rows are the causes grouped by component, one row per component in
	// rank order of its first cause: the card's first screen.
	Rows []Row `json:"rows"`
	// Changes are the look-back's changes (rollouts, configuration
	// updates, change records), oldest first, at most maxChangeRows, each
	// with its relation to the symptom's onset and its verdict; OlderChanges
	// counts the older ones left out.
	Changes      []ChangeRow `json:"changes"`
	OlderChanges int         `json:"older_changes"`
	// Unexplained is the share 0..1 of the target's deviation, in its
	// units, that remains with every candidate set to its baseline at
	// once (the scale of Intervention.ExplainedShare); NaN when the
	// target barely moved.
	Unexplained float64 `json:"unexplained"`
	Pruned      Pruned  `json:"pruned"`
	// RequestBreaks are the services whose requests broke (most of them
	// stopped doing what they did, or some for a step every baseline
	// request took: a per-request pattern test), the most significant
	// first, at most three; when no cause explains a share of the target's
	// deviation (it barely moved, or the first cause explains under
	// Verdict.MinShare of it) the first of them is the first cause, or the
	// service two of them broke right after calling (causal.BreakOriginOf).
	RequestBreaks []RequestBreak `json:"request_breaks"`
	Heatmaps      []Heatmap      `json:"heatmaps"` // at most one per top cause, top-3
	// Overview is every service (rows ordered by call depth from the entry
	// services) × the same time slices as Heatmaps; no rows when there is
	// nothing to show.
	Overview  Heatmap    `json:"overview"`
	Warnings  []Footnote `json:"warnings"` // data-quality footnotes, numbered
	Inputs    []InputRow `json:"inputs"`
	Inventory Inventory  `json:"inventory"`
	Manifest  Manifest   `json:"manifest"`
	Sampling  string     `json:"sampling"` // optional note on sampling (traces, bootstrap)
	// RequestShape is the target's tail latency by request shape (shape.go);
	// nil, and no JSON key, unless the target is an LLM latency whose
	// requests carry their shapes.
	RequestShape *reportview.RequestShape `json:"request_shape,omitempty"`
}

// Row is one component of the ranked causes: every ranked signal of one
// pod, GPU, node, service, edge or rollout, with the numbers of the
// component, so that no two rows of the card are the same thing.
type Row struct {
	Rank          int    `json:"rank"` // 1-based, the order of the rows
	Service       string `json:"service"`
	Component     string `json:"component"`      // entity name, e.g. GPU UUID or pod name
	ComponentKind string `json:"component_kind"` // as Cause.ComponentKind
	// Signals are the component's ranked signals, its strongest first
	// (Cause.Signal of each cause in Causes).
	Signals []string `json:"signals"`
	// Causes are the ranks (Cause.Rank) of the row's causes, in rank order.
	Causes []int `json:"causes"`
	// Confidence is the probability 0..1 that this component is the root
	// cause: the probability of its service (ServiceConfidence) times the
	// component's share of that service's candidates (a softmax of each
	// component's best score, the ranking's own scale); the rows of one
	// service sum to at most its probability. NaN for a comparison method.
	Confidence float64 `json:"confidence"`
	// ServiceConfidence is the probability 0..1 that the row's service is
	// the root cause (Cause.Confidence); NaN for a comparison method.
	ServiceConfidence float64 `json:"service_confidence"`
	// ExplainedShare is the share 0..1 of the target's deviation that
	// setting every own change of the component to its baseline removes
	// (Intervention.ExplainedShare of its causes); NaN when unknown.
	ExplainedShare float64 `json:"explained_share"`
	// Onset is the earliest onset of the row's signals (zero when none is known).
	Onset ingest.Time `json:"onset"`
	// AfterAlert is set when Onset is after the alert fired: the
	// component moved after the page, so it is more likely an effect.
	AfterAlert bool   `json:"after_alert"`
	Severity   string `json:"severity"` // the first cause's
	// Evidence is the row's one-line summary: its first cause's first
	// evidence sentence.
	Evidence string `json:"evidence"`
	// Chart is the first cause's series around the window, for the
	// card's sparkline and chart (no points when there is none).
	Chart Chart `json:"chart"`
}

// Chart is one series around the incident: its values on the analysis
// grid from Start every Step, its baseline level and band, and the
// window, onset and alert instants. Values are in Unit; NaN where there
// is no sample.
type Chart struct {
	Label    string        `json:"label"`
	Unit     string        `json:"unit"`
	Start    ingest.Time   `json:"start"`
	Step     time.Duration `json:"step_seconds"`
	Values   []float64     `json:"values"`
	Baseline float64       `json:"baseline"`
	// BandLow and BandHigh are the baseline's normal band: its level ±
	// the anomaly threshold in robust σ.
	BandLow     float64     `json:"band_low"`
	BandHigh    float64     `json:"band_high"`
	WindowStart ingest.Time `json:"window_start"`
	WindowEnd   ingest.Time `json:"window_end"`
	Onset       ingest.Time `json:"onset"`
	Alert       ingest.Time `json:"alert"`
}

// Tool names the program that produced the Card.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target is the signal whose deviation the analysis explains.
type Target struct {
	Service   string `json:"service"`
	Signal    string `json:"signal"`    // ingest.SignalKind name, e.g. "latency"
	Stat      string `json:"stat"`      // e.g. "p99"
	Component string `json:"component"` // entity ID, e.g. "service/api-gateway"
}

// Incident states what was analysed, over which windows, and why.
type Incident struct {
	Target         Target      `json:"target"`
	At             ingest.Time `json:"at"` // incident instant (onset or alert)
	WindowStart    ingest.Time `json:"window_start"`
	WindowEnd      ingest.Time `json:"window_end"`
	BaselineStart  ingest.Time `json:"baseline_start"`
	BaselineEnd    ingest.Time `json:"baseline_end"`
	TargetChosenBy string      `json:"target_chosen_by"` // e.g. "alert HighRequestLatency in alert.json"
	AtChosenBy     string      `json:"at_chosen_by"`     // e.g. "--at flag", "largest anomaly"
	// WindowChosenBy says why the window is not centred on At: it reaches
	// back to the target's onset ("" when it is centred).
	WindowChosenBy string      `json:"window_chosen_by"`
	AlertName      string      `json:"alert_name"`
	AlertAt        ingest.Time `json:"alert_at"`
	RunbookURL     string      `json:"runbook_url"` // the alert's runbook_url annotation ("" when none)
	// Paged is the series the analysis explains — the alert's own when
	// the data holds it — in its units and bad direction.
	Paged Paged `json:"paged"`
}

// Paged is the metric that paged: the target's series, how it moved and
// which way is bad.
type Paged struct {
	Series string `json:"series"` // name{identifying labels}
	// Query is a PromQL selector of the series ("" for one derived from
	// spans or logs); Expr is the alert's own expression when its payload
	// carries one (the generator URL's).
	Query string `json:"query"`
	Expr  string `json:"expr"`
	What  string `json:"what"` // in words: "P99 api-gateway latency", "frontend success ratio"
	Unit  string `json:"unit"`
	// Direction is the bad direction: "up" (a rise is bad), "down" (a fall
	// is bad) or "" (either).
	Direction string  `json:"direction"`
	Baseline  float64 `json:"baseline"` // the baseline's level, NaN unknown
	Observed  float64 `json:"observed"` // the window's value the analysis explains, NaN unknown
	Text      string  `json:"text"`     // "P99 api-gateway latency rose to 4.59 s from 2.80 s"
	Chart     Chart   `json:"chart"`
}

// Verdict is the one-line answer.
type Verdict struct {
	Confident      bool   `json:"confident"`
	Text           string `json:"text"`           // "root cause: ..., confidence 0.87" or "no confident root cause"
	Counterfactual string `json:"counterfactual"` // plain words: "had it stayed at baseline, ..."
	// WouldDecide lists, when the verdict abstains, the data the inputs
	// lack that would help decide between the guesses (empty when none is
	// missing or the verdict is confident).
	WouldDecide []string `json:"would_decide"`
	// MinShare is the least share 0..1 of the target's deviation the first
	// cause must explain for a confident verdict; under it the service
	// whose requests broke is the first cause (causal's min_verdict_share;
	// NaN for a comparison method).
	MinShare float64 `json:"min_share"`
}

// Cause is one ranked root-cause candidate.
type Cause struct {
	Rank          int    `json:"rank"` // 1-based
	Service       string `json:"service"`
	Component     string `json:"component"`      // entity name, e.g. GPU UUID or pod name
	ComponentKind string `json:"component_kind"` // "pod", "gpu", "node", "service", "rollout" (never "edge": see Via)
	// Via is the entity the signal was measured on when it is not the
	// component ("edge/checkout->cart": a call's latency resolved to the
	// callee's replica or the network to it); PartWhy says how.
	Via          string       `json:"via,omitempty"`
	PartWhy      string       `json:"part_why,omitempty"`
	Signal       string       `json:"signal"`
	Score        float64      `json:"score"`
	Confidence   float64      `json:"confidence"` // 0..1
	Severity     string       `json:"severity"`   // SeverityCritical, SeverityWarning, SeverityInfo
	State        string       `json:"state"`      // StateRootConfirmed, ...
	Intervention Intervention `json:"intervention"`
	Dimensions   []Dimension  `json:"dimensions"`
	Evidence     []Evidence   `json:"evidence"`
	Path         []PathStep   `json:"path"` // propagation path from this cause to the target
	// NextSteps are what to check to confirm the cause, then what to do to
	// mitigate it (confirm steps only while the verdict abstains).
	NextSteps []Step `json:"next_steps"`
}

// Intervention is the do()-intervention result: had Target stayed at its
// baseline, the incident target would have been Counterfactual instead of Observed.
type Intervention struct {
	Target         string     `json:"target"` // the intervened node, e.g. "gpu/GPU-5a1c:gpu_mem_bw"
	Observed       float64    `json:"observed"`
	Counterfactual float64    `json:"counterfactual"`
	Unit           string     `json:"unit"`
	ExplainedShare float64    `json:"explained_share"` // 0..1 of the target's deviation
	Interval       [2]float64 `json:"interval"`        // interval of ExplainedShare (low, high)
}

// Dimension is one scored aspect of a cause; Value is 0..1, Weight its weight in Score.
type Dimension struct {
	Name   string  `json:"name"` // DimLatencySurge, ...
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
}

// Evidence is one observation supporting a cause.
type Evidence struct {
	Kind     string      `json:"kind"` // EvidenceSeries, ...
	Text     string      `json:"text"`
	Series   string      `json:"series"` // series key or name, when Kind is "series"
	Baseline float64     `json:"baseline"`
	Incident float64     `json:"incident"`
	Unit     string      `json:"unit"`
	TraceIDs []string    `json:"trace_ids"`
	At       ingest.Time `json:"at"`
}

// RequestBreak is one service's most broken per-request pattern (an
// EvidencePattern).
type RequestBreak struct {
	Service  string   `json:"service"`
	Evidence Evidence `json:"evidence"`
	// CauseRank is the rank of the first shown cause of the service (0
	// when no shown cause is of it).
	CauseRank int `json:"cause_rank"`
}

// PathStep is one hop of a propagation path. Lag is the delay of the edge
// into this step (zero for the first step).
type PathStep struct {
	Node     string        `json:"node"` // entity ID, e.g. "gpu/GPU-5a1c"
	Service  string        `json:"service"`
	Signal   string        `json:"signal"`
	Lag      time.Duration `json:"lag_seconds"`
	EdgeKind string        `json:"edge_kind"` // e.g. "placement", "call", "lagged"
	// Share is the share of the cause's effect that reaches this step
	// along the path (1 at the cause; NaN when the path is the greedy one).
	Share float64 `json:"share"`
}

// Pruned states how many candidates were shown and why the rest were not.
type Pruned struct {
	Shown    int     `json:"shown"`
	Total    int     `json:"total"`
	Dropped  int     `json:"dropped"`
	MinScore float64 `json:"min_score"`
}

// HeatScaleZ is the deviation a heatmap cell of 1 stands for: cells are the
// robust z-score of the slice against the baseline, in the signal's bad
// direction, divided by HeatScaleZ and clipped to 0..1. So 0 is at (or
// better than) the baseline, 0.3 the anomaly threshold of 3 robust σ, and 1
// is 10 robust σ or more. One fixed scale for every map and row, so that
// the symptom shows on the target row however large the cause's own
// deviation.
const HeatScaleZ = 10.0

// Heatmap is a bottleneck heatmap around one cause (or, as Card.Overview,
// of every service): rows are components ordered by topology depth, columns
// are time slices of width Slice from Start. Cells[i][j] is the deviation
// of row i in slice j on the HeatScaleZ scale, 0..1, NaN when there is no
// data.
type Heatmap struct {
	CauseRank int           `json:"cause_rank"`
	Title     string        `json:"title"`
	Rows      []HeatRow     `json:"rows"`
	Start     ingest.Time   `json:"start"`
	Slice     time.Duration `json:"slice_seconds"` // DefaultSlice when zero
	Cells     [][]float64   `json:"cells"`         // len(Rows) × slices
	Onset     ingest.Time   `json:"onset"`
	Alert     ingest.Time   `json:"alert"`
}

// HeatRow labels one heatmap row; Depth is its topology depth (0 = the
// cause; in the overview, the call depth from the entry services). Target
// marks the incident target's row.
type HeatRow struct {
	Label  string `json:"label"`
	Depth  int    `json:"depth"`
	Target bool   `json:"target"`
}

// Footnote is one numbered data-quality warning.
type Footnote struct {
	N       int    `json:"n"` // 1-based footnote number; renderers use the index+1 when zero
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Count   int    `json:"count"`
	Message string `json:"message"`
}

// InputRow is one input file and what it contributed.
type InputRow struct {
	Path    string      `json:"path"`
	Format  string      `json:"format"`
	SHA256  string      `json:"sha256"`
	Size    int64       `json:"size"`
	Start   ingest.Time `json:"start"`
	End     ingest.Time `json:"end"`
	Spans   int         `json:"spans"`
	Traces  int         `json:"traces"`
	Series  int         `json:"series"`
	Points  int         `json:"points"`
	Events  int         `json:"events"`
	Alerts  int         `json:"alerts"`
	Skipped bool        `json:"skipped"`
	Error   string      `json:"error"`
}

// Inventory lists the entities the analysis saw.
type Inventory struct {
	Entities []EntityRow `json:"entities"`
}

// EntityRow is one entity and the signals observed on it.
type EntityRow struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Service string   `json:"service"`
	Node    string   `json:"node"`
	Signals []string `json:"signals"`
}

// Manifest is what is needed to rerun the analysis exactly.
type Manifest struct {
	Version string          `json:"version"`
	Args    []string        `json:"args"`
	Inputs  []ManifestInput `json:"inputs"`
}

// ManifestInput pins one input by content hash.
type ManifestInput struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// AddWarning appends a footnote to the card's warnings, numbered after the
// last (for notes the caller adds after Build, such as how the flags'
// window was adjusted to the data).
func (c *Card) AddWarning(f Footnote) {
	f.N = len(c.Warnings) + 1
	c.Warnings = append(c.Warnings, f)
}
