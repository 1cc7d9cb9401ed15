package scorecard

import (
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

// The card's request-shape section: the section itself, its grid and its
// renderings are package reportview's, which compare shares; the card adds
// the bearings of the causes it shows and writes the section in its
// formats.

// buildShape is the card's section from the evidence: the map and the
// bearings of the causes the card shows.
func buildShape(ev *evidence.Set, causes []Cause) *reportview.RequestShape {
	if ev == nil || ev.Shape == nil {
		return nil
	}
	s := reportview.NewRequestShape(ev.Shape.Map)
	for _, b := range ev.Shape.Bearings {
		if b.Cause >= len(causes) {
			continue
		}
		c := causes[b.Cause]
		s.Bearings = append(s.Bearings, reportview.ShapeBearing{Rank: c.Rank, Component: causeComponent(c), Signal: c.Signal, Bearing: b.Bearing.String(), Why: b.Why})
	}
	return s
}

// shapeBrief is the first screen's line of the request-shape reading (the
// map itself is among the details, -v).
func (t *textWriter) shapeBrief(c *Card) {
	if c.RequestShape == nil {
		return
	}
	t.kv("shapes", sanitize(c.RequestShape.Reading)+" (the map: -v)")
}

// shape writes the text section.
func (t *textWriter) shape(c *Card) {
	if c.RequestShape == nil {
		return
	}
	t.section("Request shape")
	w := t.width
	if w <= 0 {
		w = DefaultWidth
	}
	for i, l := range reportview.ShapeTextLines(c.RequestShape, w-2) {
		if i == 1 {
			l = t.paint(ansiBold, l)
		}
		t.line("  " + l)
	}
}

// shape writes the Markdown section.
func (m *mdWriter) shape(c *Card) {
	if c.RequestShape == nil {
		return
	}
	m.p("\n### Request shape\n")
	m.ew.Printf("%s", reportview.ShapeMarkdown(c.RequestShape))
}
