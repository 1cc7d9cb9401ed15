package scorecard

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

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

// mdPart is one section of the Markdown report, rendered on its own so
// that the report can be bounded (RenderOptions.MaxChars) by leaving the
// least needed parts out.
type mdPart struct {
	what string // what leaving it out drops, for the note
	text string
}

func renderMarkdown(w io.Writer, c *Card, opt RenderOptions) error {
	part := func(f func(m *mdWriter)) string {
		var sb strings.Builder
		m := &mdWriter{ew: reportfmt.NewErrWriter(&sb), opt: opt}
		f(m)
		return sb.String()
	}
	// The head (verdict, incident, rows) is always there.
	head := part(func(m *mdWriter) { m.header(c); m.rowsTable(c) })
	var parts []mdPart
	if opt.Explain > 0 {
		r := c.Rows[opt.Explain-1]
		for _, rank := range r.Causes {
			if cs := causeByRank(c, rank); cs != nil {
				parts = append(parts, mdPart{fmt.Sprintf("cause #%d", cs.Rank), part(func(m *mdWriter) { m.cause(*cs) })})
			}
		}
	} else {
		parts = append(parts, mdPart{"the table of every ranked signal", part(func(m *mdWriter) { m.causes(c) })})
		for _, cs := range c.Causes {
			parts = append(parts, mdPart{fmt.Sprintf("cause #%d", cs.Rank), part(func(m *mdWriter) { m.cause(cs) })})
		}
		if c.RequestShape != nil {
			parts = append(parts, mdPart{"the request-shape map", part(func(m *mdWriter) { m.shape(c) })})
		}
		parts = append(parts, mdPart{"the heatmaps", part(func(m *mdWriter) { m.heatmaps(c) })},
			mdPart{"the data-quality footnotes", part(func(m *mdWriter) { m.footnotes(c) })},
			mdPart{"the inventory", part(func(m *mdWriter) { m.inventory(c) })},
			mdPart{"the inputs and their checksums", part(func(m *mdWriter) { m.inputs(c) })},
			mdPart{"the rerun command", part(func(m *mdWriter) { m.manifest(c) })})
	}
	out := fitMarkdown(head, parts, opt.MaxChars)
	ew := reportfmt.NewErrWriter(w)
	ew.Printf("%s", out)
	return ew.Err()
}

// fitMarkdown joins the head and the parts within max characters (runes;
// max < 0: no bound): parts are kept in order while they fit, and a note
// at the end names what was left out and how to get it. The head is kept
// whole even when it alone is longer.
func fitMarkdown(head string, parts []mdPart, limit int) string {
	const note = "\n> **Cut to fit %d characters** (--max-chars): left out %s. The whole card: `-o html`, or `-o markdown --max-chars 0`.\n"
	n := utf8.RuneCountInString(head)
	total := n
	for _, p := range parts {
		total += utf8.RuneCountInString(p.text)
	}
	if limit < 0 || total <= limit {
		var sb strings.Builder
		sb.WriteString(head)
		for _, p := range parts {
			sb.WriteString(p.text)
		}
		return sb.String()
	}
	reserve := utf8.RuneCountInString(note) + 400 // the note with its list
	var sb strings.Builder
	sb.WriteString(head)
	var out []string
	for _, p := range parts {
		k := utf8.RuneCountInString(p.text)
		if len(out) == 0 && n+k+reserve <= limit {
			sb.WriteString(p.text)
			n += k
			continue
		}
		out = append(out, p.what)
	}
	sb.WriteString(fmt.Sprintf(note, limit, md(listWords(out))))
	return sb.String()
}

// listWords joins names as "a, b and c", shortening runs of causes to
// "causes #4–#10".
func listWords(xs []string) string {
	var merged []string
	for i := 0; i < len(xs); i++ {
		if strings.HasPrefix(xs[i], "cause #") {
			j := i
			for j+1 < len(xs) && strings.HasPrefix(xs[j+1], "cause #") {
				j++
			}
			if j > i {
				merged = append(merged, "causes "+strings.TrimPrefix(xs[i], "cause ")+"–"+strings.TrimPrefix(xs[j], "cause "))
				i = j
				continue
			}
		}
		merged = append(merged, xs[i])
	}
	switch len(merged) {
	case 0:
		return "nothing"
	case 1:
		return merged[0]
	}
	return strings.Join(merged[:len(merged)-1], ", ") + " and " + merged[len(merged)-1]
}

