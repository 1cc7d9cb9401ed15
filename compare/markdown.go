package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// md escapes an input-derived string for inline Markdown, as the scorecard.
var md = reportfmt.EscapeMarkdown

// mdWriter renders GitHub-flavoured Markdown for a ticket.
type mdWriter struct{ ew *errWriter }

func renderMarkdown(w io.Writer, r *model.Report, _ RenderOptions) error {
	if r.Mode == model.ModeCanary {
		return renderCanaryMarkdown(w, r)
	}
	m := &mdWriter{ew: reportfmt.NewErrWriter(w)}
	m.p("## Fix verification")
	m.p("")
	m.p("**Verdict:** %s", md(r.Verdict.Text))
	m.p("")
	m.row("", "")
	m.row("---", "---")
	m.row("Before", md(sideText(r.Before)))
	if r.Before.BaselineStart != 0 {
		m.row("Baseline", md(windowText(r.Before.BaselineStart, r.Before.BaselineEnd)))
	}
	m.row("After", md(sideText(r.After)))
	m.row("Settings", md(settingsText(r.Settings)))
	m.row("Tool", md(toolLine(r)))
	m.p("")
	m.p("### Target")
	m.p("")
	m.table([]model.Finding{r.Target}, false)
	if len(r.Causes) > 0 || r.CausesFrom != "" {
		m.p("### Causes of BEFORE")
		m.p("")
		if r.CausesFrom != "" {
			m.p("From %s.", md(r.CausesFrom))
			m.p("")
		}
		m.table(r.Causes, true)
	}
	m.p("### Regressions")
	m.p("")
	m.table(r.Regressions, true)
	m.p("### Improvements")
	m.p("")
	m.table(r.Improvements, true)
	if len(r.Watch) > 0 {
		m.p("### What to watch after the fix")
		m.p("")
		for _, w := range r.Watch {
			line := fmt.Sprintf("- **%s** (%s now): %s", md(w.Label), md(string(w.Verdict)), md(w.Text))
			if w.Query != "" {
				line += "; PromQL: " + md(w.Query)
				if reportfmt.MarkdownSafeURL(w.URL) {
					line += " ([Explore](" + w.URL + "))"
				}
			}
			m.p("%s", line)
		}
		m.p("")
	}
	if len(r.Traffic) > 0 {
		m.p("### Traffic")
		m.p("")
		m.table(r.Traffic, false)
	}
	m.p("Items: %s.", md(countsText(r.Counts)))
	m.shape(r.RequestShape)
	m.heatmap(r.Heatmap)
	m.warnings(r.Warnings)
	if len(r.Inputs) > 0 {
		m.p("")
		m.p("### Inputs")
		m.p("")
		m.row("side", "path", "format", "sha256", "bytes")
		m.row("---", "---", "---", "---", "--:")
		for _, in := range r.Inputs {
			path := md(in.Path)
			if in.Skipped {
				path += " (skipped: " + md(in.Error) + ")"
			}
			m.row(md(in.Side), path, md(in.Format), md(sha12(in.SHA256)), fmt.Sprint(in.Size))
		}
	}
	if len(r.Manifest.Args) > 0 {
		m.p("")
		m.p("### Rerun")
		m.p("")
		cmd := commandLine(r.Manifest)
		f := reportfmt.MarkdownFence(cmd)
		m.p("%ssh", f)
		m.p("%s", cmd)
		m.p("%s", f)
		m.p("")
		m.p("Version %s, seed %d.", md(orDash(r.Manifest.Version)), r.Manifest.Seed)
	}
	return m.ew.Err()
}

func (m *mdWriter) p(format string, args ...any) { m.ew.Printf(format+"\n", args...) }

// row writes one table row of already-escaped cells.
func (m *mdWriter) row(cells ...string) { m.p("| %s |", strings.Join(cells, " | ")) }

func (m *mdWriter) table(fs []model.Finding, ranked bool) {
	if len(fs) == 0 {
		m.p("None.")
		m.p("")
		return
	}
	if ranked {
		m.row("#", "verdict", "what", "change")
		m.row("--:", "---", "---", "---")
	} else {
		m.row("verdict", "what", "change")
		m.row("---", "---", "---")
	}
	for _, f := range fs {
		cells := []string{"**" + md(string(f.Verdict)) + "**", md(f.Label), md(f.Text)}
		if ranked {
			cells = append([]string{fmt.Sprint(f.Rank)}, cells...)
		}
		m.row(cells...)
	}
	m.p("")
}

func (m *mdWriter) heatmap(h model.Heatmap) {
	if len(h.Rows) == 0 {
		return
	}
	m.p("")
	m.p("### Latency change by call depth × time")
	m.p("")
	var tw strings.Builder
	t := &textWriter{ew: reportfmt.NewErrWriter(&tw), width: 100}
	t.heatmap(h)
	body := strings.TrimPrefix(tw.String(), "\nLatency change by call depth × time\n")
	f := reportfmt.MarkdownFence(body)
	m.p("%stext", f)
	m.ew.Printf("%s", body)
	m.p("%s", f)
}

// warnings writes the numbered warnings section (nothing when none).
func (m *mdWriter) warnings(fs []model.Footnote) {
	if len(fs) == 0 {
		return
	}
	m.p("")
	m.p("### Warnings")
	m.p("")
	for _, f := range fs {
		m.p("- **\\[%d\\]** %s", f.N, md(footnoteText(f)))
	}
}
