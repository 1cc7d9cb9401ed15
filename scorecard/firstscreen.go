package scorecard

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The text card's first screen: what an on-call reads at 3am, within about
// sixty lines at 100 columns — the incident and the metric that paged, the
// verdict with its counterfactual, what changed, the top TopRows
// components (one row each, signals listed, a sparkline, one line of
// evidence and the first next steps) and one line per further row. The
// rest (every cause's evidence, path and steps, heatmaps, footnotes,
// inputs, rerun) is -v, and one row's detail is `explain N`.

// TopRows is how many rows the first screen details.
const TopRows = 3

// maxOtherRows bounds the one-line rows after the top ones.
const maxOtherRows = 5

// maxTopSteps bounds each top row's next steps on the first screen.
const maxTopSteps = 2

// sparkWidth is the sparklines' width in columns.
const sparkWidth = 24

func (t *textWriter) firstScreen(c *Card) {
	t.line(t.paint(ansiBold, toolLine(c)))
	if c.Demo != "" {
		t.para("DEMO: ", "      ", sanitize(c.Demo), ansiYellow)
	}
	t.incidentBrief(c)
	t.verdict(c)
	t.whatChanged(c)
	t.rows(c)
	t.footer(c)
}

// incidentBrief is the Incident section of the first screen.
func (t *textWriter) incidentBrief(c *Card) {
	in := c.Incident
	t.section("Incident")
	if in.AlertName != "" || in.AlertAt != 0 {
		t.kv("alert", sanitize(in.AlertName)+" at "+fmtTime(in.AlertAt))
	}
	p := in.Paged
	what := targetText(in.Target)
	if in.TargetChosenBy != "" {
		what += ", chosen by " + sanitize(in.TargetChosenBy)
	}
	t.kv("target", what)
	if p.Series != "" {
		t.verbatim("  series     ", sanitize(p.Series))
	}
	if p.Text != "" {
		line := sanitize(p.Text)
		if s := sparkline(p.Chart, sparkWidth); s != "" {
			line += "  " + s
		}
		t.kv("", line)
	}
	if in.At != in.AlertAt || in.AlertAt == 0 {
		at := fmtTime(in.At)
		if in.AtChosenBy != "" {
			at += " (" + sanitize(in.AtChosenBy) + ")"
		}
		t.kv("at", at)
	}
	t.kv("window", briefWindow(in))
	t.shapeBrief(c)
	if in.RunbookURL != "" {
		t.verbatim("  runbook    ", sanitize(in.RunbookURL))
	}
	// What the flags did against the data is said where it is read.
	for _, f := range c.Warnings {
		switch {
		case f.Kind == FootnoteContext:
			t.para("  note       ", "             ", sanitize(f.Message), ansiYellow)
		case strings.HasPrefix(f.Source, "live"):
			// a live source that failed changes what the card can say
			t.para("  note       ", "             ", footnoteText(f), ansiYellow)
		}
	}
}

// FootnoteContext is the kind of a footnote about the user's context (the
// flags against the data, the alert against the flags): the first screen
// shows it.
const FootnoteContext = "context"

// verbatim writes prefix and s on one line, never wrapped: a name, an ID,
// a URL or a query is copied whole, whatever its length.
func (t *textWriter) verbatim(prefix, s string) { t.line(prefix + s) }

// maxChangeLines bounds the changes on the first screen.
const maxChangeLines = 3

// whatChanged is the first screen's "What changed": the paged series'
// move, then the look-back's changes (Card.Changes) one line each — those
// the analysis blames first, then the latest — and how many more -v lists.
func (t *textWriter) whatChanged(c *Card) {
	t.section("What changed")
	if c.Incident.Paged.Text != "" {
		t.para("  • ", "    ", sanitize(c.Incident.Paged.Text)+" (the metric that paged)", "")
	}
	if len(c.Changes) == 0 {
		t.para("  • ", "    ", "no rollout, configuration update or change record in the look-back of the inputs", ansiDim)
		return
	}
	order := make([]int, len(c.Changes))
	for i := range order {
		order[i] = len(c.Changes) - 1 - i // the latest first
	}
	blamed := func(i int) bool { return c.Changes[i].Verdict == causal.ChangeBlamed }
	sort.SliceStable(order, func(a, b int) bool { return blamed(order[a]) && !blamed(order[b]) })
	for _, i := range order[:min(maxChangeLines, len(order))] {
		code := ""
		if blamed(i) {
			code = ansiBold
		}
		// one line each: the why is prose, cut to fit (-v has it whole)
		t.line(t.paint(code, truncate("  • "+sanitize(briefChange(c.Changes[i])), t.width)))
	}
	if n := len(c.Changes) - maxChangeLines + c.OlderChanges; n > 0 {
		t.line(t.paint(ansiDim, fmt.Sprintf("  … %d more %s (-v)", n, plural(n, "change", "changes"))))
	}
}

