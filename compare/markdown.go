package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// md escapes an input-derived string for inline Markdown, as the scorecard.
var md = reportfmt.EscapeMarkdown

func renderMarkdown(w io.Writer, r *model.Report, _ RenderOptions) error {
	if r.Mode == model.ModeCanary {
		return canary.RenderMarkdown(w, r)
	}
	m := &mdWriter{render.NewMarkdown(w)}
	m.P("## Fix verification")
	m.P("")
	m.P("**Verdict:** %s", md(r.Verdict.Text))
	m.P("")
	m.Row("", "")
	m.Row("---", "---")
	m.Row("Before", md(sideText(r.Before)))
	if r.Before.BaselineStart != 0 {
		m.Row("Baseline", md(render.Window(r.Before.BaselineStart, r.Before.BaselineEnd)))
	}
	m.Row("After", md(sideText(r.After)))
	m.Row("Settings", md(settingsText(r.Settings)))
	m.Row("Tool", md(render.ToolLine(r)))
	m.P("")
	m.P("### Target")
	m.P("")
	m.table([]model.Finding{r.Target}, false)
	if len(r.Causes) > 0 || r.CausesFrom != "" {
		m.P("### Causes of BEFORE")
		m.P("")
		if r.CausesFrom != "" {
			m.P("From %s.", md(r.CausesFrom))
			m.P("")
		}
		m.table(r.Causes, true)
	}
	m.P("### Regressions")
	m.P("")
	m.table(r.Regressions, true)
	m.P("### Improvements")
	m.P("")
	m.table(r.Improvements, true)
	if len(r.Watch) > 0 {
		m.P("### What to watch after the fix")
		m.P("")
		for _, w := range r.Watch {
			line := fmt.Sprintf("- **%s** (%s now): %s", md(w.Label), md(string(w.Verdict)), md(w.Text))
			if w.Query != "" {
				line += "; PromQL: " + md(w.Query)
				if reportfmt.MarkdownSafeURL(w.URL) {
					line += " ([Explore](" + w.URL + "))"
				}
			}
			m.P("%s", line)
		}
		m.P("")
	}
	if len(r.Traffic) > 0 {
		m.P("### Traffic")
		m.P("")
		m.table(r.Traffic, false)
	}
	m.P("Items: %s.", md(countsText(r.Counts)))
	m.shape(r.RequestShape)
	m.heatmap(r.Heatmap)
	m.Warnings(r.Warnings)
	if len(r.Inputs) > 0 {
		m.P("")
		m.P("### Inputs")
		m.P("")
		m.Row("side", "path", "format", "sha256", "bytes")
		m.Row("---", "---", "---", "---", "--:")
		for _, in := range r.Inputs {
			path := md(in.Path)
			if in.Skipped {
				path += " (skipped: " + md(in.Error) + ")"
			}
			m.Row(md(in.Side), path, md(in.Format), md(sha12(in.SHA256)), fmt.Sprint(in.Size))
		}
	}
	if len(r.Manifest.Args) > 0 {
		m.P("")
		m.P("### Rerun")
		m.P("")
		m.Command(r.Manifest)
		m.P("")
		m.P("Version %s, seed %d.", md(render.OrDash(r.Manifest.Version)), r.Manifest.Seed)
	}
	return m.EW.Err()
}

func (m *mdWriter) table(fs []model.Finding, ranked bool) {
	if len(fs) == 0 {
		m.P("None.")
		m.P("")
		return
	}
	if ranked {
		m.Row("#", "verdict", "what", "change")
		m.Row("--:", "---", "---", "---")
	} else {
		m.Row("verdict", "what", "change")
		m.Row("---", "---", "---")
	}
	for _, f := range fs {
		cells := []string{"**" + md(string(f.Verdict)) + "**", md(f.Label), md(f.Text)}
		if ranked {
			cells = append([]string{fmt.Sprint(f.Rank)}, cells...)
		}
		m.Row(cells...)
	}
	m.P("")
}

func (m *mdWriter) heatmap(h model.Heatmap) {
	if len(h.Rows) == 0 {
		return
	}
	m.P("")
	m.P("### Latency change by call depth × time")
	m.P("")
	var tw strings.Builder
	t := &textWriter{render.NewText(&tw, 100)}
	t.heatmap(h)
	body := strings.TrimPrefix(tw.String(), "\nLatency change by call depth × time\n")
	f := reportfmt.MarkdownFence(body)
	m.P("%stext", f)
	m.EW.Printf("%s", body)
	m.P("%s", f)
}