// rowsTable is the ranked components, one row each, as the text card's
// first screen shows them.
func (m *mdWriter) rowsTable(c *Card) {
	m.p("")
	m.p("### Ranked components (one row each)")
	m.p("")
	if len(c.Rows) == 0 {
		m.p("No candidate causes.")
		return
	}
	comparison := isComparison(c)
	if comparison {
		m.row("#", "component", "service", "signals", "onset")
		m.row("--:", "---", "---", "---", "---")
	} else {
		m.row("#", "component", "service", "signals", "confidence", "explained", "onset")
		m.row("--:", "---", "---", "---", "--:", "--:", "---")
	}
	for _, r := range c.Rows {
		on := fmtTime(r.Onset)
		if r.AfterAlert {
			on += " (after the alert)"
		}
		if comparison {
			m.row(fmt.Sprint(r.Rank), md(componentName(r.ComponentKind, r.Component)), md(r.Service), md(strings.Join(r.Signals, ", ")), on)
			continue
		}
		m.row(fmt.Sprint(r.Rank), md(componentName(r.ComponentKind, r.Component)), md(r.Service), md(strings.Join(r.Signals, ", ")),
			fmtConf(r.Confidence), fmtShare(r.ExplainedShare), on)
	}
	m.p("")
	if !comparison {
		m.p("Unexplained: %s remains with every candidate at its baseline.", md(unexplainedText(c.Unexplained)))
	}
	if len(c.Rows) > 0 {
		if cs := causeByRank(c, firstOr(c.Rows[0].Causes, 0)); cs != nil && len(cs.NextSteps) > 0 {
			m.p("")
			m.p("**Next steps for #1** (printed, never run):")
			m.p("")
			for _, st := range cs.NextSteps {
				m.p("- *%s*: %s", md(stepKindWords(st.Kind)), mdStep(st))
			}
		}
	}
}

// stepKindWords is a step's kind as the card prints it: a mitigation says
// that it changes the cluster.
func stepKindWords(kind string) string {
	if kind == StepMitigate {
		return "mitigate (changes the cluster)"
	}
	return kind
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
		if link := m.opt.traceLink(sanitize(id)); link != "" && reportfmt.MarkdownSafeURL(link) {
			out[i] = "[" + out[i] + "](" + link + ")"
		}
	}
	return strings.Join(out, ", ")
}

// mdStep is a next step in one Markdown line: its command or query as
// text, its link (a runbook, a Jaeger search, a Grafana Explore view) as a
// link when it is safe to be one.
func mdStep(s Step) string {
	why := s.Text
	if s.Where != "" {
		why += " (" + s.Where + ")"
	}
	link := ""
	if s.URL != "" && reportfmt.MarkdownSafeURL(s.URL) {
		link = s.URL
	}
	switch {
	case s.Command != "" || s.Query != "":
		code := s.Command
		if code == "" {
			code = s.Query
		}
		out := md(why) + ": " + mdCode(code)
		if link != "" {
			out += " ([open](" + link + "))"
		}
		return out
	case link != "":
		label := md(link)
		if len(link) > 80 {
			label = "open"
		}
		return "[" + label + "](" + link + ") — " + md(why)
	case s.URL != "":
		return mdCode(s.URL) + " — " + md(why)
	}
	return md(why)
}

// mdCode is s as an inline code span: copied whole and never reflowed,
// its delimiter longer than any backtick run inside (padded with a space
// when s starts or ends with a backtick), control characters escaped.
func mdCode(s string) string {
	s = sanitize(s)
	fence := strings.Repeat("`", max(1, len(mdFence(s))-2))
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func (m *mdWriter) p(format string, args ...any) { m.ew.Printf(format+"\n", args...) }

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
			m.p("  - *%s*: %s", md(stepKindWords(st.Kind)), mdStep(st))
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
	t := &textWriter{ew: reportfmt.NewErrWriter(&tw), width: DefaultWidth}
	t.heatBlock(maps)
	body := strings.TrimLeft(tw.String(), "\n")
	f := mdFence(body)
	m.p("%stext", f)
	m.ew.Printf("%s", body)
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