// rows is the ranked components: the top ones in detail, then one line each.
func (t *textWriter) rows(c *Card) {
	t.section("Ranked components, one row each")
	if len(c.Rows) == 0 {
		t.line("  none")
		return
	}
	for _, r := range c.Rows[:min(TopRows, len(c.Rows))] {
		t.topRow(c, r)
	}
	if rest := c.Rows[min(TopRows, len(c.Rows)):]; len(rest) > 0 {
		t.line("")
		cols := []textCol{{head: "#", right: true}, {head: "component", min: 12}, {head: "service", min: 6},
			{head: "signals", min: 8}, {head: "conf", right: true}, {head: "explained", right: true}}
		var rows [][]string
		for _, r := range rest[:min(maxOtherRows, len(rest))] {
			rows = append(rows, []string{fmt.Sprint(r.Rank), sanitize(componentName(r.ComponentKind, r.Component)), sanitize(r.Service),
				sanitize(strings.Join(r.Signals, ", ")), fmtConf(r.Confidence), fmtShare(r.ExplainedShare)})
		}
		if t.comparison {
			for i := range rows {
				rows[i] = rows[i][:4]
			}
			cols = cols[:4]
		}
		t.table(cols, rows, func(int, int) string { return "" })
		if n := len(rest) - maxOtherRows; n > 0 {
			t.line(fmt.Sprintf("  … %d more %s (-v)", n, plural(n, "row", "rows")))
		}
	}
	if !t.comparison {
		if n := moreExplaining(c.Rows); n > 0 {
			r := c.Rows[n-1]
			t.para("  ", "  ", fmt.Sprintf("#%d explains more (%s) than #1 (%s): confidence is where a mechanism changed, not how much (guide)",
				n, fmtShare(r.ExplainedShare), fmtShare(c.Rows[0].ExplainedShare)), ansiDim)
		}
		t.para("  ", "  ", "unexplained: "+unexplainedText(c.Unexplained)+" remains with every candidate at its baseline", ansiDim)
	}
}

