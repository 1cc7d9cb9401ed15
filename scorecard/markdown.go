package scorecard

import (
	"fmt"
	"io"
	"strings"
)

// mdReplacer escapes inline Markdown: backslash before every character that
// could start emphasis, code, links, tables, strikethrough, headings, mentions
// or math, and HTML entities for <, > and & so no raw HTML ever reaches the
// page. It is applied to every input-derived string after sanitize.
var mdReplacer = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`,
	`~`, `\~`, `#`, `\#`, `@`, `\@`, `$`, `\$`,
	`<`, `&lt;`, `>`, `&gt;`, `&`, `&amp;`,
)

// md escapes s for inline Markdown (also safe inside a table cell).
func md(s string) string { return mdReplacer.Replace(sanitize(s)) }

// mdFence returns a backtick fence longer than any backtick run in body (at
// least three), so a fenced block can never be closed early by its content.
func mdFence(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// mdWriter renders GitHub-flavoured Markdown that also reads well as plain
// text (GitLab, Jira Cloud's Markdown paste).
type mdWriter struct {
	ew  *errWriter
	opt RenderOptions
}

// mdFoldRows is the longest table shown open; a longer one is folded in a
// <details> element (GitHub and GitLab render it; elsewhere it reads as
// the table).
const mdFoldRows = 12

func renderMarkdown(w io.Writer, c *Card, opt RenderOptions) error {
	m := &mdWriter{ew: &errWriter{w: w}, opt: opt}
	m.header(c)
	m.causes(c)
	for _, cs := range c.Causes {
		m.cause(cs)
	}
	m.shape(c)
	m.heatmaps(c)
	m.footnotes(c)
	m.inventory(c)
	m.inputs(c)
	m.manifest(c)
	return m.ew.err
}

// fold opens a <details> block around a long table (rows > mdFoldRows);
// the returned function closes it.
func (m *mdWriter) fold(rows int, summary string) func() {
	if rows <= mdFoldRows {
		return func() {}
	}
	m.p("<details><summary>%s</summary>", md(summary))
	m.p("")
	return func() {
		m.p("")
		m.p("</details>")
	}
}

// traceRefs renders trace IDs as code, linked to the Jaeger UI when
// RenderOptions.TraceURL is set.
func (m *mdWriter) traceRefs(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = md(id)
		if link := m.opt.traceLink(sanitize(id)); link != "" && MarkdownSafeURL(link) {
			out[i] = "[" + out[i] + "](" + link + ")"
		}
	}
	return strings.Join(out, ", ")
}

// mdStep is a next step in one Markdown line: its command or query as
// text, its link (a runbook, a Jaeger search, a Grafana Explore view) as a
// link when it is safe to be one.
func mdStep(s Step) string {
	if s.URL == "" || !MarkdownSafeURL(s.URL) {
		return md(stepLine(s))
	}
	link := s.URL
	s.URL = ""
	if s.Command != "" || s.Query != "" {
		return md(stepLine(s)) + " ([open](" + link + "))"
	}
	label := md(link)
	if len(link) > 80 {
		label = "open"
	}
	return "[" + label + "](" + link + ")" + md(stepLine(s))
}

// MarkdownSafeURL reports whether a link can go into Markdown as it is:
// http(s) and none of the characters that end or escape a link.
func MarkdownSafeURL(u string) bool {
	return (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) && !strings.ContainsAny(u, " ()<>[]`\"\\\n\r")
}

func (m *mdWriter) p(format string, args ...any) { m.ew.printf(format+"\n", args...) }

// row writes one table row of already-escaped cells.
func (m *mdWriter) row(cells ...string) { m.p("| %s |", strings.Join(cells, " | ")) }

