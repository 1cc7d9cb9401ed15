package reportview

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/shape"
)

// RequestShape is the request-shape section of the card and of compare's
// before/after report: the target's tail latency by request shape (input ×
// output tokens) over the baseline and the window (BEFORE and AFTER in
// compare), the one-line reading of which shapes slowed, and, on the card,
// what that reading says of the causes by the rule of physics of their
// kinds of signal. Present only for a target that is an LLM latency whose
// requests carry their shapes (package shape); absent (JSON: no key)
// otherwise.
type RequestShape struct {
	Service   string `json:"service"`
	Operation string `json:"operation"` // the spans' operation ("" from histograms)
	Source    string `json:"source"`    // where the shapes come from, in words
	// FromHistograms: each pod's step at its mean request shape, not each
	// request (no span carried token counts).
	FromHistograms bool   `json:"from_histograms"`
	Reading        string `json:"reading"` // the one line
	// Compared names the two sides of every ratio: "window ÷ baseline" on
	// the card, "AFTER ÷ BEFORE" in compare.
	Compared string `json:"compared"`
	// Kind is the reading: unknown, unchanged, prefill_bound, decode_bound,
	// prefill_and_decode_bound, everything_slowed or unclear.
	Kind string `json:"kind"`
	// SplitTokens and SplitAxis separate the shapes that slowed from those
	// that did not (0 and "" when none does).
	SplitTokens int64  `json:"split_tokens"`
	SplitAxis   string `json:"split_axis"`
	// Metric is the one the grid shows (ttft, tpot or e2e): the one the
	// reading is about.
	Metric    string  `json:"metric"`
	Quantile  float64 `json:"quantile"`
	Level     float64 `json:"level"`     // the intervals' confidence
	Bootstrap int     `json:"bootstrap"` // replicates per interval
	Seed      uint64  `json:"seed"`
	MinCell   int     `json:"min_cell"` // fewest requests a side for a cell's ratio
	// InputBuckets and OutputBuckets label the grid's rows and columns.
	InputBuckets  []string `json:"input_buckets"`
	OutputBuckets []string `json:"output_buckets"`
	// Cells is the grid, row by row (InputBuckets × OutputBuckets);
	// InputMargin and OutputMargin the merged rows and columns; All every
	// request.
	Cells        []ShapeCell    `json:"cells"`
	InputMargin  []ShapeCell    `json:"input_margin"`
	OutputMargin []ShapeCell    `json:"output_margin"`
	All          ShapeCell      `json:"all"`
	Bearings     []ShapeBearing `json:"bearings"`
	Notes        []string       `json:"notes"`
}

// ShapeCell is one input × output bucket (a margin: one of them "all"):
// each metric's quantile over the baseline and the window, the counts,
// and the ratio with its interval (null where unknown or too few).
type ShapeCell struct {
	Input  string `json:"input_tokens"` // the bucket's label, e.g. "1k–4k"
	Output string `json:"output_tokens"`
	// The buckets' bounds in tokens, [lo, hi); hi −1: no upper bound.
	InputLo  int64        `json:"input_lo"`
	InputHi  int64        `json:"input_hi"`
	OutputLo int64        `json:"output_lo"`
	OutputHi int64        `json:"output_hi"`
	TTFT     shape.Change `json:"ttft"`
	TPOT     shape.Change `json:"tpot"`
	E2E      shape.Change `json:"e2e"`
}

// change is the cell's change of metric k.
func (c ShapeCell) change(k shape.Metric) shape.Change {
	switch k {
	case shape.TTFT:
		return c.TTFT
	case shape.TPOT:
		return c.TPOT
	}
	return c.E2E
}

// ShapeBearing is what the reading says of one shown cause.
type ShapeBearing struct {
	Rank      int    `json:"rank"`
	Component string `json:"component"`
	Signal    string `json:"signal"`
	Bearing   string `json:"bearing"` // supports or contradicts
	Why       string `json:"why"`
}

