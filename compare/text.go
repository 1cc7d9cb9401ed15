package compare

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
)

func renderText(w io.Writer, r *model.Report, opt RenderOptions) error {
	if r.Mode == model.ModeCanary {
		return canary.RenderText(w, r, opt.Width)
	}
	t := &textWriter{render.NewText(w, opt.Width)}
	t.Wrap("", "  ", render.ToolLine(r))
	t.Blank()
	t.Section("Verdict")
	t.Wrap("  ", "  ", clean(r.Verdict.Text))
	t.Blank()
	t.Section("Windows")
	t.Field("before", sideText(r.Before))
	if r.Before.BaselineStart != 0 {
		t.Field("baseline", render.Window(r.Before.BaselineStart, r.Before.BaselineEnd)+" (BEFORE's data before its window: the band)")
	}
	t.Field("after", sideText(r.After))
	t.Field("settings", settingsText(r.Settings))
	t.Blank()
	t.Section("Target")
	t.findings([]model.Finding{r.Target}, false)
	if len(r.Causes) > 0 || r.CausesFrom != "" {
		t.Blank()
		title := "Causes of BEFORE"
		if r.CausesFrom != "" {
			title += " (" + clean(r.CausesFrom) + ")"
		}
		t.Wrap("", "  ", title)
		if len(r.Causes) == 0 {
			t.Line("  none")
		}
		t.findings(r.Causes, true)
	}
	t.Blank()
	t.Section("Regressions")
	if len(r.Regressions) == 0 {
		t.Line("  none")
	}
	t.findings(r.Regressions, true)
	t.Blank()
	t.Section("Improvements")
	if len(r.Improvements) == 0 {
		t.Line("  none")
	}
	t.findings(r.Improvements, true)
	if len(r.Watch) > 0 {
		t.Blank()
		t.Section("What to watch after the fix")
		for _, w := range r.Watch {
			t.Wrap("  ", "    ", clean(w.Label)+" ("+clean(string(w.Verdict))+" now): "+clean(w.Text))
			if w.Query != "" {
				t.Wrap("    PromQL: ", "      ", clean(w.Query))
			}
		}
	}
	if len(r.Traffic) > 0 {
		t.Blank()
		t.Section("Traffic")
		t.findings(r.Traffic, false)
	}
	t.Blank()
	t.Section("Items")
	t.Wrap("  ", "  ", countsText(r.Counts))
	t.plots(r)
	t.shape(r.RequestShape)
	t.heatmap(r.Heatmap)
	t.Warnings(r.Warnings)
	t.InputsAndRerun(r, true, fmt.Sprintf("version %s, seed %d", render.OrDash(clean(r.Manifest.Version)), r.Manifest.Seed))
	return t.EW.Err()
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
		t.Wrap(head, strings.Repeat(" ", utf8.RuneCountInString(head)), clean(f.Label))
		t.Wrap(strings.Repeat(" ", utf8.RuneCountInString(head)+2), strings.Repeat(" ", utf8.RuneCountInString(head)+2), clean(f.Text))
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
	t.Blank()
	t.Section("Distributions")
	for _, p := range r.Plots {
		it := byID[p.Item]
		if it == nil {
			continue
		}
		t.Wrap("  ", "    ", clean(p.Title))
		switch it.Kind {
		case model.KindDistribution:
			t.Line(fmt.Sprintf("    %-9s %8s %11s %11s %11s", "", "n", "p50", "p90", "p99"))
			row := func(name string, s model.Stats) {
				t.Line(fmt.Sprintf("    %-9s %8d %11s %11s %11s", name, s.N, value(s.P50, it.Unit), value(s.P90, it.Unit), value(s.P99, it.Unit)))
			}
			row("before", it.Before)
			row("after", it.After)
			if it.Band.Known {
				t.Line(fmt.Sprintf("    %-9s %8s %11s %11s %11s", "band ≤", "", value(it.Band.P50[1], it.Unit), value(it.Band.P90[1], it.Unit), value(it.Band.P99[1], it.Unit)))
			}
		default:
			t.Line(fmt.Sprintf("    %-9s %8s %11s %11s", "", "n", "median", "robust σ"))
			row := func(name string, s model.Stats) {
				t.Line(fmt.Sprintf("    %-9s %8d %11s %11s", name, s.N, value(s.Median, it.Unit), value(s.Scale, it.Unit)))
			}
			row("before", it.Before)
			row("after", it.After)
			if it.Band.Known {
				t.Line(fmt.Sprintf("    %-9s %8s %11s %11s", "band", "", value(it.Band.Level[0], it.Unit), value(it.Band.Level[1], it.Unit)))
			}
		}
	}
}

// heatmap writes the latency change by depth × time as shades.
func (t *textWriter) heatmap(h model.Heatmap) {
	if len(h.Rows) == 0 {
		return
	}
	t.Blank()
	t.Section("Latency change by call depth × time")
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
		labels[i] = truncate(d+" "+clean(row.Label), max(20, t.Width-cols-6))
		labelW = max(labelW, utf8.RuneCountInString(labels[i]))
	}
	for i, row := range h.Cells {
		var sb strings.Builder
		for _, v := range row {
			sb.WriteRune(heatShade(v))
		}
		t.Line(fmt.Sprintf("  %-*s %s", labelW, labels[i], sb.String()))
	}
	t.Wrap("  ", "  ", heatAxis(h, cols)+"; rows: depth and service, from the target along calls")
	t.Wrap("  ", "  ", heatLegend)
}

// truncate shortens s to n runes with a trailing "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