func (m *mdWriter) header(c *Card) {
	m.p("## Root-cause scorecard")
	m.p("")
	if c.Demo != "" {
		m.p("> **Demo:** %s", md(c.Demo))
		m.p("")
	}
	v := c.Verdict
	text := v.Text
	if text == "" {
		text = "no confident root cause"
	}
	m.p("**Verdict:** %s", md(text))
	if v.Counterfactual != "" {
		m.p("")
		m.p("%s", md(v.Counterfactual))
	}
	if len(v.WouldDecide) > 0 {
		m.p("")
		m.p("What would decide between the guesses:")
		for _, w := range v.WouldDecide {
			m.p("- %s", md(w))
		}
	}
	if len(c.Changes) > 0 {
		m.p("")
		m.p("**What changed:**")
		if c.OlderChanges > 0 {
			m.p("- (%d older change(s) not shown)", c.OlderChanges)
		}
		for _, ch := range c.Changes {
			m.p("- %s", md(changeLine(ch)))
		}
	}
	m.p("")
	in := c.Incident
	m.p("- **Target:** %s", md(targetText(in.Target)))
	if in.TargetChosenBy != "" {
		m.p("  (chosen by %s)", md(in.TargetChosenBy))
	}
	at := fmtTime(in.At)
	if in.AtChosenBy != "" {
		at += " (" + md(in.AtChosenBy) + ")"
	}
	m.p("- **At:** %s", at)
	if in.AlertName != "" || in.AlertAt != 0 {
		m.p("- **Alert:** %s at %s", md(in.AlertName), fmtTime(in.AlertAt))
		if in.RunbookURL != "" {
			m.p("- **Runbook:** %s", md(in.RunbookURL))
		}
	}
	m.p("- **Window:** %s; **baseline:** %s", fmtRange(in.WindowStart, in.WindowEnd), fmtRange(in.BaselineStart, in.BaselineEnd))
	if in.WindowChosenBy != "" {
		m.p("  (the window %s)", md(in.WindowChosenBy))
	}
	m.p("- **Tool:** %s", md(toolLine(c)))
	if c.Sampling != "" {
		m.p("- **Sampling:** %s", md(c.Sampling))
	}
}

func (m *mdWriter) causes(c *Card) {
	m.p("")
	m.p("### Ranked causes")
	m.p("")
	if len(c.Causes) > 0 {
		comparison := isComparison(c)
		if comparison { // no confidence, counterfactual or state
			m.row("#", "service", "component", "signal", "score")
			m.row("--:", "---", "---", "---", "--:")
		} else {
			m.row("#", "service", "component", "signal", "score", "confidence", "explained", "severity", "state")
			m.row("--:", "---", "---", "---", "--:", "--:", "---", "---", "---")
		}
		for _, cs := range c.Causes {
			if comparison {
				m.row(fmt.Sprint(cs.Rank), md(cs.Service), md(causeComponent(cs)), md(cs.Signal), fmtScore(cs.Score))
				continue
			}
			m.row(fmt.Sprint(cs.Rank), md(cs.Service), md(causeComponent(cs)), md(cs.Signal), fmtScore(cs.Score),
				fmtConf(cs.Confidence), strings.TrimSpace(fmtShare(cs.Intervention.ExplainedShare)+" "+fmtInterval(cs.Intervention.Interval)),
				md(cs.Severity), md(cs.State))
		}
		m.p("")
	} else {
		m.p("No candidate causes.")
		m.p("")
	}
	if isComparison(c) {
		m.p("%s.", md(prunedText(c.Pruned)))
	} else {
		m.p("Unexplained: %s. %s.", md(unexplainedText(c.Unexplained)), md(prunedText(c.Pruned)))
	}
	if len(c.RequestBreaks) > 0 {
		m.p("")
		m.p("### Requests that broke")
		m.p("")
		m.p("%s", md(requestBreaksSentence(c.Verdict.MinShare)))
		for _, rc := range c.RequestBreaks {
			m.p("- **%s** (%s): %s", md(rc.Service), md(causeRankText(rc.CauseRank)), md(rc.Evidence.Text))
			if len(rc.Evidence.TraceIDs) > 0 {
				m.p("  traces: %s", m.traceRefs(rc.Evidence.TraceIDs))
			}
		}
	}
}

