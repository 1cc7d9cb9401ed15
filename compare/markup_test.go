package compare

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

const hostile = reporttest.Hostile

// hostileReport puts the hostile string into every input-derived field a
// renderer shows: service, operation and pod names (through the spans and
// series), the target, a cause, the inputs, a warning and the arguments.
func hostileReport(tb testing.TB) *model.Report {
	tb.Helper()
	inc := defaultSynth()
	inc.faultAt = 22
	inc.backend, inc.opPrefix = hostile, hostile
	fixed := inc
	fixed.faultAt = -1
	bi, bf := inc.build(tb), fixed.build(tb)
	for _, b := range []*ingest.Bundle{bi, bf} {
		b.Inputs[0].Path = hostile
		b.Warn(errors.New(hostile), hostile, 2, "%s", hostile)
	}
	opt := DefaultOptions()
	opt.Target = tcg.Target{Service: hostile, Signal: ingest.SignalLatency}
	opt.TargetChosenBy = hostile
	opt.Causes = []Cause{{Rank: 1, Service: hostile, Component: hostile, ComponentKind: "service", Signal: "latency"}}
	opt.CausesFrom = hostile
	opt.Version = hostile
	opt.Args = []string{hostile, "before/", "after/"}
	rep, err := Run(Side{Bundle: bi, Start: at(21), End: at(26), ChosenBy: hostile, Paths: []string{hostile}},
		Side{Bundle: bf, Start: at(25), End: at(30), ChosenBy: hostile, Paths: []string{hostile}}, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// TestMarkdownHostile runs the scorecard's Markdown escaping checks on the
// comparison's Markdown (its tables have 2, 3, 4 or 5 columns).
func TestMarkdownHostile(t *testing.T) {
	rep := hostileReport(t)
	if len(rep.Regressions)+len(rep.Improvements) == 0 {
		t.Fatal("the hostile report lists nothing: the test would check little")
	}
	reporttest.CheckMarkdown(t, renderFormat(t, rep, "markdown"), 2, 3, 4, 5)
}

// TestHTMLHostile runs the scorecard's HTML checks and counts the figures.
func TestHTMLHostile(t *testing.T) {
	rep := hostileReport(t)
	out := renderFormat(t, rep, "html")
	reporttest.CheckHTML(t, out)
	if n := strings.Count(out, `<svg class="ecdf"`); n != len(rep.Plots) || n == 0 {
		t.Errorf("%d distribution plots, want %d (> 0)", n, len(rep.Plots))
	}
	if n := strings.Count(out, `<svg class="heatmap"`); n != 1 {
		t.Errorf("%d heatmaps, want 1", n)
	}
}

// TestTextHostile checks the terminal report carries no escape or bidi
// control and no raw line break from input.
func TestTextHostile(t *testing.T) {
	out := renderFormat(t, hostileReport(t), "text")
	for _, bad := range []string{"\x1b", "\u202E", "</script>\nnext"} {
		if strings.Contains(out, bad) {
			t.Errorf("text output contains %q", bad)
		}
	}
}

// TestHTMLChromium loads the hostile report's page in headless Chromium:
// the DOM must hold the distribution plots and the heatmap, no script, the
// hostile string as text, no console errors or CSP violations; the
// screenshot must be a real 1280×2400 PNG with content, saved to
// $ARTIFACTS_DIR as compare-hostile.png (and the fixed demo's page as
// compare-fixed.png).
func TestHTMLChromium(t *testing.T) {
	reporttest.SkipWithoutChromium(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		rep  *model.Report
	}{{"hostile", hostileReport(t)}, {"fixed", fixedReport(t)}} {
		t.Run(c.name, func(t *testing.T) {
			page := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(page, []byte(renderFormat(t, c.rep, "html")), 0o644); err != nil {
				t.Fatal(err)
			}
			url := "file://" + page
			dom, logs := reporttest.Chromium(t, filepath.Join(dir, "profile-dom-"+c.name), "--enable-logging=stderr", "--v=0", "--dump-dom", url)
			checks := []struct {
				name string
				ok   bool
			}{
				{"distribution plots", len(regexp.MustCompile(`<svg[^>]*class="ecdf"`).FindAllStringIndex(dom, -1)) == len(c.rep.Plots) && len(c.rep.Plots) > 0},
				{"two step lines per plot", strings.Count(dom, `<polyline class="before"`) == len(c.rep.Plots) && strings.Count(dom, `<polyline class="after"`) == len(c.rep.Plots)},
				{"one heatmap", len(regexp.MustCompile(`<svg[^>]*class="heatmap"`).FindAllStringIndex(dom, -1)) == 1},
				{"no script element", !strings.Contains(strings.ToLower(dom), "<script")},
				{"verdict rendered", strings.Contains(dom, `id="verdict"`) && strings.Contains(dom, "v-"+verdictClass(c.rep.Verdict.Verdict))},
				{"no console messages or CSP violations", reporttest.ConsoleProblems(logs) == ""},
			}
			if c.name == "hostile" {
				checks = append(checks, struct {
					name string
					ok   bool
				}{"hostile string as text", strings.Contains(dom, reporttest.EscapedScript)})
			}
			for _, ch := range checks {
				t.Run(ch.name, func(t *testing.T) {
					if !ch.ok {
						t.Errorf("failed; chromium log:\n%s", logs)
					}
				})
			}
			shot := filepath.Join(dir, c.name+".png")
			reporttest.Chromium(t, filepath.Join(dir, "profile-shot-"+c.name), "--hide-scrollbars", "--screenshot="+shot, "--window-size=1280,2400", url)
			t.Run("screenshot", func(t *testing.T) {
				reporttest.CheckScreenshot(t, shot, 1280, 2400, 50_000, "compare-"+c.name+".png")
			})
		})
	}
	t.Run("detector catches a CSP violation", func(t *testing.T) { reporttest.CheckDetector(t, dir) })
}