// topRow is one of the first screen's detailed rows: its component,
// service, numbers and sparkline, its signals, one line of evidence and its
// first next steps, each command or query on a line of its own.
func (t *textWriter) topRow(c *Card, r Row) {
	t.line("")
	head := fmt.Sprintf("#%d %s · %s", r.Rank, sanitize(componentName(r.ComponentKind, r.Component)), sanitize(r.Service))
	t.para("  ", "     ", head+" · signals "+sanitize(strings.Join(r.Signals, ", ")), ansiBold)
	var nums []string
	if !t.comparison {
		nums = append(nums, "confidence "+fmtConf(r.Confidence), "explains "+fmtShare(r.ExplainedShare))
	}
	if r.Onset != 0 {
		on := "onset " + shortTime(r.Onset, c.Incident.WindowStart)
		if r.AfterAlert {
			on += " (after the alert: more likely an effect)"
		}
		nums = append(nums, on)
	}
	t.para("     ", "     ", strings.Join(nums, " · "), "")
	if s := sparkline(r.Chart, sparkWidth); s != "" {
		t.line(truncate("     "+s+"  "+sanitize(sparkCaption(r.Chart)), t.width))
	}
	if r.Evidence != "" {
		t.line(t.paint(ansiDim, truncate("     "+sanitize(r.Evidence), t.width)))
	}
	cs := causeByRank(c, firstOr(r.Causes, 0))
	if cs == nil {
		return
	}
	var steps []Step
	for _, st := range cs.NextSteps {
		if st.URL != "" && st.URL == c.Incident.RunbookURL {
			continue // the incident's runbook line has it
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return
	}
	for _, st := range steps[:min(maxTopSteps, len(steps))] {
		t.step(st, "     ")
	}
	if n := len(steps) - maxTopSteps; n > 0 {
		t.line(fmt.Sprintf("     … %d more %s: explain %d", n, plural(n, "step", "steps"), r.Rank))
	}
}

// step writes one next step: its kind and why on one line, then the
// command (after "$ "), the query or the link alone on the next, never
// wrapped, so it pastes as it is.
func (t *textWriter) step(st Step, indent string) {
	why := sanitize(st.Text)
	if st.Where != "" {
		why += " (" + sanitize(st.Where) + ")"
	}
	kind := st.Kind
	if st.Kind == StepMitigate {
		kind = "mitigate (changes the cluster)"
	}
	switch {
	case st.Command != "":
		t.para(indent+kind+": ", indent+"  ", why+":", "")
		t.verbatim(indent+"  $ ", sanitize(st.Command))
	case st.Query != "":
		t.para(indent+kind+": ", indent+"  ", why+" — PromQL:", "")
		t.verbatim(indent+"  ", sanitize(st.Query))
	case st.URL != "":
		t.para(indent+kind+": ", indent+"  ", why+":", "")
		t.verbatim(indent+"  ", sanitize(st.URL))
	default:
		t.para(indent+kind+": ", indent+"  ", why, "")
	}
}

// footer says where the rest is.
func (t *textWriter) footer(c *Card) {
	t.line("")
	parts := []string{fmt.Sprintf("%d rows of %d signals (%d candidates)", len(c.Rows), len(c.Causes), c.Pruned.Total)}
	if n := len(c.Warnings); n > 0 {
		parts = append(parts, fmt.Sprintf("%d data %s", n, plural(n, "note", "notes")))
	}
	parts = append(parts, "details: -v, or explain N")
	t.para("  ", "  ", strings.Join(parts, " · "), ansiDim)
}

// shortTime is t as "16:19:30Z" when it falls on the same day as ref,
// else in full.
func shortTime(t, ref ingest.Time) string {
	if t == 0 {
		return "-"
	}
	if ref != 0 && t.Std().Format("2006-01-02") == ref.Std().Format("2006-01-02") {
		return t.Std().Format("15:04:05Z")
	}
	return fmtTime(t)
}

// briefWindow is the window and the baseline on one line:
// "2026-11-09 16:18:15 → 16:23:15 UTC (5m0s); baseline from 15:44:00 (34m15s)".
func briefWindow(in Incident) string {
	if in.WindowStart == 0 && in.WindowEnd == 0 {
		return "-"
	}
	s := in.WindowStart.Std().Format("2006-01-02 15:04:05") + " → " + strings.TrimSuffix(shortTime(in.WindowEnd, in.WindowStart), "Z") +
		" UTC (" + in.WindowEnd.Sub(in.WindowStart).String() + ")"
	if in.BaselineStart != 0 && in.BaselineStart < in.WindowStart {
		s += "; baseline from " + strings.TrimSuffix(shortTime(in.BaselineStart, in.WindowStart), "Z") + " (" +
			in.WindowStart.Sub(in.BaselineStart).Round(time.Second).String() + ")"
	}
	return s
}

// causeByRank is the cause of that rank, nil when none.
func causeByRank(c *Card, rank int) *Cause {
	for i := range c.Causes {
		if c.Causes[i].Rank == rank {
			return &c.Causes[i]
		}
	}
	return nil
}

func firstOr(xs []int, def int) int {
	if len(xs) == 0 {
		return def
	}
	return xs[0]
}

// sparkShades are the sparkline's eight levels.
var sparkShades = []rune("▁▂▃▄▅▆▇█")

// sparkline draws a chart's values in n columns (each the mean of its
// samples), scaled between their minimum and maximum; "·" where a column
// has no sample; "" when the chart has fewer than two samples.
func sparkline(ch Chart, n int) string {
	vals := ch.Values
	if len(vals) < 2 {
		return ""
	}
	cols := min(n, len(vals))
	col := make([]float64, cols)
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range col {
		a, b := k*len(vals)/cols, (k+1)*len(vals)/cols
		sum, cnt := 0.0, 0
		for _, v := range vals[a:b] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum += v
				cnt++
			}
		}
		col[k] = math.NaN()
		if cnt > 0 {
			col[k] = sum / float64(cnt)
			lo, hi = math.Min(lo, col[k]), math.Max(hi, col[k])
		}
	}
	if math.IsInf(lo, 1) {
		return ""
	}
	var sb strings.Builder
	for _, v := range col {
		switch {
		case math.IsNaN(v):
			sb.WriteRune('·')
		case hi <= lo:
			sb.WriteRune(sparkShades[0])
		default:
			sb.WriteRune(sparkShades[int(math.Round((v-lo)/(hi-lo)*float64(len(sparkShades)-1)))])
		}
	}
	return sb.String()
}

// sparkCaption says what a sparkline spans: "16:13–16:23, 0.13 → 0.24 cores".
func sparkCaption(ch Chart) string {
	if len(ch.Values) == 0 {
		return ""
	}
	end := ch.Start + ingest.Time(int64(ch.Step)*int64(len(ch.Values)-1))
	s := ch.Start.Std().Format("15:04") + "–" + end.Std().Format("15:04")
	if !math.IsNaN(ch.Baseline) {
		last := math.NaN()
		for _, v := range ch.Values {
			if !math.IsNaN(v) {
				last = v
			}
		}
		s += ", baseline " + fmtValue(ch.Baseline, ch.Unit) + ", last " + fmtValue(last, ch.Unit)
	}
	return s
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// moreExplaining is the rank of the first row that explains clearly more
// of the deviation than the first row (10 points), 0 when none does.
func moreExplaining(rows []Row) int {
	if len(rows) < 2 || math.IsNaN(rows[0].ExplainedShare) {
		return 0
	}
	for _, r := range rows[1:] {
		if !math.IsNaN(r.ExplainedShare) && r.ExplainedShare > rows[0].ExplainedShare+0.1 {
			return r.Rank
		}
	}
	return 0
}

// briefChange is a change in one line with its verdict before its why:
// "10:43:16 recommendationservice, 4m44s before the onset — blamed: rollout
// to recommendationservice-v2 (…)".
func briefChange(ch ChangeRow) string {
	at := ch.At
	if t, err := time.Parse(time.RFC3339, ch.At); err == nil {
		at = t.Format("15:04:05")
	}
	return fmt.Sprintf("%s %s, %s — %s: %s", at, ch.Service, ch.Relation, ch.Verdict, ch.What)
}
