package model

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

// SchemaVersion is the version of the Report's JSON shape
// (docs/compare.schema.json). It changes only when a field is renamed or
// removed or its meaning changes.
const SchemaVersion = "1"

// Verdict is the outcome of one comparison.
type Verdict string

// Verdicts, from the AFTER side's point of view.
const (
	// Fixed: better than BEFORE, BEFORE was outside the baseline band and
	// AFTER is back within it.
	Fixed Verdict = "fixed"
	// Improved: better than BEFORE, but not (known to be) back within the
	// baseline band.
	Improved Verdict = "improved"
	// Unchanged: no change that is both significant at the chosen α and at
	// least the minimum effect size (or only within the baseline band).
	Unchanged Verdict = "unchanged"
	// Regressed: worse than BEFORE, significantly and by at least the
	// minimum effect, and beyond the baseline band when there is one.
	Regressed Verdict = "regressed"
	// Changed: a significant change of a signal with no bad direction
	// (traffic, unclassified series).
	Changed Verdict = "changed"
	// Insufficient: too few samples, or a side too short or too quiet, to
	// decide; never a guess.
	Insufficient Verdict = "insufficient data"
)

// Verdicts lists every verdict in display order.
func Verdicts() []Verdict {
	return []Verdict{Regressed, Fixed, Improved, Changed, Unchanged, Insufficient}
}

// Item kinds.
const (
	KindDistribution = "distribution" // span durations: quantiles, Mann–Whitney, KS
	KindProportion   = "proportion"   // errors per request: two-proportion test
	KindRate         = "rate"         // events per second: Poisson rate test
	KindSeries       = "series"       // metric series points: robust location/scale
)

// KindRollout is an item that judges a rollout inside AFTER's window: the
// new version's pods against the old version's pods of the same workload
// in the same minutes (canary mode's judgment, package peers' version
// model). It needs no baseline band: the old pods are the reference, so a
// defective release shows even when the data starts shortly before it.
const KindRollout = "rollout"

// Report is the one presentation model of a comparison; renderers only
// read it. Field order is the JSON field order. Unknown numbers are NaN
// (JSON null, "~" in text); unknown instants are zero (JSON null, "-").
type Report struct {
	SchemaVersion string     `json:"schema_version"`
	Tool          Tool       `json:"tool"`
	Mode          string     `json:"mode"` // ModeBeforeAfter or ModeCanary
	Verdict       Summary    `json:"verdict"`
	Before        SideInfo   `json:"before"`
	After         SideInfo   `json:"after"`
	Settings      Settings   `json:"settings"`
	Target        Finding    `json:"target"`
	Causes        []Finding  `json:"causes"`       // the BEFORE side's top causes, in rank order
	CausesFrom    string     `json:"causes_from"`  // where the causes came from ("" when none)
	Watch         []Watch    `json:"watch"`        // what to keep watching after the fix: the target's measurements and the causes' items
	Regressions   []Finding  `json:"regressions"`  // the worst item of each entity, worst first, at most Settings.MaxFindings
	Improvements  []Finding  `json:"improvements"` // the largest fixed or improved item of each entity, largest first
	Traffic       []Finding  `json:"traffic"`      // traffic of every service, busiest first
	Counts        []Count    `json:"counts"`       // items per verdict, in Verdicts() order
	Items         []Item     `json:"items"`        // every compared item, sorted by ID
	Plots         []Plot     `json:"plots"`        // before/after distributions of the top items
	Heatmap       Heatmap    `json:"heatmap"`      // latency change by topology depth × time
	Warnings      []Footnote `json:"warnings"`
	Inputs        []Input    `json:"inputs"`
	Manifest      Manifest   `json:"manifest"`
	Canary        Canary     `json:"canary"` // canary mode's analysis (empty in before-after mode)
	// RequestShape is the target's LLM requests shape by shape, AFTER's
	// window against BEFORE's (shape.go); nil, and no JSON key, unless both
	// hold LLM request shapes.
	RequestShape *reportview.RequestShape `json:"request_shape,omitempty"`
}

