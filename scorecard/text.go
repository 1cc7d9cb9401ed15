package scorecard

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// ANSI SGR codes used by the text format.
const (
	ansiBold   = "1"
	ansiDim    = "2"
	ansiRed    = "31"
	ansiYellow = "33"
	ansiCyan   = "36"
)

// textWriter renders the text format: a terminal report that fits Width runes.
type textWriter struct {
	ew         *errWriter
	width      int
	color      bool
	comparison bool // a comparison method's card: no confidence, counterfactual or state
}

func renderText(w io.Writer, c *Card, opt RenderOptions) error {
	t := &textWriter{ew: reportfmt.NewErrWriter(w), width: opt.Width, color: opt.Color, comparison: isComparison(c)}
	if opt.Explain > 0 {
		t.explainRow(c, opt.Explain)
		return t.ew.Err()
	}
	t.firstScreen(c)
	if !opt.Verbose {
		return t.ew.Err()
	}
	t.line("")
	t.line(t.paint(ansiBold, "━━ Details (-v) ━━"))
	t.header(c)
	t.changes(c)
	t.causes(c)
	for _, cs := range c.Causes {
		t.cause(cs)
	}
	t.shape(c)
	t.heatmaps(c)
	t.footnotes(c)
	t.inventory(c)
	t.inputs(c)
	t.manifest(c)
	return t.ew.Err()
}

// explainRow is `explain N`: the card's header, the row's first-screen
// block, then each of its causes in detail and their heatmaps.
func (t *textWriter) explainRow(c *Card, n int) {
	r := c.Rows[n-1]
	t.line(t.paint(ansiBold, toolLine(c)))
	t.incidentBrief(c)
	t.verdict(c)
	t.section(fmt.Sprintf("Row #%d of %d", r.Rank, len(c.Rows)))
	t.topRow(c, r)
	var maps []Heatmap
	for _, rank := range r.Causes {
		if cs := causeByRank(c, rank); cs != nil {
			t.cause(*cs)
		}
		for _, h := range c.Heatmaps {
			if h.CauseRank == rank {
				maps = append(maps, h)
			}
		}
	}
	if len(maps) > 0 {
		t.section("Heatmaps")
		t.para("  ", "  ", heatLegendText(), "")
		t.heatBlock(maps)
	}
}

