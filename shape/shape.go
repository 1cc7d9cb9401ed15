package shape

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Metric is one of the token latencies a map compares.
type Metric uint8

// The metrics, in the order of Change arrays.
const (
	TTFT Metric = iota // time to first token
	TPOT               // time per output token
	E2E                // the request's end-to-end latency
	numMetrics
)

var metricNames = [numMetrics]string{"ttft", "tpot", "e2e"}

// String is the metric's short name: "ttft", "tpot" or "e2e".
func (m Metric) String() string {
	if m < numMetrics {
		return metricNames[m]
	}
	return fmt.Sprintf("metric(%d)", m)
}

// Label is the metric's name in a sentence: "TTFT", "TPOT" or "e2e".
func (m Metric) Label() string {
	switch m {
	case TTFT:
		return "TTFT"
	case TPOT:
		return "TPOT"
	}
	return "e2e"
}

// Metrics are the metrics in their order.
func Metrics() []Metric { return []Metric{TTFT, TPOT, E2E} }

// Bucket is a range of token counts [Lo, Hi); Hi < 0 is open-ended.
type Bucket struct {
	Lo int64 `json:"lo"`
	Hi int64 `json:"hi"` // -1: no upper bound
}

// String renders the bucket as "<64", "1k–4k" or "≥16k".
func (b Bucket) String() string {
	switch {
	case b.Lo <= 0 && b.Hi < 0:
		return "all"
	case b.Lo <= 0:
		return "<" + Tokens(b.Hi)
	case b.Hi < 0:
		return "≥" + Tokens(b.Lo)
	}
	return Tokens(b.Lo) + "–" + Tokens(b.Hi)
}

// contains reports whether n tokens fall in the bucket.
func (b Bucket) contains(n float64) bool {
	return n >= float64(b.Lo) && (b.Hi < 0 || n < float64(b.Hi))
}

// Tokens renders a token count compactly: 512, 4k, 1.5k, 64k, 1M.
func Tokens(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1024 && n%1024 == 0:
		return fmt.Sprintf("%dk", n/1024)
	case n >= 1024 && n%512 == 0:
		return fmt.Sprintf("%.1fk", float64(n)/1024)
	}
	return fmt.Sprintf("%d", n)
}

// buckets turns ascending edges into buckets: [0,e0), [e0,e1), ..., [eN,∞).
func buckets(edges []int64) []Bucket {
	out := make([]Bucket, 0, len(edges)+1)
	lo := int64(0)
	for _, e := range edges {
		out = append(out, Bucket{lo, e})
		lo = e
	}
	return append(out, Bucket{lo, -1})
}

// Change is one metric's quantile over the baseline's and the window's
// requests of a cell, and their ratio with a bootstrap percentile interval.
// Unknown numbers are NaN (JSON null).
type Change struct {
	BaseN int     `json:"base_n"` // requests (or, from histograms, requests counted) in the baseline
	WinN  int     `json:"win_n"`
	Base  float64 `json:"base_seconds"` // the quantile, seconds
	Win   float64 `json:"win_seconds"`
	Ratio float64 `json:"ratio"` // Win/Base
	Lo    float64 `json:"ratio_lo"`
	Hi    float64 `json:"ratio_hi"`
	// Few is set when a side has fewer requests than Options.MinCell: the
	// quantiles are shown, the ratio is not judged (Ratio, Lo, Hi NaN).
	Few bool `json:"few"`
}

// Slowed reports a ratio at least 1+min whose interval lies above 1.
func (c Change) Slowed(min float64) bool {
	return !c.Few && c.Ratio >= 1+min && c.Lo > 1
}

// Sped reports a ratio at most 1/(1+min) whose interval lies below 1.
func (c Change) Sped(min float64) bool {
	return !c.Few && c.Ratio <= 1/(1+min) && c.Hi < 1
}

// Cell is one input × output bucket of the map (or a merged margin: one
// input bucket over every output, or the other way round).
type Cell struct {
	Input   Bucket             `json:"input_tokens"`
	Output  Bucket             `json:"output_tokens"`
	Metrics [numMetrics]Change `json:"-"`
}

// Map is the tail latency by request shape of one service's LLM requests:
// a grid of input × output token buckets (log-spaced), each cell the
// Options.Quantile (p99) and count of TTFT, TPOT and e2e latency over the
// baseline and the window, their ratio with an interval; the margins (each
// input bucket over every output and the other way round, sparse extreme
// buckets merged into their neighbours); and the one-line Reading of which
// shapes slowed. It is plain data: renderers read it as it is.
type Map struct {
	// Service is the service whose requests are mapped; Operation the
	// operation of its spans that carries the token counts ("" from
	// histograms).
	Service, Operation string
	// Source says where the shapes come from, in words.
	Source string
	// FromHistograms is set when there were no spans with token counts and
	// the map comes from request-size and latency histograms: each pod's
	// step at its mean request shape, not each request.
	FromHistograms bool
	Quantile       float64 // 0.99
	Level          float64 // the intervals' confidence, 0.95
	Bootstrap      int     // replicates
	Seed           uint64
	MinCell        int     // fewest requests a side for a cell's ratio
	MinRatio       float64 // the material change of the reading
	// Known says which metrics the requests carry at all.
	Known [numMetrics]bool
	// Inputs and Outputs are the grid's buckets (rows and columns), the
	// empty ones at either end trimmed; Cells[i][j] is Inputs[i] ×
	// Outputs[j].
	Inputs, Outputs []Bucket
	Cells           [][]Cell
	// InputMargin and OutputMargin are the merged rows and columns; All is
	// every request.
	InputMargin, OutputMargin []Cell
	All                       Cell
	Reading                   Reading
	// Notes are caveats in words (few requests, merged buckets, the
	// histogram approximation).
	Notes []string
}

// Sparse counts the cells with requests on either side that have too few
// to judge, and the cells with requests at all.
func (m *Map) Sparse() (few, used int) {
	for _, row := range m.Cells {
		for _, c := range row {
			ch := c.Metrics[E2E]
			if ch.BaseN+ch.WinN == 0 {
				continue
			}
			used++
			if ch.Few {
				few++
			}
		}
	}
	return few, used
}

// Focus is the metric the reading is about, the one a heatmap shows: TTFT
// for a prefill-bound or everything-slowed reading, for a decode-bound one
// the metric that slowed (e2e along the output axis, else TPOT); the first
// known metric otherwise.
func (m *Map) Focus() Metric {
	want := TTFT
	if m.Reading.Kind == KindDecode {
		want = m.Reading.Metric
	}
	if m.Known[want] {
		return want
	}
	for _, k := range Metrics() {
		if m.Known[k] {
			return k
		}
	}
	return E2E
}

// Ratio formats a ratio as "×3.1" ("×0.82" under 1, "~" for NaN).
func Ratio(r float64) string {
	switch {
	case math.IsNaN(r):
		return "~"
	case r >= 9.95:
		return fmt.Sprintf("×%.0f", r)
	case r >= 0.995:
		return fmt.Sprintf("×%.1f", r)
	}
	return fmt.Sprintf("×%.2f", r)
}

// Seconds formats a latency at fixed precision by magnitude ("~" for NaN).
func Seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "~"
	case s >= 10:
		return fmt.Sprintf("%.0fs", s)
	case s >= 1:
		return fmt.Sprintf("%.2fs", s)
	case s >= 0.001:
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return fmt.Sprintf("%.0fµs", s*1e6)
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}