// Tool names the program that produced the Report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary is the one-line answer: the target's verdict in words and how
// many items regressed anywhere.
type Summary struct {
	Verdict     Verdict `json:"verdict"` // the target's verdict
	Text        string  `json:"text"`
	Regressions int     `json:"regressions"` // items that regressed, the target included
}

// SideInfo describes one side of the comparison.
type SideInfo struct {
	Name          string        `json:"name"` // "before" or "after"
	Paths         []string      `json:"paths"`
	Start         ingest.Time   `json:"start"` // the compared window [start, end)
	End           ingest.Time   `json:"end"`
	ChosenBy      string        `json:"chosen_by"`
	BaselineStart ingest.Time   `json:"baseline_start"` // BEFORE only: the band's data, zero when none
	BaselineEnd   ingest.Time   `json:"baseline_end"`
	Covered       time.Duration `json:"covered_seconds"` // how much of the window the data covers
	Spans         int           `json:"spans"`           // spans starting in the window
	Series        int           `json:"series"`          // series with a point in the window
	Requests      int           `json:"requests"`        // entry requests of the target service in the window
}

// Settings are the thresholds every verdict was decided with.
type Settings struct {
	Alpha float64 `json:"alpha"` // Benjamini–Hochberg false-discovery rate
	// FalseAlarm bounds the chance that two quiet windows (no real change)
	// report anything at all: under the global null Benjamini–Hochberg at
	// α rejects something with probability at most α, and the minimum
	// effect and the band only remove rejections.
	FalseAlarm  float64       `json:"false_alarm"`
	MinDelta    float64       `json:"min_delta"`    // |Cliff's δ| of a location change
	MinRatio    float64       `json:"min_ratio"`    // relative change of a quantile (0.2 = 20%)
	MinH        float64       `json:"min_h"`        // Cohen's h of an error-ratio change
	MinShift    float64       `json:"min_shift"`    // robust σ of a metric series' level change
	MinSamples  int           `json:"min_samples"`  // spans (requests) per side
	MinCells    int           `json:"min_cells"`    // time cells with samples per side
	MinPoints   int           `json:"min_points"`   // series points per side
	MinCoverage float64       `json:"min_coverage"` // share of a window the data must cover
	Cell        time.Duration `json:"cell_seconds"` // time cell for clustering and the block bootstrap
	Window      time.Duration `json:"window_seconds"`
	BandWindows int           `json:"band_windows"` // baseline windows needed for a band
	// SeriesWindows is the disjoint baseline windows an episodic metric
	// series' regression needs (Options.SeriesWindows).
	SeriesWindows int    `json:"series_windows"`
	Bootstrap     int    `json:"bootstrap"`
	Seed          uint64 `json:"seed"`
	Tests         int    `json:"tests"` // p-values in the Benjamini–Hochberg family
	MaxFindings   int    `json:"max_findings"`
}

// Finding is one item singled out for the reader: the target, a BEFORE
// cause, a regression, an improvement or a traffic row.
type Finding struct {
	Rank    int     `json:"rank"`  // 1-based position in its list (a cause's rank in the scorecard)
	Label   string  `json:"label"` // what it is, e.g. "latency of service/api-gateway"
	Item    string  `json:"item"`  // the Item's ID ("" when nothing matched)
	Verdict Verdict `json:"verdict"`
	Text    string  `json:"text"` // the change in words: "p99 +180 ms [+120, +260], δ 0.41"
}

// Watch is what to keep watching after a fix: one per measurement of the
// target and per BEFORE cause, with the range it should stay in (the
// baseline's band when known, else BEFORE's baseline level), the PromQL
// of its series when it came from Prometheus, and a Grafana Explore link
// over BEFORE's window to AFTER's when Options.GrafanaURL is set.
type Watch struct {
	Label   string  `json:"label"`   // "latency of service/api-gateway"
	Item    string  `json:"item"`    // the Item's ID
	Verdict Verdict `json:"verdict"` // the item's verdict now
	Text    string  `json:"text"`    // the range to stay in, in words
	Query   string  `json:"query"`   // PromQL ("" for a series derived from spans or logs)
	URL     string  `json:"url"`     // Grafana Explore ("" without --grafana-url or a query)
}

