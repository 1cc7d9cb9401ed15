package reportview

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
)

// The request-shape section in every format. The grid is the shown
// metric's ratio (Compared: window ÷ baseline on the card, AFTER ÷ BEFORE
// in compare) per input × output bucket, with the
// margins; a cell is shaded only when its interval excludes 1 and the
// ratio is material (shape.Change.Slowed, Sped), "~" when a side has too
// few requests. The scorecard and compare render their maps with the same
// functions.

// defaultWidth is the text width when ShapeTextLines is given none: the
// card's and compare's default.
const defaultWidth = 100

// The shared conventions of package reportfmt, by their short local names.
var (
	sanitize = reportfmt.Sanitize
	md       = reportfmt.EscapeMarkdown
	wrap     = reportfmt.Wrap
)

// ShapeMark is a cell's glyph: ░ ▒ ▓ █ for slower by ×1.25, ×2, ×4, ×8
// (interval above 1), ◦ for faster, · for no clear change, ~ for too few.
func ShapeMark(c shape.Change) string {
	switch {
	case c.Few || math.IsNaN(c.Ratio):
		return "~"
	case c.Slowed(0.25):
		switch {
		case c.Ratio >= 8:
			return "█"
		case c.Ratio >= 4:
			return "▓"
		case c.Ratio >= 2:
			return "▒"
		}
		return "░"
	case c.Sped(0.25):
		return "◦"
	}
	return "·"
}

// shapeCellText is a cell in text: its glyph and ratio ("▒×2.1", "~").
func shapeCellText(c shape.Change) string {
	m := ShapeMark(c)
	if m == "~" {
		return "~"
	}
	return m + shape.Ratio(c.Ratio)
}

// ShapeLegend is the glyphs' key in words.
const ShapeLegend = "░ ×1.25+ ▒ ×2+ ▓ ×4+ █ ×8+ slower, ◦ faster (interval excludes 1), · no clear change, ~ too few requests a side"

// shapeTitle is the section's first line after its heading.
func shapeTitle(s *RequestShape) string {
	return fmt.Sprintf("%s p%g, %s, by input tokens (rows) × output tokens (columns)", metricOf(s.Metric).Label(), 100*s.Quantile, s.Compared)
}

// shapeFooter says how the intervals were computed.
func shapeFooter(s *RequestShape) string {
	return fmt.Sprintf("%.0f%% bootstrap intervals: %d replicates, seed %d; a cell is judged with at least %d requests a side", 100*s.Level, s.Bootstrap, s.Seed, s.MinCell)
}

// bearingText is one bearing in words.
func bearingText(b ShapeBearing) string {
	return sanitize(fmt.Sprintf("%s #%d %s (%s): %s", b.Bearing, b.Rank, b.Component, b.Signal, b.Why))
}

// ShapeTextLines renders the section as plain-text lines (no heading, no
// indent) within width runes: source, reading, the grid, the legend,
// bearings, notes, the intervals' seed. Prose wraps; the grid's columns
// narrow (to 6 runes) before they would overflow.
func ShapeTextLines(s *RequestShape, width int) []string {
	if width <= 0 {
		width = defaultWidth
	}
	var lines []string
	prose := func(text string) {
		lines = append(lines, wrap(sanitize(text), width)...)
	}
	prose("from " + s.Source)
	prose(s.Reading)
	prose(shapeTitle(s))
	rows, cols, cells := s.grid()
	lw := len("input\\output")
	for _, r := range rows {
		lw = max(lw, len([]rune(r)))
	}
	cw := 8
	if len(cols) > 0 {
		cw = max(6, min(8, (width-lw-2)/len(cols)))
	}
	pad := func(t string, n int) string {
		if k := n - len([]rune(t)); k > 0 {
			return t + strings.Repeat(" ", k)
		}
		return t
	}
	var sb strings.Builder
	sb.WriteString(pad("input\\output", lw+2))
	for _, c := range cols {
		sb.WriteString(pad(c, cw))
	}
	lines = append(lines, strings.TrimRight(sb.String(), " "))
	for i, r := range rows {
		sb.Reset()
		sb.WriteString(pad(r, lw+2))
		for _, c := range cells[i] {
			sb.WriteString(pad(shapeCellText(c), cw))
		}
		lines = append(lines, strings.TrimRight(sb.String(), " "))
	}
	prose(ShapeLegend)
	for _, b := range s.Bearings {
		prose(bearingText(b))
	}
	for _, n := range s.Notes {
		prose("note: " + n)
	}
	prose(shapeFooter(s))
	return lines
}