func (m *mdWriter) cause(cs Cause) {
	m.p("")
	m.p("#### %d. %s %s", cs.Rank, md(causeComponent(cs)), md(cs.Signal))
	m.p("")
	conf := "confidence " + fmtConf(cs.Confidence)
	if fmtConf(cs.Confidence) == "~" {
		conf = ""
	}
	m.p("- **Summary:** %s", md(joinNonEmpty([]string{cs.Service, cs.Severity, cs.State,
		"score " + fmtScore(cs.Score), conf}, " · ")))
	if iv := cs.Intervention; iv.Target != "" {
		m.p("- **Intervention:** do(%s := baseline): target %s → %s, explains %s %s", md(iv.Target),
			md(fmtValue(iv.Observed, iv.Unit)), md(fmtValue(iv.Counterfactual, iv.Unit)),
			fmtShare(iv.ExplainedShare), fmtInterval(iv.Interval))
	}
	if len(cs.Dimensions) > 0 {
		parts := make([]string, len(cs.Dimensions))
		for i, d := range cs.Dimensions {
			parts[i] = fmt.Sprintf("%s %s (weight %s)", md(d.Name), fmtFixed(d.Value, 2), fmtFixed(d.Weight, 2))
		}
		m.p("- **Dimensions:** %s", strings.Join(parts, ", "))
	}
	if len(cs.Evidence) > 0 {
		m.p("- **Evidence:**")
		for _, e := range cs.Evidence {
			m.p("  - %s", md(evidenceText(e)))
			if len(e.TraceIDs) > 0 {
				m.p("    traces: %s", m.traceRefs(e.TraceIDs))
			}
		}
	}
	if len(cs.Path) > 0 {
		m.p("- **Path:** %s", md(pathText(cs.Path)))
	}
	if len(cs.NextSteps) > 0 {
		m.p("- **Next steps** (printed, never run):")
		for _, st := range cs.NextSteps {
			m.p("  - *%s*: %s", md(st.Kind), mdStep(st))
		}
	}
}

// heatmaps writes every heatmap in one fenced text block on one time axis
// (as the text format draws them), after the legend in words.
func (m *mdWriter) heatmaps(c *Card) {
	maps := cardHeatmaps(c)
	if len(maps) == 0 {
		return
	}
	m.p("")
	m.p("### Heatmaps")
	m.p("")
	m.p("%s", md(heatLegendText()))
	m.p("")
	var tw strings.Builder
	t := &textWriter{ew: &errWriter{w: &tw}, width: DefaultWidth}
	t.heatBlock(maps)
	body := strings.TrimLeft(tw.String(), "\n")
	f := mdFence(body)
	m.p("%stext", f)
	m.ew.printf("%s", body)
	m.p("%s", f)
}

func (m *mdWriter) footnotes(c *Card) {
	if len(c.Warnings) == 0 {
		return
	}
	m.p("")
	m.p("### Data quality")
	m.p("")
	for i, f := range c.Warnings {
		m.p("- **\\[%d\\]** %s", footnoteN(f, i), md(footnoteText(f)))
	}
}

func (m *mdWriter) inputs(c *Card) {
	if len(c.Inputs) == 0 {
		return
	}
	m.p("")
	m.p("### Inputs")
	m.p("")
	defer m.fold(len(c.Inputs), fmt.Sprintf("%d inputs", len(c.Inputs)))()
	m.row("path", "format", "sha256", "bytes", "time range", "contents")
	m.row("---", "---", "---", "--:", "---", "---")
	for _, in := range c.Inputs {
		m.row(md(in.Path), md(in.Format), md(in.SHA256), fmt.Sprint(in.Size), fmtRange(in.Start, in.End), md(inputCounts(in)))
	}
}

func (m *mdWriter) inventory(c *Card) {
	if len(c.Inventory.Entities) == 0 {
		return
	}
	m.p("")
	m.p("### Inventory")
	m.p("")
	defer m.fold(len(c.Inventory.Entities), fmt.Sprintf("%d entities", len(c.Inventory.Entities)))()
	m.row("kind", "name", "service", "node", "signals")
	m.row("---", "---", "---", "---", "---")
	for _, e := range c.Inventory.Entities {
		m.row(md(e.Kind), md(e.Name), md(e.Service), md(e.Node), md(strings.Join(e.Signals, ", ")))
	}
}

func (m *mdWriter) manifest(c *Card) {
	mf := c.Manifest
	if len(mf.Args) == 0 && len(mf.Inputs) == 0 && mf.Version == "" {
		return
	}
	m.p("")
	m.p("### Rerun")
	m.p("")
	if len(mf.Args) > 0 {
		cmd := commandLine(mf)
		f := mdFence(cmd)
		m.p("%ssh", f)
		m.p("%s", cmd)
		m.p("%s", f)
		m.p("")
	}
	m.p("Version %s; %d inputs pinned by sha256 (the Inputs table; in full in `-o json`).", md(orDash(mf.Version)), len(mf.Inputs))
}
