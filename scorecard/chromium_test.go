package scorecard

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// TestHTMLChromium loads the hostile card's HTML in headless Chromium: the DOM
// must hold three heatmap SVGs and the propagation graph, no script element,
// the hostile string as text, no console errors or CSP violations; and the
// screenshot must be a real 1280×2000 PNG, copied to $ARTIFACTS_DIR.
func TestHTMLChromium(t *testing.T) {
	reporttest.SkipWithoutChromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "scorecard.html")
	if err := os.WriteFile(page, []byte(render(t, hostileCard(), "html", RenderOptions{})), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	dom, logs := reporttest.Chromium(t, filepath.Join(dir, "profile-dom"), "--enable-logging=stderr", "--v=0", "--dump-dom", url)
	checks := []struct {
		name string
		ok   bool
	}{
		{"three heatmap svgs", len(regexp.MustCompile(`<svg[^>]*class="heatmap"`).FindAllStringIndex(dom, -1)) == 3},
		{"one graph svg", len(regexp.MustCompile(`<svg[^>]*class="graph"`).FindAllStringIndex(dom, -1)) == 1},
		{"no script element", !strings.Contains(strings.ToLower(dom), "<script")},
		{"hostile string as text", strings.Contains(dom, reporttest.EscapedScript)},
		{"verdict rendered", strings.Contains(dom, `class="verdict confident"`)},
		{"no console messages or CSP violations", reporttest.ConsoleProblems(logs) == ""},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("failed; chromium log:\n%s", logs)
			}
		})
	}

	// The detector itself must see what a broken page logs.
	t.Run("detector catches a CSP violation", func(t *testing.T) { reporttest.CheckDetector(t, dir) })

	shot := filepath.Join(dir, "scorecard.png")
	reporttest.Chromium(t, filepath.Join(dir, "profile-shot"), "--hide-scrollbars", "--screenshot="+shot, "--window-size=1280,2000", url)
	t.Run("screenshot", func(t *testing.T) {
		// A blank page compresses to a few KiB; the scorecard has text, tables and colour.
		reporttest.CheckScreenshot(t, shot, 1280, 2000, 50_000, "scorecard-hostile.png")
	})
}
