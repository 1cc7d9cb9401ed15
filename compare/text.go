package compare

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// textWriter renders the terminal report within a width.
type textWriter struct {
	ew    *errWriter
	width int
}

func renderText(w io.Writer, r *model.Report, opt RenderOptions) error {
	if r.Mode == model.ModeCanary {
		return renderCanaryText(w, r, opt)
	}
	t := &textWriter{ew: reportfmt.NewErrWriter(w), width: opt.Width}
	t.wrap("", "  ", toolLine(r))
	t.blank()
	t.section("Verdict")
	t.wrap("  ", "  ", clean(r.Verdict.Text))
	t.blank()
	t.section("Windows")
	t.field("before", sideText(r.Before))
	if r.Before.BaselineStart != 0 {
		t.field("baseline", windowText(r.Before.BaselineStart, r.Before.BaselineEnd)+" (BEFORE's data before its window: the band)")
	}
	t.field("after", sideText(r.After))
	t.field("settings", settingsText(r.Settings))
	t.blank()
	t.section("Target")
	t.findings([]model.Finding{r.Target}, false)
	if len(r.Causes) > 0 || r.CausesFrom != "" {
		t.blank()
		title := "Causes of BEFORE"
		if r.CausesFrom != "" {
			title += " (" + clean(r.CausesFrom) + ")"
		}
		t.wrap("", "  ", title)
		if len(r.Causes) == 0 {
			t.line("  none")
		}
		t.findings(r.Causes, true)
	}
	t.blank()
	t.section("Regressions")
	if len(r.Regressions) == 0 {
		t.line("  none")
	}
	t.findings(r.Regressions, true)
	t.blank()
	t.section("Improvements")
	if len(r.Improvements) == 0 {
		t.line("  none")
	}
	t.findings(r.Improvements, true)
	if len(r.Watch) > 0 {
		t.blank()
		t.section("What to watch after the fix")
		for _, w := range r.Watch {
			t.wrap("  ", "    ", clean(w.Label)+" ("+clean(string(w.Verdict))+" now): "+clean(w.Text))
			if w.Query != "" {
				t.wrap("    PromQL: ", "      ", clean(w.Query))
			}
		}
	}
	if len(r.Traffic) > 0 {
		t.blank()
		t.section("Traffic")
		t.findings(r.Traffic, false)
	}
	t.blank()
	t.section("Items")
	t.wrap("  ", "  ", countsText(r.Counts))
	t.plots(r)
	t.shape(r.RequestShape)
	t.heatmap(r.Heatmap)
	t.warnings(r.Warnings)
	t.inputsAndRerun(r, true, fmt.Sprintf("version %s, seed %d", orDash(clean(r.Manifest.Version)), r.Manifest.Seed))
	return t.ew.Err()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (t *textWriter) line(s string) { t.ew.Printf("%s\n", s) }

func (t *textWriter) blank() { t.ew.Printf("\n") }

func (t *textWriter) section(s string) { t.line(s) }

// field writes "  name     value" with the value wrapped under itself.
func (t *textWriter) field(name, value string) {
	head := fmt.Sprintf("  %-9s ", name)
	t.wrap(head, strings.Repeat(" ", utf8.RuneCountInString(head)), clean(value))
}

// wrap writes s word-wrapped to the width, the first line after first and
// the others after rest. A word longer than a line is cut.
func (t *textWriter) wrap(first, rest, s string) {
	prefix, cur, wrote := first, "", false
	out := func() {
		t.line(strings.TrimRight(prefix+cur, " "))
		prefix, cur, wrote = rest, "", true
	}
	room := func() int { return max(8, t.width-utf8.RuneCountInString(prefix)) }
	for _, word := range strings.Fields(s) {
		for utf8.RuneCountInString(word) > room() {
			if cur != "" {
				out()
			}
			r := []rune(word)
			cur, word = string(r[:room()]), string(r[room():])
			out()
		}
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) > room() {
			out()
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	if cur != "" || !wrote {
		out()
	}
}

// findings writes one finding per entry: "  1  regressed  label", the
// change on the next line.
func (t *textWriter) findings(fs []model.Finding, ranked bool) {
	for _, f := range fs {
		head := "  "
		if ranked {
			head = fmt.Sprintf("  %2d ", f.Rank)
		}
		head += fmt.Sprintf("%-17s ", f.Verdict)
		t.wrap(head, strings.Repeat(" ", utf8.RuneCountInString(head)), clean(f.Label))
		t.wrap(strings.Repeat(" ", utf8.RuneCountInString(head)+2), strings.Repeat(" ", utf8.RuneCountInString(head)+2), clean(f.Text))
	}
}

// plots writes each plotted item's quantiles on both sides and its band.
func (t *textWriter) plots(r *model.Report) {
	if len(r.Plots) == 0 {
		return
	}
	byID := map[string]*model.Item{}
	for i := range r.Items {
		byID[r.Items[i].ID] = &r.Items[i]
	}
	t.blank()
	t.section("Distributions")
	for _, p := range r.Plots {
		it := byID[p.Item]
		if it == nil {
			continue
		}
		t.wrap("  ", "    ", clean(p.Title))
		switch it.Kind {
		case model.KindDistribution:
			t.line(fmt.Sprintf("    %-9s %8s %11s %11s %11s", "", "n", "p50", "p90", "p99"))
			row := func(name string, s model.Stats) {
				t.line(fmt.Sprintf("    %-9s %8d %11s %11s %11s", name, s.N, value(s.P50, it.Unit), value(s.P90, it.Unit), value(s.P99, it.Unit)))
			}
			row("before", it.Before)
			row("after", it.After)
			if it.Band.Known {
				t.line(fmt.Sprintf("    %-9s %8s %11s %11s %11s", "band ≤", "", value(it.Band.P50[1], it.Unit), value(it.Band.P90[1], it.Unit), value(it.Band.P99[1], it.Unit)))
			}
		default:
			t.line(fmt.Sprintf("    %-9s %8s %11s %11s", "", "n", "median", "robust σ"))
			row := func(name string, s model.Stats) {
				t.line(fmt.Sprintf("    %-9s %8d %11s %11s", name, s.N, value(s.Median, it.Unit), value(s.Scale, it.Unit)))
			}
			row("before", it.Before)
			row("after", it.After)
			if it.Band.Known {
				t.line(fmt.Sprintf("    %-9s %8s %11s %11s", "band", "", value(it.Band.Level[0], it.Unit), value(it.Band.Level[1], it.Unit)))
			}
		}
	}
}

// heatmap writes the latency change by depth × time as shades.
func (t *textWriter) heatmap(h model.Heatmap) {
	if len(h.Rows) == 0 {
		return
	}
	t.blank()
	t.section("Latency change by call depth × time")
	cols := 0
	for _, row := range h.Cells {
		cols = max(cols, len(row))
	}
	labelW := 0
	labels := make([]string, len(h.Rows))
	for i, row := range h.Rows {
		d := "?"
		if row.Depth >= 0 {
			d = itoa(row.Depth)
		}
		labels[i] = truncate(d+" "+clean(row.Label), max(20, t.width-cols-6))
		labelW = max(labelW, utf8.RuneCountInString(labels[i]))
	}
	for i, row := range h.Cells {
		var sb strings.Builder
		for _, v := range row {
			sb.WriteRune(heatShade(v))
		}
		t.line(fmt.Sprintf("  %-*s %s", labelW, labels[i], sb.String()))
	}
	t.wrap("  ", "  ", heatAxis(h, cols)+"; rows: depth and service, from the target along calls")
	t.wrap("  ", "  ", heatLegend)
}

// truncate shortens s to n runes with a trailing "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// warnings writes the numbered warnings section (nothing when none).
func (t *textWriter) warnings(fs []model.Footnote) {
	if len(fs) == 0 {
		return
	}
	t.blank()
	t.section("Warnings")
	for _, f := range fs {
		t.wrap(fmt.Sprintf("  [%d] ", f.N), "      ", footnoteText(f))
	}
}

// inputsAndRerun writes the inputs (with their side when sides) and the
// rerun command with its closing line.
func (t *textWriter) inputsAndRerun(r *model.Report, sides bool, closing string) {
	if len(r.Inputs) > 0 {
		t.blank()
		t.section("Inputs")
		for _, in := range r.Inputs {
			s := fmt.Sprintf("%s  %s  %s  %d bytes", clean(in.Path), clean(in.Format), sha12(in.SHA256), in.Size)
			rest := "    "
			if sides {
				s, rest = fmt.Sprintf("%-6s ", clean(in.Side))+s, "         "
			}
			if in.Skipped {
				s += "  skipped: " + clean(in.Error)
			}
			t.wrap("  ", rest, s)
		}
	}
	if len(r.Manifest.Args) > 0 {
		t.blank()
		t.section("Rerun")
		t.wrap("  ", "    ", commandLine(r.Manifest))
		t.wrap("  ", "  ", closing)
	}
}