// Count is how many items got one verdict.
type Count struct {
	Verdict Verdict `json:"verdict"`
	N       int     `json:"n"`
}

// Item is one compared (entity, signal) across the two sides.
type Item struct {
	ID         string  `json:"id"`   // stable key, e.g. "service/api-gateway:latency"
	Kind       string  `json:"kind"` // KindDistribution, ...
	Entity     string  `json:"entity"`
	EntityKind string  `json:"entity_kind"` // service, pod, edge, operation, gpu, node, workload
	Service    string  `json:"service"`
	Signal     string  `json:"signal"`
	Facet      string  `json:"facet"`  // client, server, gap, self, ... ("" for none)
	Series     string  `json:"series"` // the series name and labels (series items)
	Query      string  `json:"query"`  // the PromQL selecting the series ("" when derived from spans or logs)
	Unit       string  `json:"unit"`
	Depth      int     `json:"depth"`     // call-graph hops from the target's service (-1 unknown)
	Direction  int     `json:"direction"` // +1 up is worse, −1 down is worse, 0 neither
	Verdict    Verdict `json:"verdict"`
	Reason     string  `json:"reason"`    // why this verdict, in words
	Effect     float64 `json:"effect"`    // how far apart the sides are, 0..1: |Cliff's δ| (errors: the difference of the ratios; traffic: |r−1|/(r+1))
	LogRatio   float64 `json:"log_ratio"` // |log2(after/before)| of the statistic that moved (the median when none did), capped at 10 (10: from or to zero)
	Normalised string  `json:"normalised"`
	Before     Stats   `json:"before"`
	After      Stats   `json:"after"`
	Baseline   Stats   `json:"baseline"`
	Band       Band    `json:"band"`
	Test       Test    `json:"test"`
}

// Stats summarise one side of an item. Fields that do not apply are NaN.
type Stats struct {
	N       int     `json:"n"`      // samples (spans, requests, points, events)
	Cells   int     `json:"cells"`  // time cells with samples
	Events  int     `json:"events"` // errors (proportions)
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P99     float64 `json:"p99"`
	Mean    float64 `json:"mean"`
	Median  float64 `json:"median"` // series: the window's level
	Scale   float64 `json:"scale"`  // series: robust σ (1.4826·MAD)
	Ratio   float64 `json:"ratio"`  // proportions: events / n
	Rate    float64 `json:"rate"`   // rates: events per second
	Seconds float64 `json:"seconds"`
}

// Band is the baseline band of an item (see the package documentation):
// for distributions, error ratios and rates the range [min, max] of the
// statistic over the baseline windows; for series the 1st–99th percentile
// of the baseline points. Known is false when the baseline had fewer than
// Settings.BandWindows usable windows (series: fewer than 20 points).
type Band struct {
	Known   bool       `json:"known"`
	Windows int        `json:"windows"`
	Points  int        `json:"points"` // series: baseline points
	P50     [2]float64 `json:"p50"`
	P90     [2]float64 `json:"p90"`
	P99     [2]float64 `json:"p99"`
	Level   [2]float64 `json:"level"`  // series
	Ratio   [2]float64 `json:"ratio"`  // error ratio, or rate (1/s) for traffic
	Spread  float64    `json:"spread"` // series: robust σ of the baseline's window medians
}

// Test holds the statistics of one item. Fields that do not apply are NaN.
type Test struct {
	Method        string           `json:"method"` // "mann-whitney+ks", "two-proportion", "poisson-rate", "robust-shift"
	Z             float64          `json:"z"`      // the primary test's statistic
	P             float64          `json:"p"`
	Q             float64          `json:"q"` // Benjamini–Hochberg adjusted
	U             float64          `json:"u"` // Mann–Whitney U of AFTER
	KSD           float64          `json:"ks_d"`
	KSP           float64          `json:"ks_p"`
	KSQ           float64          `json:"ks_q"`
	Deff          float64          `json:"deff"`        // variance inflation for dependence in time
	CliffDelta    float64          `json:"cliff_delta"` // P(after > before) − P(after < before)
	HodgesLehmann float64          `json:"hodges_lehmann"`
	Quantiles     []QuantileChange `json:"quantiles"`
	Shift         float64          `json:"shift"`   // series: (median_after − median_before) / robust σ
	CohenH        float64          `json:"cohen_h"` // proportions
	RateRatio     float64          `json:"rate_ratio"`
}

