package scorecard

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// heatView is a heatmap prepared for display: rows stably ordered by depth,
// slices merged (by maximum) so that at most a given number of columns remain,
// and marker columns resolved. It is shared by all renderers so that they show
// the same picture.
type heatView struct {
	Rows   []HeatRow
	Cells  [][]float64 // len(Rows) × Cols; NaN = no data
	Cols   int
	Merge  int           // original slices per column (>= 1)
	Slice  time.Duration // width of one column (Merge × the heatmap's slice)
	Start  ingest.Time
	Onset  int // column of the onset marker, -1 when none or out of range
	Alert  int // column of the alert marker, -1 when none or out of range
	Slices int // original number of slices
}

// newHeatView prepares h for at most maxCols columns (maxCols <= 0: no limit).
// Rows with fewer cells than the widest row are padded with NaN.
func newHeatView(h Heatmap, maxCols int) heatView {
	slice := h.Slice
	if slice <= 0 {
		slice = DefaultSlice
	}
	n := 0
	for _, r := range h.Cells {
		n = max(n, len(r))
	}
	order := make([]int, len(h.Rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return h.Rows[order[a]].Depth < h.Rows[order[b]].Depth })
	merge := 1
	if maxCols > 0 && n > maxCols {
		merge = (n + maxCols - 1) / maxCols
	}
	cols := (n + merge - 1) / merge
	v := heatView{Cols: cols, Merge: merge, Slice: slice * time.Duration(merge), Start: h.Start, Slices: n}
	for _, i := range order {
		v.Rows = append(v.Rows, h.Rows[i])
		var src []float64
		if i < len(h.Cells) {
			src = h.Cells[i]
		}
		row := make([]float64, cols)
		for c := range row {
			m := math.NaN()
			for j := c * merge; j < (c+1)*merge && j < len(src); j++ {
				x := src[j]
				if math.IsNaN(x) {
					continue
				}
				if math.IsNaN(m) || x > m {
					m = x
				}
			}
			row[c] = m
		}
		v.Cells = append(v.Cells, row)
	}
	v.Onset = v.column(h.Onset)
	v.Alert = v.column(h.Alert)
	return v
}

// column is the display column containing t, or -1.
func (v heatView) column(t ingest.Time) int {
	if t == 0 || t < v.Start || v.Cols == 0 {
		return -1
	}
	c := int(t.Sub(v.Start) / v.Slice)
	if c >= v.Cols {
		return -1
	}
	return c
}

// End is the end of the last column.
func (v heatView) End() ingest.Time { return v.Start.Add(v.Slice * time.Duration(v.Cols)) }

// clamp01 bounds a cell value to 0..1 (NaN stays NaN).
func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// heatLevel maps a cell to one of 5 levels 0..4, or -1 for no data.
func heatLevel(x float64) int {
	if math.IsNaN(x) {
		return -1
	}
	return min(int(clamp01(x)*5), 4)
}

// heatShades are the text shades for levels 0..4; heatNoData marks NaN.
var heatShades = [5]rune{'·', '░', '▒', '▓', '█'}

const heatNoData = ' '

// heatANSI are 256-colour palette indexes for levels 0..4 (blue → red).
var heatANSI = [5]int{33, 117, 229, 208, 196}

// heatLegendText is the legend shared by the text and markdown heatmaps:
// what each shade means, in words (it never relies on colour).
func heatLegendText() string {
	step := HeatScaleZ / 5
	return fmt.Sprintf("one row per signal (the overview: per service, its most deviating signal); a cell is the slice's "+
		"deviation from the baseline in robust σ, in the bad direction only: %c under %.0fσ, %c %.0f–%.0fσ, %c %.0f–%.0fσ, "+
		"%c %.0f–%.0fσ, %c %.0fσ or more (the anomaly threshold is 3σ); blank: no data; ▼ the cause's onset, ! the alert; "+
		"%s marks the incident target",
		heatShades[0], step, heatShades[1], step, 2*step, heatShades[2], 2*step, 3*step, heatShades[3], 3*step, 4*step,
		heatShades[4], 4*step, targetMark)
}

// heatLegendHTML is the HTML heatmaps' legend: the scale in words.
func heatLegendHTML() string {
	return fmt.Sprintf("One row per signal (the overview: per service, its most deviating signal). A cell is the slice's deviation "+
		"from the baseline in robust σ, in the bad direction only, from blue (at the baseline) through pale yellow (%.0fσ) to red "+
		"(%.0fσ or more); the anomaly threshold is 3σ; grey: no data. Dashed lines mark the cause's onset and the alert; %s marks "+
		"the incident target", HeatScaleZ/2, HeatScaleZ, targetMark)
}

// heatHeaderText describes the time axis: "2025-… → 2025-…, 30s per column".
func heatAxisText(v heatView) string {
	s := fmt.Sprintf("time %s → %s, %s per column", fmtTime(v.Start), fmtTime(v.End()), v.Slice)
	if v.Merge > 1 {
		s += fmt.Sprintf(" (max of %d slices)", v.Merge)
	}
	return s
}

// timeDuration converts a column count for duration arithmetic.
func timeDuration(n int) time.Duration { return time.Duration(n) }
