package scorecard

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// TestMarkdownHostile renders a card whose every input string is hostile and
// checks nothing escapes its Markdown context (the tables this renderer
// writes have 2, 5, 6 or 9 columns).
func TestMarkdownHostile(t *testing.T) {
	reporttest.CheckMarkdown(t, render(t, hostileCard(), "markdown", RenderOptions{}), 2, 5, 6, 7, 9)
	t.Run("fence not broken by backticks", func(t *testing.T) {
		body := "a ```` b"
		if f := mdFence(body); f != "`````" {
			t.Errorf("mdFence = %q", f)
		}
	})
}

// TestHTMLHostile checks html/template escaping and the self-contained page.
func TestHTMLHostile(t *testing.T) {
	out := render(t, hostileCard(), "html", RenderOptions{})
	reporttest.CheckHTML(t, out)
	t.Run("overview and three heatmaps", func(t *testing.T) {
		if n := strings.Count(out, `<svg class="heatmap"`); n != 4 {
			t.Errorf("%d heatmaps", n)
		}
	})
	t.Run("one graph", func(t *testing.T) {
		if n := strings.Count(out, `<svg class="graph"`); n != 1 {
			t.Errorf("%d graphs", n)
		}
	})
}