// QuantileChange is one quantile on both sides with block-bootstrap
// percentile intervals (95%) of the difference and the ratio.
type QuantileChange struct {
	Q       float64    `json:"q"` // 0.5, 0.9, 0.99
	Before  float64    `json:"before"`
	After   float64    `json:"after"`
	Diff    float64    `json:"diff"`
	DiffCI  [2]float64 `json:"diff_ci"`
	Ratio   float64    `json:"ratio"`
	RatioCI [2]float64 `json:"ratio_ci"`
	Usable  bool       `json:"usable"` // both sides have at least 10 samples beyond the quantile
}

// Plot is the before/after distribution of one item: ECDF points (value,
// cumulative share) of each side, thinned to at most 120 points each.
type Plot struct {
	Item   string       `json:"item"`
	Title  string       `json:"title"`
	Unit   string       `json:"unit"`
	LogX   bool         `json:"log_x"`
	Before [][2]float64 `json:"before"`
	After  [][2]float64 `json:"after"`
	Band   [2]float64   `json:"band"` // the band of the item's worst-moving statistic, NaN when none
}

// Heatmap is the latency change by topology depth × time: rows are
// services ordered by depth from the target's service, columns are time
// slices from the start of each window; a cell is log2(after/before) of the
// slice's median latency, divided by 2 and clipped to [−1, 1] (−1: four
// times faster, +1: four times slower), NaN without data on both sides.
type Heatmap struct {
	Rows  []HeatRow     `json:"rows"`
	Slice time.Duration `json:"slice_seconds"`
	Cells [][]float64   `json:"cells"`
}

// HeatRow labels one heatmap row.
type HeatRow struct {
	Label string `json:"label"`
	Depth int    `json:"depth"`
	Item  string `json:"item"`
}

// Footnote is one numbered warning.
type Footnote struct {
	N       int    `json:"n"`
	Side    string `json:"side"` // "before", "after" or "" for both
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Input is one input file of a side.
type Input struct {
	Side    string `json:"side"`
	Path    string `json:"path"`
	Format  string `json:"format"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	Skipped bool   `json:"skipped"`
	Error   string `json:"error"`
}

// Manifest is what is needed to rerun the comparison exactly.
type Manifest struct {
	Version string          `json:"version"`
	Args    []string        `json:"args"`
	Seed    uint64          `json:"seed"`
	Inputs  []ManifestInput `json:"inputs"`
}

// ManifestInput pins one input by content hash.
type ManifestInput struct {
	Side   string `json:"side"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Report modes.
const (
	ModeBeforeAfter = "before-after" // two windows (package compare's Run)
	ModeCanary      = "canary"       // two groups of pods in one window (package compare/canary's Run)
)

// ErrNoData is returned (wrapped) when neither window holds any data (one
// empty window is a report whose items are all insufficient data).
var ErrNoData = errors.New("no data in the window")

// Exit statuses of a gate (the command's exit codes 3 and 4).
const (
	ExitGate         = 3 // the gate tripped
	ExitUndetermined = 4 // a gate was asked for but the target could not be decided
)

// WarningText is an input warning's kind and message as a footnote shows
// them.
func WarningText(wn ingest.Warning) (kind, msg string) {
	kind = "warning"
	if wn.Kind != nil {
		kind = strings.ReplaceAll(wn.Kind.Error(), " ", "_")
	}
	msg = wn.Message
	if wn.Source != "" {
		msg = wn.Source + ": " + msg
	}
	if wn.Count > 1 {
		msg += " (" + strconv.Itoa(wn.Count) + "×)"
	}
	return kind, msg
}
