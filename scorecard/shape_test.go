package scorecard

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/llmgen"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
)

// shapeMap is a request-shape map of generated requests whose long prompts
// slowed ×3 (llmgen), deterministic.
func shapeMap() *shape.Map {
	c := llmgen.Config{Scenario: llmgen.Prefill, Rate: 6}
	base, win := &shape.Sample{}, &shape.Sample{}
	for _, q := range llmgen.Requests(c) {
		s := base
		if !q.Start.Before(c.WindowStart()) {
			s = win
		}
		s.Add(int64(q.In), int64(q.Out), q.TTFT, q.TPOT, q.E2E)
	}
	m := shape.Build(base, win, shape.Options{Bootstrap: 400, Seed: 1})
	m.Service, m.Operation, m.Source = "gateway", "POST /v1/chat/completions", "spans of gateway POST /v1/chat/completions (gen_ai token counts)"
	return m
}

// shapeCard is the confident card with a request-shape section: the map
// above and what its reading says of each cause (shape.Reading.Bears).
func shapeCard() *Card {
	c := confidentCard()
	withShape(c)
	return c
}

// withShape adds the section to c.
func withShape(c *Card) {
	m := shapeMap()
	c.RequestShape = reportview.NewRequestShape(m)
	for _, cs := range c.Causes {
		sig, _ := ingest.ParseSignalKind(cs.Signal)
		if be, why := m.Reading.Bears(sig); be != shape.Neutral {
			c.RequestShape.Bearings = append(c.RequestShape.Bearings, reportview.ShapeBearing{Rank: cs.Rank, Component: causeComponent(cs), Signal: cs.Signal, Bearing: be.String(), Why: why})
		}
	}
}

func init() {
	goldenCases = append(goldenCases, struct {
		name string
		card func() *Card
	}{"shape", shapeCard})
}

// hostileShapeCard puts hostile strings wherever the section shows input.
func hostileShapeCard() *Card {
	c := hostileCard()
	withShape(c)
	s := c.RequestShape
	s.Service, s.Operation, s.Source, s.Reading = hostile, hostile, hostile, hostile
	s.Notes = append(s.Notes, hostile)
	s.Bearings = append(s.Bearings, reportview.ShapeBearing{Rank: 1, Component: hostile, Signal: hostile, Bearing: "supports", Why: hostile})
	return c
}

// TestShapeSection: the section in every format — the reading, a grid
// row per input bucket plus the margin, the bearings, the seed — and
// nothing of a hostile input escaping its context; text within the width.
func TestShapeSection(t *testing.T) {
	c := shapeCard()
	s := c.RequestShape
	if s.Kind != "prefill_bound" || s.SplitTokens != 4096 {
		t.Fatalf("the generated map reads %s at %d: %s", s.Kind, s.SplitTokens, s.Reading)
	}
	first := render(t, c, "text", RenderOptions{})
	// the reading may wrap under itself: compare word by word
	if !strings.Contains(strings.Join(strings.Fields(first), " "), "shapes "+strings.Join(strings.Fields(s.Reading), " ")) {
		t.Errorf("the first screen lacks the reading:\n%s", first)
	}
	text := render(t, c, "text", RenderOptions{Verbose: true})
	for _, want := range []string{"Request shape", s.Reading, "input\\output", "contradicts #1", "supports #2", "seed 1;"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if n := strings.Count(text, "\n  4k–16k "); n != 1 {
		t.Errorf("%d grid rows for 4k–16k", n)
	}
	mdOut := render(t, c, "markdown", RenderOptions{})
	if !strings.Contains(mdOut, "### Request shape") || !strings.Contains(mdOut, "| 4k–16k |") {
		t.Error("markdown lacks the section or its grid")
	}
	html := render(t, c, "html", RenderOptions{})
	if strings.Count(html, `<svg class="shapemap"`) != 1 || !strings.Contains(html, `id="request-shape"`) {
		t.Error("html lacks the section's SVG")
	}
	if strings.Contains(render(t, confidentCard(), "json", RenderOptions{}), "request_shape") {
		t.Error("a card without the section has a request_shape key")
	}
	h := hostileShapeCard()
	cols := len(s.OutputBuckets) + 2
	reporttest.CheckMarkdown(t, render(t, h, "markdown", RenderOptions{}), 2, 5, 6, 9, cols)
	reporttest.CheckHTML(t, render(t, h, "html", RenderOptions{}))
	for _, width := range []int{0, 60} {
		for i, l := range strings.Split(render(t, h, "text", RenderOptions{Width: width, Verbose: true}), "\n") {
			if strings.Contains(l, "\x1b") || strings.ContainsRune(l, '\u202E') {
				t.Errorf("width %d, line %d not sanitised: %q", width, i+1, l)
			}
		}
	}
}
