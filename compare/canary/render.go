package canary

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// maxMetricsShown bounds the metrics listed per workload in text and
// Markdown (bad ones first; the JSON has them all).
const maxMetricsShown = 12

// maxPassShown bounds the metrics that passed listed per workload.
const maxPassShown = 3

// canaryToolLine is "pipeline-analyze 0.1.0 · compare --canary · schema 1".
func canaryToolLine(r *model.Report) string {
	return strings.Replace(render.ToolLine(r), "· compare ·", "· compare --canary ·", 1)
}

// canarySettingsText is the canary thresholds in one line.
func canarySettingsText(s model.CanarySettings) string {
	return fmt.Sprintf("high or low: the canary's median difference ≥ %s scales of how far one baseline pod strays from the others, "+
		"held in ≥ %s%% of the cells, a ≥ %s%% change · at least %d cells of %s with both groups · warm-up %s · "+
		"score = mean over signals of the share of metrics not worse; pass ≥ %s, marginal ≥ %s; critical: %s",
		reportfmt.FormatFixed(s.Threshold, 1), reportfmt.FormatFixed(100*s.Hold, 0), reportfmt.FormatFixed(100*s.MinRatio/(1+s.MinRatio), 0), s.MinCells, render.Duration(s.Step),
		render.Duration(s.Warmup), reportfmt.FormatFixed(s.Pass, 0), reportfmt.FormatFixed(s.Marginal, 0), strings.Join(s.Critical, ", "))
}

// workloadHead is "FAIL  adservice-v2-… (adservice) score 80".
func workloadHead(w model.CanaryWorkload) string {
	s := strings.ToUpper(w.Verdict) + "  " + reportfmt.Sanitize(w.Workload) + " (" + reportfmt.Sanitize(w.Service) + ")"
	if !math.IsNaN(w.Score) {
		s += " · score " + reportfmt.FormatFixed(w.Score, 0)
	}
	return s
}

// workloadGroups is "canary: 1 pod of cart-7c9b45d8f (version v2, by
// pod-template hash); baseline: 3 pods of cart-5d8f7c9b4 (version v1)".
func workloadGroups(w model.CanaryWorkload) string {
	by := "by " + reportfmt.Sanitize(w.By)
	if w.Version != "" && !strings.Contains(w.Workload, w.Version) {
		by = "version " + reportfmt.Sanitize(w.Version) + ", " + by
	}
	base := reportfmt.Sanitize(strings.Join(w.Baseline, ", "))
	if base == "" {
		return fmt.Sprintf("canary: %s of %s (%s); no baseline pods", podCount(len(w.CanaryPods)), reportfmt.Sanitize(w.Workload), by)
	}
	return fmt.Sprintf("canary: %s of %s (%s); baseline: %s of %s", podCount(len(w.CanaryPods)), reportfmt.Sanitize(w.Workload), by, podCount(len(w.BaselinePods)), base)
}

