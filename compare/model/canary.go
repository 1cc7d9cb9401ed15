package model

import (
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Canary verdicts, per workload and overall.
const (
	CanaryPass         = "pass"
	CanaryMarginal     = "marginal"
	CanaryFail         = "fail"
	CanaryInsufficient = "insufficient data"
)

// Canary metric results.
const (
	MetricPass         = "pass"
	MetricHigh         = "high"
	MetricLow          = "low"
	MetricInsufficient = "insufficient data"
)

// Canary is the canary analysis of a Report (Mode ModeCanary): every
// selected canary group judged against its baseline groups in the same
// minutes, Kayenta-style.
type Canary struct {
	Selector         string           `json:"selector"`
	BaselineSelector string           `json:"baseline_selector"` // "" = the other groups of each canary's service
	Verdict          string           `json:"verdict"`           // the worst workload verdict: fail, marginal, insufficient data, pass
	Text             string           `json:"text"`
	Settings         CanarySettings   `json:"settings"`
	Workloads        []CanaryWorkload `json:"workloads"` // by service, then canary name
}

// CanarySettings are the thresholds every canary verdict was decided with.
type CanarySettings struct {
	Threshold float64       `json:"threshold"` // scales of the canary's median difference
	Hold      float64       `json:"hold"`      // share of cells beyond half the threshold
	MinRatio  float64       `json:"min_ratio"`
	MinCells  int           `json:"min_cells"`
	Warmup    time.Duration `json:"warmup_seconds"`
	Pass      float64       `json:"pass"`     // score for pass
	Marginal  float64       `json:"marginal"` // score for marginal
	Critical  []string      `json:"critical"` // signals whose bad result fails the workload whatever its score
	Step      time.Duration `json:"step_seconds"`
}

// CanaryWorkload is one canary group judged against its baseline.
type CanaryWorkload struct {
	Workload     string      `json:"workload"` // the canary group: its ReplicaSet, workload or workload:version
	Service      string      `json:"service"`
	Verdict      string      `json:"verdict"`
	Score        float64     `json:"score"`  // 0–100, NaN when no metric was decided
	Reason       string      `json:"reason"` // the verdict in words
	Version      string      `json:"version"`
	By           string      `json:"by"` // how the canary's pods are known (pod-template hash, version label, ...)
	CanaryPods   []string    `json:"canary_pods"`
	Baseline     []string    `json:"baseline"` // the baseline groups
	BaselinePods []string    `json:"baseline_pods"`
	Start        ingest.Time `json:"start"` // the window [start, end)
	End          ingest.Time `json:"end"`
	ChosenBy     string      `json:"chosen_by"`
	Cells        int         `json:"cells"` // window cells where both groups report
	Metrics      []Metric    `json:"metrics"`
}

// Metric is one measurement of a canary workload: its canary pods against
// its baseline pods.
type Metric struct {
	Name      string  `json:"name"`   // the series family: metric{labels}, without the instance's labels
	Signal    string  `json:"signal"` // ingest signal kind
	Critical  bool    `json:"critical"`
	Direction int     `json:"direction"` // +1 up is worse, −1 down is worse
	Result    string  `json:"result"`    // pass, high, low, insufficient data
	Bad       bool    `json:"bad"`       // high or low in its bad direction
	Canary    float64 `json:"canary"`    // the canary's median over the compared cells
	Baseline  float64 `json:"baseline"`  // the baseline's
	Effect    float64 `json:"effect"`    // median difference / scale
	Ratio     float64 `json:"ratio"`     // canary / baseline (of the shortfall from 1 for a ratio that should stay near 1)
	Scale     float64 `json:"scale"`
	ScaleFrom string  `json:"scale_from"`
	Cells     int     `json:"cells"`
	Held      float64 `json:"held"` // share of cells beyond half the threshold on the effect's side
	Unit      string  `json:"unit"`
	Reason    string  `json:"reason"`
}