// paint wraps s in an SGR sequence when colour is on.
func (t *textWriter) paint(code, s string) string {
	if !t.color || code == "" || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (t *textWriter) line(s string) { t.ew.Printf("%s\n", s) }

func (t *textWriter) section(title string) {
	t.line("")
	t.line(t.paint(ansiBold, title))
}

// para writes text wrapped to the width, the first line after first and the
// rest after an indent of the same width as rest.
func (t *textWriter) para(first, rest, text, code string) {
	for i, l := range wrap(text, t.width-max(runeLen(first), runeLen(rest))) {
		p := first
		if i > 0 {
			p = rest
		}
		t.line(p + t.paint(code, l))
	}
}

// kv writes "  key       value" with the value wrapped under itself.
func (t *textWriter) kv(key, value string) {
	first := "  " + pad(key, 10) + " "
	t.para(first, strings.Repeat(" ", runeLen(first)), value, "")
}

func (t *textWriter) header(c *Card) {
	in := c.Incident
	t.section("Incident (in full)")
	t.kv("target", targetText(in.Target))
	if in.TargetChosenBy != "" {
		t.kv("", "chosen by "+sanitize(in.TargetChosenBy))
	}
	at := fmtTime(in.At)
	if in.AtChosenBy != "" {
		at += " (" + sanitize(in.AtChosenBy) + ")"
	}
	t.kv("at", at)
	if in.AlertName != "" || in.AlertAt != 0 {
		t.kv("alert", sanitize(in.AlertName)+" at "+fmtTime(in.AlertAt))
		if in.RunbookURL != "" {
			t.kv("runbook", sanitize(in.RunbookURL))
		}
	}
	t.kv("window", fmtRange(in.WindowStart, in.WindowEnd))
	if in.WindowChosenBy != "" {
		t.kv("", sanitize(in.WindowChosenBy))
	}
	t.kv("baseline", fmtRange(in.BaselineStart, in.BaselineEnd))
	if c.Sampling != "" {
		t.kv("sampling", sanitize(c.Sampling))
	}
}

func (t *textWriter) verdict(c *Card) {
	t.section("Verdict")
	code := ansiYellow
	if c.Verdict.Confident {
		code = ansiBold + ";" + ansiRed
	}
	text := sanitize(c.Verdict.Text)
	if text == "" {
		text = "no confident root cause"
	}
	t.para("  ", "  ", text, code)
	if c.Verdict.Counterfactual != "" {
		t.para("  ", "  ", sanitize(c.Verdict.Counterfactual), "")
	}
	for _, w := range c.Verdict.WouldDecide {
		t.para("  would decide: ", "                ", sanitize(w), "")
	}
}

// changes lists what changed in the look-back, with each change's verdict.
func (t *textWriter) changes(c *Card) {
	if len(c.Changes) == 0 {
		return
	}
	t.section("What changed")
	if c.OlderChanges > 0 {
		t.para("  ", "  ", fmt.Sprintf("%d older change(s) not shown", c.OlderChanges), ansiDim)
	}
	for _, ch := range c.Changes {
		code := ""
		if ch.Verdict == causal.ChangeBlamed {
			code = ansiBold
		}
		t.para("  • ", "    ", sanitize(changeLine(ch)), code)
	}
}

func severityCode(s string) string {
	switch s {
	case SeverityCritical:
		return ansiRed
	case SeverityWarning:
		return ansiYellow
	}
	return ansiDim
}

func (t *textWriter) causes(c *Card) {
	t.section("Ranked causes")
	if len(c.Causes) == 0 {
		t.line("  none")
	} else {
		cols := []textCol{{head: "#", right: true}, {head: "service", min: 6}, {head: "component", min: 8},
			{head: "signal", min: 6}, {head: "score", right: true}, {head: "conf", right: true},
			{head: "explained", min: 6}, {head: "state", min: 6}}
		rows := make([][]string, len(c.Causes))
		for i, cs := range c.Causes {
			rows[i] = []string{fmt.Sprint(cs.Rank), sanitize(cs.Service), sanitize(causeComponent(cs)), sanitize(cs.Signal),
				fmtScore(cs.Score), fmtConf(cs.Confidence),
				strings.TrimSpace(fmtShare(cs.Intervention.ExplainedShare) + " " + fmtInterval(cs.Intervention.Interval)),
				sanitize(cs.State)}
		}
		if t.comparison {
			// A comparison method has no confidence, counterfactual or state.
			cols = cols[:5]
			for i := range rows {
				rows[i] = rows[i][:5]
			}
		}
		t.table(cols, rows, func(r, col int) string {
			if col == 0 || col == 2 {
				return severityCode(c.Causes[r].Severity)
			}
			return ""
		})
	}
	if !t.comparison {
		t.line("  unexplained: " + unexplainedText(c.Unexplained))
	}
	t.para("  ", "  ", prunedText(c.Pruned), "")
	t.requestBreaks(c)
}

// requestBreaks lists the services whose requests broke.
func (t *textWriter) requestBreaks(c *Card) {
	if len(c.RequestBreaks) == 0 {
		return
	}
	t.section("Requests that broke")
	t.para("  ", "  ", requestBreaksNote(c.Verdict.MinShare), ansiDim)
	for _, rc := range c.RequestBreaks {
		t.para("  • ", "    ", sanitize(rc.Service)+" ("+causeRankText(rc.CauseRank)+"): "+sanitize(rc.Evidence.Text), "")
		if len(rc.Evidence.TraceIDs) > 0 {
			t.verbatim("    traces ", sanitize(strings.Join(rc.Evidence.TraceIDs, " ")))
		}
	}
}

// requestBreaksNote says what the request breaks are, with the least
// share a first cause must explain (Verdict.MinShare); a phrase: the
// Markdown and HTML print it as a sentence, requestBreaksSentence.
func requestBreaksNote(minShare float64) string {
	under := "the verdict's least share"
	if !math.IsNaN(minShare) {
		under = fmt.Sprintf("%.3g%%", 100*minShare)
	}
	return "services whose requests stopped doing what they did (most of them, or some for a step every baseline " +
		"request took; a test of each request's sequence of log lines and calls against the baseline's), the most " +
		"significant first; when no cause explains a share of the target's deviation (it barely moved, or the first " +
		"cause explains under " + under + "), the first of them ranks first, or the service two of them broke right " +
		"after calling (its answer changed)"
}

// requestBreaksSentence is requestBreaksNote as a sentence.
func requestBreaksSentence(minShare float64) string {
	n := requestBreaksNote(minShare)
	return strings.ToUpper(n[:1]) + n[1:] + "."
}

// causeRankText is where a request break's service stands among the
// shown causes.
func causeRankText(rank int) string {
	if rank <= 0 {
		return "not among the causes shown"
	}
	return fmt.Sprintf("cause #%d", rank)
}

func (t *textWriter) cause(cs Cause) {
	t.section(fmt.Sprintf("#%d %s", cs.Rank, truncate(sanitize(causeComponent(cs)+" "+cs.Signal), t.width-8)))
	conf := "confidence of its service " + fmtConf(cs.Confidence)
	if fmtConf(cs.Confidence) == "~" {
		conf = ""
	}
	state := sanitize(cs.State)
	if t.comparison {
		state = ""
	}
	meta := []string{sanitize(cs.Service), sanitize(cs.Severity), state, "score " + fmtScore(cs.Score), conf}
	t.para("  ", "  ", joinNonEmpty(meta, " · "), "")
	iv := cs.Intervention
	if iv.Target != "" {
		t.para("  do    ", "        ", fmt.Sprintf("%s := baseline: target %s → %s, explains %s %s",
			sanitize(iv.Target), fmtValue(iv.Observed, iv.Unit), fmtValue(iv.Counterfactual, iv.Unit),
			fmtShare(iv.ExplainedShare), fmtInterval(iv.Interval)), "")
	}
	if len(cs.Dimensions) > 0 {
		t.line("  dimensions")
		for _, d := range cs.Dimensions {
			t.line(fmt.Sprintf("    %s %s  weight %s  %s", pad(truncate(sanitize(d.Name), 20), 20), fmtFixed(d.Value, 2), fmtFixed(d.Weight, 2), bar(d.Value, 10)))
		}
	}
	if len(cs.Evidence) > 0 {
		t.line("  evidence")
		for _, e := range cs.Evidence {
			t.para("    • ", "      ", evidenceText(e), "")
			if e.Series != "" {
				t.verbatim("      series ", sanitize(e.Series))
			}
			if len(e.TraceIDs) > 0 {
				t.verbatim("      traces ", sanitize(strings.Join(e.TraceIDs, " ")))
			}
		}
	}
	switch {
	case len(cs.Path) > 1:
		t.para("  path  ", "        ", pathText(cs.Path), ansiCyan)
	case len(cs.Path) == 1:
		t.para("  path  ", "        ", noPathText, ansiDim)
	}
	if len(cs.NextSteps) > 0 {
		t.line("  next steps (printed, never run)")
		for _, st := range cs.NextSteps {
			t.step(st, "    ")
		}
	}
}

// evidenceText is one evidence bullet without its trace IDs.
func evidenceText(e Evidence) string {
	s := "[" + sanitize(e.Kind) + "] " + sanitize(e.Text)
	if fmtValue(e.Baseline, "") != "~" || fmtValue(e.Incident, "") != "~" {
		if e.Baseline != 0 || e.Incident != 0 {
			s += "; baseline " + fmtValue(e.Baseline, e.Unit) + " → incident " + fmtValue(e.Incident, e.Unit)
		}
	}
	if e.At != 0 {
		s += " at " + fmtTime(e.At)
	}
	return s
}

// bar is a 0..1 bar of n cells.
func bar(v float64, n int) string {
	v = clamp01(v)
	if v != v {
		return strings.Repeat("·", n)
	}
	full := int(v*float64(n) + 0.5)
	return strings.Repeat("■", full) + strings.Repeat("·", n-full)
}

func (t *textWriter) heatmaps(c *Card) {
	maps := cardHeatmaps(c)
	if len(maps) == 0 {
		return
	}
	t.section("Heatmaps")
	t.para("  ", "  ", heatLegendText(), "")
	t.heatBlock(maps)
}

// cardHeatmaps is the overview (when it has rows) and the bottleneck
// heatmaps, in display order.
func cardHeatmaps(c *Card) []Heatmap {
	var maps []Heatmap
	if len(c.Overview.Rows) > 0 {
		maps = append(maps, c.Overview)
	}
	return append(maps, c.Heatmaps...)
}

// heatTitle is a heatmap's caption: "Overview: …" or "#2 …".
func heatTitle(h Heatmap) string {
	if h.CauseRank == 0 {
		return "Overview: " + sanitize(h.Title)
	}
	return fmt.Sprintf("#%d %s", h.CauseRank, sanitize(h.Title))
}

// targetMark follows the incident target's row.
const targetMark = "◀ target"

// heatBlock writes the heatmaps on one time axis: the same label width and
// columns for all, each with its markers line, and one axis at the bottom.
func (t *textWriter) heatBlock(maps []Heatmap) {
	lw := 8
	for _, h := range maps {
		for _, r := range h.Rows {
			lw = max(lw, runeLen(depthLabel(r)))
		}
	}
	lw = min(lw, t.width-2-1-runeLen(targetMark)-2-20)
	avail := t.width - 2 - lw - 1 - runeLen(targetMark) - 2
	var last heatView
	for _, h := range maps {
		v := newHeatView(h, avail)
		last = v
		t.line("")
		t.line(t.paint(ansiBold, truncate("  "+heatTitle(h), t.width)))
		if v.Onset >= 0 || v.Alert >= 0 {
			m := []rune(strings.Repeat(" ", v.Cols))
			if v.Onset >= 0 {
				m[v.Onset] = '▼'
			}
			if v.Alert >= 0 {
				m[v.Alert] = '!'
			}
			t.line(strings.TrimRight("  "+strings.Repeat(" ", lw+1)+string(m), " "))
		}
		for i, row := range v.Cells {
			var sb strings.Builder
			for _, x := range row {
				lv := heatLevel(x)
				if lv < 0 {
					sb.WriteRune(heatNoData)
					continue
				}
				sb.WriteString(t.paint(fmt.Sprintf("38;5;%d", heatANSI[lv]), string(heatShades[lv])))
			}
			mark := ""
			if v.Rows[i].Target {
				mark = "  " + targetMark
			}
			t.line(strings.TrimRight("  "+pad(truncateMiddle(depthLabel(v.Rows[i]), lw), lw)+" "+sb.String()+mark, " "))
		}
		if h.Onset != 0 || h.Alert != 0 {
			t.para("  ", "  ", strings.TrimPrefix(markerText(h), "; "), ansiDim)
		}
	}
	t.line(strings.TrimRight("  "+strings.Repeat(" ", lw+1)+heatTicks(last), " "))
	t.para("  ", "  ", heatAxisText(last), ansiDim)
}

// heatTicks is the time axis under the columns: "|02:25     |02:30" with a
// tick every ten columns (at most every column's width allows).
func heatTicks(v heatView) string {
	every := 10
	r := []rune(strings.Repeat(" ", v.Cols+6))
	for c := 0; c < v.Cols; c += every {
		label := "|" + v.Start.Add(v.Slice*time.Duration(c)).Std().Format("15:04")
		for k, ch := range label {
			if c+k < len(r) {
				r[c+k] = ch
			}
		}
	}
	return strings.TrimRight(string(r), " ")
}

// depthLabel is a row label indented one space per depth level (at most 3).
func depthLabel(r HeatRow) string {
	return strings.Repeat(" ", min(max(r.Depth, 0), 3)) + sanitize(r.Label)
}

// truncateMiddle shortens s to n runes by eliding its middle, so that the
// end (a label's signal and facet) stays visible.
func truncateMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return truncate(s, n)
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// markerText is "; ▼ onset <t>; ! alert <t>" for the markers that are set.
func markerText(h Heatmap) string {
	s := ""
	if h.Onset != 0 {
		s += "; ▼ onset " + fmtTime(h.Onset)
	}
	if h.Alert != 0 {
		s += "; ! alert " + fmtTime(h.Alert)
	}
	return s
}

func (t *textWriter) footnotes(c *Card) {
	if len(c.Warnings) == 0 {
		return
	}
	t.section("Data quality")
	for i, f := range c.Warnings {
		first := fmt.Sprintf("  [%d] ", footnoteN(f, i))
		t.para(first, strings.Repeat(" ", runeLen(first)), footnoteText(f), ansiYellow)
	}
}

// footnoteText is "clock skew — jaeger.json (3×): message".
func footnoteText(f Footnote) string {
	s := sanitize(f.Kind)
	if f.Source != "" {
		s += " — " + sanitize(f.Source)
	}
	if f.Count > 1 {
		s += fmt.Sprintf(" (%d×)", f.Count)
	}
	return s + ": " + sanitize(f.Message)
}

// inputs lists every input: status and path (never split), then its
// format, size, contents and sha256 prefix, on the same line when they
// fit, else on the next.
func (t *textWriter) inputs(c *Card) {
	if len(c.Inputs) == 0 {
		return
	}
	t.section("Inputs")
	pw := 0
	for _, in := range c.Inputs {
		pw = max(pw, runeLen(sanitize(in.Path)))
	}
	pw = min(pw, t.width/2)
	for _, in := range c.Inputs {
		mark := "ok  "
		if in.Skipped {
			mark = "skip"
		}
		what := strings.Join([]string{sanitize(in.Format), fmtBytes(in.Size), inputCounts(in), "sha256 " + sha12(in.SHA256)}, " · ")
		path := sanitize(in.Path)
		head := "  " + mark + " " + pad(path, pw) + "  "
		switch {
		case runeLen(head)+runeLen(what) <= t.width:
			t.line(head + t.paint(ansiDim, what))
			continue
		case runeLen(path)+7 <= t.width:
			t.line("  " + mark + " " + path)
		default: // longer than a line: split at its '/' (wrap), never mid-name when a name fits
			t.para("  "+mark+" ", "       ", path, "")
		}
		t.para("         ", "         ", what, ansiDim)
	}
}

func (t *textWriter) inventory(c *Card) {
	if len(c.Inventory.Entities) == 0 {
		return
	}
	counts := map[string]int{}
	for _, e := range c.Inventory.Entities {
		counts[sanitize(e.Kind)]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	t.section("Inventory")
	t.para("  ", "  ", fmt.Sprintf("%d entities: %s", len(c.Inventory.Entities), strings.Join(parts, ", ")), "")
}

// manifest writes the rerun command, wrapped at argument boundaries with
// shell line continuations (so it pastes as it is), and the version; the
// inputs' hashes are the Inputs section's (full ones in -o json).
func (t *textWriter) manifest(c *Card) {
	m := c.Manifest
	if len(m.Args) == 0 && len(m.Inputs) == 0 && m.Version == "" {
		return
	}
	t.section("Rerun")
	if len(m.Args) > 0 {
		for _, l := range shellLines(m, t.width-6) {
			if runeLen(l)+2 > t.width { // one argument longer than a line
				t.para("  ", "      ", l, ansiCyan)
				continue
			}
			t.line("  " + t.paint(ansiCyan, l))
		}
	}
	t.para("  ", "  ", fmt.Sprintf("version %s; %d inputs pinned by sha256 (above; in full in -o json)", orDash(sanitize(m.Version)), len(m.Inputs)), "")
}

// shellLines is the manifest's command as "$ cmd a b \" lines of at most
// width runes, broken only between arguments.
func shellLines(m Manifest, width int) []string {
	var lines []string
	cur := "$"
	for i, a := range m.Args {
		q := shellQuote(sanitize(a))
		if i > 0 && runeLen(cur)+1+runeLen(q)+2 > width {
			lines = append(lines, cur+" \\")
			cur = "   "
		}
		cur += " " + q
	}
	return append(lines, cur)
}

// textCol is one column of a text table; min is the narrowest it may shrink to
// (0: never shrinks).
type textCol struct {
	head  string
	right bool
	min   int
}

// table writes an aligned table fitting the width, shrinking the widest
// shrinkable column one rune at a time and truncating cells with "…".
// colour(row, col) picks an SGR code for a cell ("" for none).
func (t *textWriter) table(cols []textCol, rows [][]string, colour func(row, col int) string) {
	w := make([]int, len(cols))
	for i, c := range cols {
		w[i] = runeLen(c.head)
		for _, r := range rows {
			w[i] = max(w[i], runeLen(r[i]))
		}
	}
	total := func() int {
		s := 2 + 2*(len(w)-1)
		for _, x := range w {
			s += x
		}
		return s
	}
	for total() > t.width {
		best := -1
		for i, c := range cols {
			if c.min > 0 && w[i] > c.min && (best < 0 || w[i] > w[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		w[best]--
	}
	cell := func(s string, i int) string {
		s = truncate(s, w[i])
		if cols[i].right {
			return strings.Repeat(" ", w[i]-runeLen(s)) + s
		}
		return pad(s, w[i])
	}
	var sb strings.Builder
	sb.WriteString("  ")
	for i, c := range cols {
		if i > 0 {
			sb.WriteString("  ")
		}
		sb.WriteString(cell(c.head, i))
	}
	t.line(t.paint(ansiDim, strings.TrimRight(sb.String(), " ")))
	for r, row := range rows {
		sb.Reset()
		sb.WriteString("  ")
		for i := range cols {
			if i > 0 {
				sb.WriteString("  ")
			}
			s := cell(row[i], i)
			if i == len(cols)-1 {
				s = strings.TrimRight(s, " ")
			}
			sb.WriteString(t.paint(colour(r, i), s))
		}
		t.line(sb.String())
	}
}

// runeLen is the display width of s, counting runes.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// pad right-pads s with spaces to n runes.
func pad(s string, n int) string {
	if d := n - runeLen(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// truncate shortens s to at most n runes, ending in "…" when cut.
func truncate(s string, n int) string {
	if runeLen(s) <= n {
		return s
	}
	if n <= 1 {
		return string([]rune(s)[:max(n, 0)])
	}
	return string([]rune(s)[:n-1]) + "…"
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(parts []string, sep string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// orDash is s or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// unexplainedText is the unexplained share in words ("12% of the target's
// deviation"); NaN when the target barely moved and nothing is a share.
func unexplainedText(u float64) string {
	if math.IsNaN(u) {
		return "~ (the target barely moved: no deviation to share out)"
	}
	return fmtShare(u) + " of the target's deviation"
}

// noPathText stands for a path that stops at the cause: no hop toward the
// target holds (causal.HopHolds).
const noPathText = "none that holds: no hop from it reaches a signal that moved, no earlier than it, toward the target"
