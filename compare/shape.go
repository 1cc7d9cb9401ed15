package compare

import (
	"fmt"
	"html/template"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
)

// The request-shape map in before/after mode: the target's LLM requests of
// BEFORE's window against AFTER's, shape by shape (package shape), so that
// a fix is seen where it acted — long prompts back to their old TTFT, the
// short ones never moved. The section is the card's
// (reportview.RequestShape) with the sides named "AFTER ÷ BEFORE", and its
// reading is a count of the cells that moved; present only when both
// windows hold the same service's LLM request shapes.

// shapeChange maps the target's requests of BEFORE's window against
// AFTER's, with the comparison's seed; nil without LLM request shapes on
// both sides.
func shapeChange(before, after Side, opt Options) *reportview.RequestShape {
	src, ok := shape.FindSource(before.Bundle, opt.Target.Service, 1)
	if !ok {
		return nil
	}
	srcA, ok := src.In(after.Bundle)
	if !ok {
		return nil
	}
	base := src.Collect(before.Bundle, before.Start, before.End)
	win := srcA.Collect(after.Bundle, after.Start, after.End)
	m := shape.Between(&src, base, win, shape.Options{Seed: opt.Seed})
	if m == nil {
		return nil
	}
	s := reportview.NewRequestShape(m)
	s.Compared = "AFTER ÷ BEFORE"
	s.Reading = shapeSummary(m)
	return s
}

// shapeSummary counts the cells of the map's focus metric that moved: "TTFT
// p99 per shape: 4 cells faster, 0 slower, 6 without a clear change, 20
// with too few requests; every request ×0.31", then what slowed, if
// anything did (the map's reading of a slowdown).
func shapeSummary(m *shape.Map) string {
	k := m.Focus()
	faster, slower, same, few := 0, 0, 0, 0
	for _, row := range m.Cells {
		for _, c := range row {
			ch := c.Metrics[k]
			switch {
			case ch.BaseN+ch.WinN == 0:
			case ch.Few:
				few++
			case ch.Slowed(m.MinRatio):
				slower++
			case ch.Sped(m.MinRatio):
				faster++
			default:
				same++
			}
		}
	}
	s := fmt.Sprintf("%s p%g per shape: %d cells faster, %d slower, %d without a clear change, %d with too few requests; every request %s",
		k.Label(), 100*m.Quantile, faster, slower, same, few, shape.Ratio(m.All.Metrics[k].Ratio))
	switch m.Reading.Kind {
	case shape.KindPrefill, shape.KindDecode, shape.KindBoth, shape.KindEverything, shape.KindUnclear:
		s += "; AFTER is slower: " + m.Reading.Text
	}
	return s
}

// shapeText writes the section in text.
func (t *textWriter) shape(s *reportview.RequestShape) {
	if s == nil {
		return
	}
	t.Blank()
	t.Section("Request shape")
	for _, l := range reportview.ShapeTextLines(s, t.Width-2) {
		t.Line("  " + l)
	}
}

// shape writes the section in Markdown.
func (m *mdWriter) shape(s *reportview.RequestShape) {
	if s == nil {
		return
	}
	m.P("")
	m.P("### Request shape")
	m.P("")
	m.EW.Printf("%s\n", reportview.ShapeMarkdown(s))
}

// shapeHTML is the section's body in HTML ("" without one).
func shapeHTML(s *reportview.RequestShape) template.HTML {
	if s == nil {
		return ""
	}
	return reportview.ShapeHTML(s)
}
