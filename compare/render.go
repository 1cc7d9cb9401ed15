package compare

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// RenderOptions control presentation only.
type RenderOptions struct {
	// Width is the text format's line width in runes (default 100, at
	// least 60).
	Width int
}

// ErrUnknownFormat is returned (wrapped) by Render for a format not in Formats().
var ErrUnknownFormat = errors.New("unknown compare report format")

var renderers = reportfmt.Formats[*model.Report, RenderOptions]{
	{Name: "text", Render: renderText},
	{Name: "json", Render: renderJSON},
	{Name: "markdown", Render: renderMarkdown},
	{Name: "html", Render: renderHTML},
}

// Formats returns the names Render accepts, in a fixed order.
func Formats() []string { return renderers.Names() }

// Render writes r to w in format (one of Formats()). The output is a pure
// function of r, format and opt; every input-derived string is sanitized
// (and escaped for Markdown and HTML) exactly as the scorecard does.
func Render(w io.Writer, r *model.Report, format string, opt RenderOptions) error {
	if r == nil {
		return errors.New("render compare report: nil report")
	}
	if opt.Width == 0 {
		opt.Width = 100
	}
	opt.Width = max(opt.Width, 60)
	return renderers.Render(w, r, format, opt, "compare report", ErrUnknownFormat)
}

// textWriter is the terminal report's writer (render.Text) with the
// sections only before/after mode has.
type textWriter struct{ *render.Text }

// mdWriter is the Markdown writer (render.Markdown) with the sections only
// before/after mode has.
type mdWriter struct{ *render.Markdown }

// The shared presentation under the short names the change texts use.
var (
	value  = render.Value
	fmtDur = render.Duration
)

var clean = reportfmt.Sanitize

// sideText describes a side in one line.
func sideText(s model.SideInfo) string {
	parts := []string{render.Window(s.Start, s.End)}
	if s.ChosenBy != "" {
		parts = append(parts, clean(s.ChosenBy))
	}
	parts = append(parts, fmt.Sprintf("%d spans, %d series, %d target requests; data covers %s", s.Spans, s.Series, s.Requests, fmtDur(s.Covered)))
	return strings.Join(parts, " · ")
}

// settingsText is the thresholds in one line.
func settingsText(s model.Settings) string {
	return fmt.Sprintf("α %s (Benjamini–Hochberg over %d tests; two quiet windows report a change at most %s%% of the time) · |δ| ≥ %s · quantile, level and traffic ±%s%% · h ≥ %s · %sσ · "+
		"at least %d spans in %d cells, %d points · band of %d baseline windows (an episodic series: %d disjoint ones) · block bootstrap %d × %s cells (seed %d)",
		fix(s.Alpha, 3), s.Tests, fix(100*s.FalseAlarm, 1), fix(s.MinDelta, 2), fix(100*s.MinRatio, 0), fix(s.MinH, 2), fix(s.MinShift, 1),
		s.MinSamples, s.MinCells, s.MinPoints, s.BandWindows, s.SeriesWindows, s.Bootstrap, fmtDur(s.Cell), s.Seed)
}

func countsText(cs []model.Count) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %d", c.Verdict, c.N))
	}
	return strings.Join(parts, " · ")
}

// sha12 is a digest's display prefix, as the scorecard shows it.
var sha12 = reportfmt.ShortHash

// heatShade maps a heatmap cell to a text shade: blank no data, "·" within
// ±19% (|v| < 0.125), "-" / "=" faster, "+" / "#" slower (beyond ±2×).
func heatShade(v float64) rune {
	switch {
	case math.IsNaN(v):
		return ' '
	case v <= -0.5:
		return '='
	case v < -0.125:
		return '-'
	case v < 0.125:
		return '·'
	case v < 0.5:
		return '+'
	}
	return '#'
}

// heatLegend explains heatShade.
const heatLegend = "legend: = much faster (≤ ½×) · - faster · · about the same (±19%) · + slower · # much slower (≥ 2×); blank = no data"

// heatAxis describes the heatmap's columns.
func heatAxis(h model.Heatmap, cols int) string {
	return fmt.Sprintf("columns: %d slices of %s from the start of each window; a cell compares the slice's median latency, AFTER / BEFORE", cols, fmtDur(h.Slice))
}

// verdictRank orders verdicts for display emphasis.
func verdictClass(v model.Verdict) string {
	switch v {
	case model.Regressed:
		return "regressed"
	case model.Fixed:
		return "fixed"
	case model.Improved:
		return "improved"
	case model.Changed:
		return "changed"
	case model.Unchanged:
		return "unchanged"
	}
	return "insufficient"
}

// durationTicks returns up to 6 tick labels for an axis of cols slices.
func durationTicks(cols int, slice time.Duration) []string {
	out := make([]string, cols)
	every := max(1, (cols+5)/6)
	for j := 0; j < cols; j += every {
		out[j] = "+" + fmtDur(slice*time.Duration(j))
	}
	return out
}