// NewRequestShape turns a map into the section, its sides named "window ÷
// baseline" and without bearings (the scorecard adds them from the
// evidence; compare renames the sides and rewrites the reading); nil for a
// nil map.
func NewRequestShape(m *shape.Map) *RequestShape {
	if m == nil {
		return nil
	}
	r := m.Reading
	s := &RequestShape{Service: m.Service, Operation: m.Operation, Source: m.Source, FromHistograms: m.FromHistograms,
		Reading: r.Text, Compared: "window ÷ baseline", Kind: r.Kind.String(), SplitTokens: r.Split, SplitAxis: r.Axis, Metric: m.Focus().String(),
		Quantile: m.Quantile, Level: m.Level, Bootstrap: m.Bootstrap, Seed: m.Seed, MinCell: m.MinCell,
		Notes: append([]string{}, m.Notes...), Bearings: []ShapeBearing{}}
	cell := func(c shape.Cell) ShapeCell {
		return ShapeCell{Input: c.Input.String(), Output: c.Output.String(), InputLo: c.Input.Lo, InputHi: c.Input.Hi, OutputLo: c.Output.Lo, OutputHi: c.Output.Hi,
			TTFT: c.Metrics[shape.TTFT], TPOT: c.Metrics[shape.TPOT], E2E: c.Metrics[shape.E2E]}
	}
	for _, b := range m.Inputs {
		s.InputBuckets = append(s.InputBuckets, b.String())
	}
	for _, b := range m.Outputs {
		s.OutputBuckets = append(s.OutputBuckets, b.String())
	}
	for _, row := range m.Cells {
		for _, c := range row {
			s.Cells = append(s.Cells, cell(c))
		}
	}
	for _, c := range m.InputMargin {
		s.InputMargin = append(s.InputMargin, cell(c))
	}
	for _, c := range m.OutputMargin {
		s.OutputMargin = append(s.OutputMargin, cell(c))
	}
	s.All = cell(m.All)
	return s
}

// grid is the section's cells of the shown metric, row by row, with the
// margins: rows InputBuckets then "all", columns OutputBuckets then "all".
func (s *RequestShape) grid() (rows, cols []string, cells [][]shape.Change) {
	k := metricOf(s.Metric)
	rows = append(append([]string{}, s.InputBuckets...), "all")
	cols = append(append([]string{}, s.OutputBuckets...), "all")
	nc := len(s.OutputBuckets)
	var last []shape.Change
	for i := range s.InputBuckets {
		var row []shape.Change
		for j := range nc {
			if at := i*nc + j; at < len(s.Cells) {
				c := s.Cells[at]
				row = append(row, c.change(k))
				if i == 0 {
					last = append(last, marginChange(s.OutputMargin, c.OutputLo, c.OutputHi, false, k))
				}
			}
		}
		if len(row) > 0 {
			c := s.Cells[i*nc]
			row = append(row, marginChange(s.InputMargin, c.InputLo, c.InputHi, true, k))
		}
		cells = append(cells, row)
	}
	cells = append(cells, append(last, s.All.change(k)))
	return rows, cols, cells
}

// marginChange finds the merged margin cell that holds the bucket
// [lo, hi) (hi < 0: open); a bucket merged into a neighbour shows the
// merged cell's change.
func marginChange(ms []ShapeCell, lo, hi int64, input bool, k shape.Metric) shape.Change {
	for _, c := range ms {
		mlo, mhi := c.OutputLo, c.OutputHi
		if input {
			mlo, mhi = c.InputLo, c.InputHi
		}
		if lo >= mlo && (mhi < 0 || hi >= 0 && hi <= mhi) {
			return c.change(k)
		}
	}
	return shape.Change{Base: math.NaN(), Win: math.NaN(), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Few: true}
}

// metricOf parses a metric name.
func metricOf(name string) shape.Metric {
	for _, k := range shape.Metrics() {
		if k.String() == name {
			return k
		}
	}
	return shape.E2E
}
