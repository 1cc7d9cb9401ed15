package scorecard

import (
	"fmt"
	"os"
	"os/exec"
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
		{"overview and three heatmap svgs", len(regexp.MustCompile(`<svg[^>]*class="heatmap"`).FindAllStringIndex(dom, -1)) == 4},
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

// TestScreenshots renders the confident card as HTML and as Markdown
// (rendered by Debian's cmark-gfm, as GitHub renders a ticket, to HTML with
// a plain GitHub-like style) and saves a Chromium screenshot of each to
// $ARTIFACTS_DIR (scorecard-confident.png, scorecard-markdown.png) for a
// person to look at. The Markdown page must hold real tables (no empty
// header row), the folded <details> and the heatmap block with its legend
// in words.
func TestScreenshots(t *testing.T) {
	reporttest.SkipWithoutChromium(t)
	dir := t.TempDir()
	card := confidentCard()
	for i := 0; i < 14; i++ { // enough inputs to fold their table
		card.Inputs = append(card.Inputs, InputRow{Path: fmt.Sprintf("metrics/series-%02d.json", i), Format: "prometheus-query-range",
			SHA256: strings.Repeat(fmt.Sprintf("%x", i%16), 64), Size: int64(1000 + i), Series: 3, Points: 120})
	}
	page := filepath.Join(dir, "confident.html")
	if err := os.WriteFile(page, []byte(render(t, card, "html", RenderOptions{TraceURL: "http://jaeger:16686"})), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "confident.png")
	reporttest.Chromium(t, filepath.Join(dir, "profile-html"), "--hide-scrollbars", "--screenshot="+shot, "--window-size=1280,2400", "file://"+page)
	reporttest.CheckScreenshot(t, shot, 1280, 2400, 50_000, "scorecard-confident.png")

	cmark, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm not installed (apt-get install -y cmark-gfm): no Markdown screenshot")
	}
	mdText := render(t, card, "markdown", RenderOptions{TraceURL: "http://jaeger:16686"})
	cmd := exec.Command(cmark, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough", "-t", "html")
	cmd.Stdin = strings.NewReader(mdText)
	body, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	html := string(body)
	for _, want := range []string{"<table>", "<details><summary>", "<pre><code class=\"language-text\">", "8σ or more", `<a href="http://jaeger:16686/trace/`} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered Markdown lacks %q", want)
		}
	}
	if regexp.MustCompile(`<thead>\s*<tr>\s*<th></th>\s*<th></th>`).MatchString(html) {
		t.Error("rendered Markdown has an empty header row")
	}
	mdPage := filepath.Join(dir, "markdown.html")
	const style = `<style>body{font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:980px;margin:24px auto;color:#1f2328}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:4px 10px}pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px;line-height:1.25}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}</style>`
	if err := os.WriteFile(mdPage, []byte("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"+style+"</head><body>"+html+"</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	mdShot := filepath.Join(dir, "markdown.png")
	reporttest.Chromium(t, filepath.Join(dir, "profile-md"), "--hide-scrollbars", "--screenshot="+mdShot, "--window-size=1280,3000", "file://"+mdPage)
	reporttest.CheckScreenshot(t, mdShot, 1280, 3000, 50_000, "scorecard-markdown.png")
}