// ShapeMarkdown renders the section as Markdown (no heading): the reading
// in bold, the grid as a table, bearings as a list.
func ShapeMarkdown(s *RequestShape) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "**%s**\n\n", md(s.Reading))
	fmt.Fprintf(&sb, "From %s. %s:\n\n", md(s.Source), md(shapeTitle(s)))
	rows, cols, cells := s.grid()
	sb.WriteString("| input \\\\ output |")
	for _, c := range cols {
		sb.WriteString(" " + md(c) + " |")
	}
	sb.WriteString("\n|---|")
	sb.WriteString(strings.Repeat("---|", len(cols)))
	sb.WriteString("\n")
	for i, r := range rows {
		sb.WriteString("| " + md(r) + " |")
		for _, c := range cells[i] {
			sb.WriteString(" " + md(shapeCellText(c)) + " |")
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "\n%s\n", md(ShapeLegend))
	if len(s.Bearings) > 0 {
		sb.WriteString("\n")
		for _, b := range s.Bearings {
			fmt.Fprintf(&sb, "- %s\n", md(bearingText(b)))
		}
	}
	if len(s.Notes) > 0 {
		sb.WriteString("\n")
		for _, n := range s.Notes {
			fmt.Fprintf(&sb, "- note: %s\n", md(n))
		}
	}
	fmt.Fprintf(&sb, "\n%s\n", md(shapeFooter(s)))
	return sb.String()
}

// shapeFill is a cell's colour: red by how much slower, blue faster,
// white for no clear change, grey for too few.
func shapeFill(c shape.Change) string {
	switch {
	case c.Few || math.IsNaN(c.Ratio):
		return "#d0d7de"
	case c.Slowed(0.25):
		t := math.Min(math.Log2(c.Ratio)/3, 1) // ×8 is full red
		return fmt.Sprintf("rgb(255,%d,%d)", int(235-185*t), int(235-185*t))
	case c.Sped(0.25):
		t := math.Min(-math.Log2(c.Ratio)/3, 1)
		return fmt.Sprintf("rgb(%d,%d,255)", int(235-185*t), int(235-135*t))
	}
	return "#ffffff"
}

// ShapeHTML renders the section's body as HTML (no heading): the reading,
// an inline-SVG grid with a tooltip per cell (counts, quantiles, the
// interval), bearings and notes. Every string is sanitised and escaped.
func ShapeHTML(s *RequestShape) template.HTML {
	esc := func(x string) string { return template.HTMLEscapeString(sanitize(x)) }
	var sb strings.Builder
	fmt.Fprintf(&sb, "<p><strong>%s</strong></p>\n<p class=\"muted\">from %s · %s</p>\n", esc(s.Reading), esc(s.Source), esc(shapeTitle(s)))
	rows, cols, cells := s.grid()
	const cw, ch, lw, top = 64, 24, 96, 20
	w, h := lw+cw*len(cols)+8, top+ch*len(rows)+8
	fmt.Fprintf(&sb, "<svg class=\"shapemap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", w, h, w, h, esc(shapeTitle(s)))
	for j, c := range cols {
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", lw+cw*j+cw/2, top-6, esc(c))
	}
	metric := metricOf(s.Metric).Label()
	for i, r := range rows {
		y := top + ch*i
		fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", lw-6, y+ch/2+4, esc(r))
		for j, c := range cells[i] {
			x := lw + cw*j
			tip := fmt.Sprintf("%s × %s: %s %s → %s (%s, interval %s–%s), %d → %d requests", r, cols[j], metric,
				shape.Seconds(c.Base), shape.Seconds(c.Win), shape.Ratio(c.Ratio), shape.Ratio(c.Lo), shape.Ratio(c.Hi), c.BaseN, c.WinN)
			fmt.Fprintf(&sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#8c959f\"><title>%s</title></rect>", x, y, cw, ch, shapeFill(c), esc(tip))
			txt := shape.Ratio(c.Ratio)
			if c.Few || math.IsNaN(c.Ratio) {
				txt = "~"
			}
			fmt.Fprintf(&sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x+cw/2, y+ch/2+4, esc(txt))
		}
	}
	sb.WriteString("</svg>\n")
	fmt.Fprintf(&sb, "<p class=\"muted\">%s</p>\n", esc(ShapeLegend))
	if len(s.Bearings) > 0 {
		sb.WriteString("<ul>\n")
		for _, b := range s.Bearings {
			fmt.Fprintf(&sb, "<li>%s</li>\n", esc(bearingText(b)))
		}
		sb.WriteString("</ul>\n")
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&sb, "<p class=\"muted\">note: %s</p>\n", esc(n))
	}
	fmt.Fprintf(&sb, "<p class=\"muted\">%s</p>\n", esc(shapeFooter(s)))
	return template.HTML(sb.String())
}