func podCount(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// workloadWindow is the window line.
func workloadWindow(w model.CanaryWorkload) string {
	return fmt.Sprintf("%s · %s · %d cells with both groups", render.Window(w.Start, w.End), reportfmt.Sanitize(w.ChosenBy), w.Cells)
}

// metricResult is "high ✗" for a bad result, the result otherwise.
func metricResult(m model.Metric) string {
	if m.Bad {
		return m.Result + " ✗"
	}
	return m.Result
}

// metricText is the numbers of one metric in words.
func metricText(m model.Metric) string {
	if m.Result == model.MetricInsufficient {
		return reportfmt.Sanitize(m.Reason)
	}
	return fmt.Sprintf("canary %s, baseline %s · %s scales (scale from %s) · %s", render.Value(m.Canary, m.Unit), render.Value(m.Baseline, m.Unit),
		reportfmt.FormatFixed(m.Effect, 1), reportfmt.Sanitize(m.ScaleFrom), reportfmt.Sanitize(m.Reason))
}

// shownMetrics are the metrics a text or Markdown report lists: the bad
// ones, then the decided ones nearest to the threshold, at most
// maxMetricsShown in all and at most maxPassShown that passed; and how
// many decided ones are left out.
func shownMetrics(ms []model.Metric) ([]model.Metric, int) {
	var out, rest []model.Metric
	for _, m := range ms {
		switch {
		case m.Result == model.MetricInsufficient:
		case m.Bad && len(out) < maxMetricsShown:
			out = append(out, m)
		default:
			rest = append(rest, m)
		}
	}
	slices.SortStableFunc(rest, func(a, b model.Metric) int { return cmp.Compare(math.Abs(nan0(b.Effect)), math.Abs(nan0(a.Effect))) })
	n := min(len(rest), maxPassShown, maxMetricsShown-len(out))
	return append(out, rest[:n]...), len(rest) - n
}

// RenderText writes a canary report (Mode ModeCanary) as text within width
// runes: package compare's Render calls it for the text format.
func RenderText(w io.Writer, r *model.Report, width int) error {
	t := render.NewText(w, width)
	c := r.Canary
	t.Wrap("", "  ", canaryToolLine(r))
	t.Blank()
	t.Section("Verdict")
	t.Wrap("  ", "  ", reportfmt.Sanitize(r.Verdict.Text))
	t.Blank()
	t.Section("Canaries")
	if len(c.Workloads) == 0 {
		t.Line("  none")
	}
	for _, wl := range c.Workloads {
		t.Wrap("  ", "        ", workloadHead(wl))
		t.Wrap("        ", "        ", reportfmt.Sanitize(wl.Reason))
		t.Wrap("        ", "        ", workloadGroups(wl))
		t.Wrap("        ", "        ", workloadWindow(wl))
		ms, more := shownMetrics(wl.Metrics)
		for _, m := range ms {
			head := fmt.Sprintf("          %-8s ", metricResult(m))
			pad := strings.Repeat(" ", len([]rune(head))+2)
			t.Wrap(head, pad, reportfmt.Sanitize(m.Name))
			t.Wrap(pad, pad, metricText(m))
		}
		if more > 0 {
			t.Line(fmt.Sprintf("          and %d more that passed (the JSON lists every metric)", more))
		}
		t.Blank()
	}
	t.Field("settings", canarySettingsText(c.Settings))
	t.Warnings(r.Warnings)
	t.InputsAndRerun(r, false, "version "+render.OrDash(reportfmt.Sanitize(r.Manifest.Version)))
	return t.EW.Err()
}

// RenderMarkdown writes a canary report as GitHub-flavoured Markdown:
// package compare's Render calls it for the markdown format.
func RenderMarkdown(w io.Writer, r *model.Report) error {
	m := render.NewMarkdown(w)
	c := r.Canary
	m.P("## Canary analysis")
	m.P("")
	m.P("**Verdict:** %s", reportfmt.EscapeMarkdown(r.Verdict.Text))
	m.P("")
	m.Row("workload", "service", "verdict", "score", "why")
	m.Row("---", "---", "---", "--:", "---")
	for _, wl := range c.Workloads {
		score := "–"
		if !math.IsNaN(wl.Score) {
			score = reportfmt.FormatFixed(wl.Score, 0)
		}
		m.Row(reportfmt.EscapeMarkdown(wl.Workload), reportfmt.EscapeMarkdown(wl.Service), "**"+reportfmt.EscapeMarkdown(wl.Verdict)+"**", score, reportfmt.EscapeMarkdown(wl.Reason))
	}
	m.P("")
	for _, wl := range c.Workloads {
		m.P("<details><summary>%s</summary>", reportfmt.EscapeMarkdown(workloadHead(wl)))
		m.P("")
		m.P("%s.  ", reportfmt.EscapeMarkdown(workloadGroups(wl)))
		m.P("Window: %s.", reportfmt.EscapeMarkdown(workloadWindow(wl)))
		m.P("")
		ms, more := shownMetrics(wl.Metrics)
		if len(ms) > 0 {
			m.Row("result", "metric", "canary", "baseline", "scales", "why")
			m.Row("---", "---", "--:", "--:", "--:", "---")
			for _, mt := range ms {
				res := reportfmt.EscapeMarkdown(metricResult(mt))
				if mt.Bad {
					res = "**" + res + "**"
				}
				m.Row(res, reportfmt.EscapeMarkdown(mt.Name), reportfmt.EscapeMarkdown(render.Value(mt.Canary, mt.Unit)), reportfmt.EscapeMarkdown(render.Value(mt.Baseline, mt.Unit)), reportfmt.FormatFixed(mt.Effect, 1), reportfmt.EscapeMarkdown(mt.Reason))
			}
		}
		if more > 0 {
			m.P("")
			m.P("And %d more metrics that passed.", more)
		}
		m.P("")
		m.P("</details>")
		m.P("")
	}
	m.P("Settings: %s. %s.", reportfmt.EscapeMarkdown(canarySettingsText(c.Settings)), reportfmt.EscapeMarkdown(canaryToolLine(r)))
	m.Warnings(r.Warnings)
	if len(r.Manifest.Args) > 0 {
		m.P("")
		m.Command(r.Manifest)
	}
	return m.EW.Err()
}

//go:embed canary.html.tmpl
var canaryHTMLSource string

var canaryHTMLTemplate = template.Must(template.New("canary").Parse(canaryHTMLSource))

// canaryCSS is what the canary page adds to the scorecard's style sheet.
const canaryCSS = `.v-fail { color: var(--crit); font-weight: 600; }
.v-marginal { color: var(--warn); font-weight: 600; }
.v-pass { color: #1a7f37; font-weight: 600; }
.v-insufficient { color: var(--muted); }
.verdict.v-box-fail { border-left-color: var(--crit); }
.verdict.v-box-marginal { border-left-color: var(--warn); }
.verdict.v-box-pass { border-left-color: #1a7f37; }
td.bad { color: var(--crit); font-weight: 600; }
`

type canaryHTMLData struct {
	CSS       template.CSS
	Tool      string
	Verdict   string
	VClass    string
	Settings  string
	Workloads []canaryHTMLWorkload
	Notes     []render.HTMLNote
	Inputs    []render.HTMLInput
	Command   string
}

type canaryHTMLWorkload struct {
	Head, Class, Reason, Groups, Window string
	Metrics                             []canaryHTMLMetric
	More                                int
}

type canaryHTMLMetric struct {
	Result, Name, Canary, Baseline, Effect, Reason string
	Bad                                            bool
}

// canaryClass is a verdict's CSS class.
func canaryClass(v string) string {
	if v == model.CanaryInsufficient {
		return "insufficient"
	}
	return v
}

// RenderHTML writes a canary report as one self-contained HTML page:
// package compare's Render calls it for the html format.
func RenderHTML(w io.Writer, r *model.Report) error {
	d := canaryHTMLData{CSS: reportfmt.StyleSheet() + template.CSS(canaryCSS), Tool: canaryToolLine(r), Verdict: reportfmt.Sanitize(r.Verdict.Text),
		VClass: canaryClass(r.Canary.Verdict), Settings: canarySettingsText(r.Canary.Settings)}
	if len(r.Manifest.Args) > 0 {
		d.Command = render.CommandLine(r.Manifest)
	}
	for _, wl := range r.Canary.Workloads {
		hw := canaryHTMLWorkload{Head: workloadHead(wl), Class: canaryClass(wl.Verdict), Reason: reportfmt.Sanitize(wl.Reason),
			Groups: workloadGroups(wl), Window: workloadWindow(wl)}
		ms, more := shownMetrics(wl.Metrics)
		hw.More = more
		for _, m := range ms {
			hw.Metrics = append(hw.Metrics, canaryHTMLMetric{Result: metricResult(m), Name: reportfmt.Sanitize(m.Name), Canary: render.Value(m.Canary, m.Unit),
				Baseline: render.Value(m.Baseline, m.Unit), Effect: reportfmt.FormatFixed(m.Effect, 1), Reason: reportfmt.Sanitize(m.Reason), Bad: m.Bad})
		}
		d.Workloads = append(d.Workloads, hw)
	}
	d.Notes, d.Inputs = render.NotesAndInputsHTML(r)
	return canaryHTMLTemplate.Execute(w, d)
}
