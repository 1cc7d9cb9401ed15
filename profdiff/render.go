package profdiff

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// The four renderers of a Report: text (a terminal within a width), json
// (the Report under its snake_case keys, NaN as null: docs/profdiff.schema.json),
// markdown (GitHub tables, every name escaped) and html (one self-contained
// page: the scorecard's style, tables and an inline-SVG chart of the
// largest changes). Text and Markdown show the first TopRows layers and
// kernels; JSON and HTML all of them.

// TopRows is how many layers and kernels text and Markdown list.
const TopRows = 20

// RenderOptions shape the output.
type RenderOptions struct {
	Width int // text width in runes (default 100)
}

// Formats are the names Render accepts.
func Formats() []string { return []string{"text", "json", "markdown", "html"} }

// Render writes r as format.
func Render(w io.Writer, r *Report, format string, opt RenderOptions) error {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	switch format {
	case "text":
		return renderText(w, r, opt)
	case "json":
		b, err := reportfmt.MarshalJSONValue(*r)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "markdown":
		return renderMarkdown(w, r)
	case "html":
		return renderHTML(w, r)
	}
	return fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(Formats(), ", "))
}

// fmtSec formats seconds at a fixed precision by magnitude ("~" for NaN).
func fmtSec(s float64) string {
	a := math.Abs(s)
	switch {
	case math.IsNaN(s):
		return "~"
	case a >= 10:
		return fmt.Sprintf("%.1fs", s)
	case a >= 1:
		return fmt.Sprintf("%.3fs", s)
	case a >= 1e-3:
		return fmt.Sprintf("%.2fms", s*1e3)
	case a >= 1e-6:
		return fmt.Sprintf("%.2fµs", s*1e6)
	case s == 0:
		return "0"
	}
	return fmt.Sprintf("%.0fns", s*1e9)
}

// fmtRatio formats a ratio: "×1.52" ("~" for NaN).
func fmtRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "~"
	}
	return fmt.Sprintf("×%.2f", r)
}

// fmtInterval formats an interval of ratios: "[1.49, 1.55]".
func fmtInterval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "[~]"
	}
	return fmt.Sprintf("[%.2f, %.2f]", lo, hi)
}

// fmtShare formats a share as a whole percent.
func fmtShare(s float64) string {
	if math.IsNaN(s) {
		return "~"
	}
	return fmt.Sprintf("%.0f%%", 100*s)
}

// fmtQ formats a q-value.
func fmtQ(q float64) string {
	switch {
	case math.IsNaN(q):
		return "~"
	case q < 1e-4:
		return "<1e-4"
	}
	return fmt.Sprintf("%.4f", q)
}

// clean strips control and bidi characters from input text (names come
// from the captures).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return -1
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
			return -1
		}
		return r
	}, s)
}

// cut shortens s to n runes, keeping both ends ("aten::conv…_kernel").
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n || n < 5 {
		return s
	}
	r := []rune(s)
	h := (n - 1) / 2
	return string(r[:h]) + "…" + string(r[len(r)-(n-1-h):])
}

// sideLine describes a side in one line.
func sideLine(s SideInfo) string {
	steps := "no step annotations"
	if s.Steps > 0 {
		steps = fmt.Sprintf("%d steps", s.Steps)
	}
	return fmt.Sprintf("%s (%s, %d rank(s), %d GPU activities, %s, GPU time %s)", strings.Join(s.Paths, " "), s.Format, s.Ranks, s.Kernels, steps, fmtSec(s.GPUSeconds))
}

// settingsLine states the decision rules.
func settingsLine(s Settings) string {
	return fmt.Sprintf("a change is called at Benjamini–Hochberg q < %g over %d tests (Welch's t on log times) with the median moved by at least %.0f%% and its %.0f%% bootstrap interval (%d replicates, seed %d) beyond 1; at least %d instances a side",
		s.Alpha, s.Tests, 100*s.MinRatio, 100*s.Level, s.Bootstrap, s.Seed, s.MinSamples)
}

// rowCells are a row's cells in text and Markdown: verdict, name, count,
// p50 before → after, ratio and interval, p95 before → after, share, q.
func rowCells(r Row, nameW int) []string {
	return []string{r.Verdict, cut(clean(r.Name), nameW), fmt.Sprintf("%d→%d", r.Base.Count, r.Cand.Count),
		fmtSec(r.Base.P50) + "→" + fmtSec(r.Cand.P50), fmtRatio(r.Ratio) + " " + fmtInterval(r.Lo, r.Hi),
		fmtSec(r.Base.P95) + "→" + fmtSec(r.Cand.P95), fmtShare(r.Base.Share) + "→" + fmtShare(r.Cand.Share), fmtQ(r.Q)}
}

var rowHeader = []string{"verdict", "name", "n", "p50", "median ratio", "p95", "share", "q"}

// refLine is a regression or improvement in words.
func refLine(f Ref) string {
	sign := "+"
	if f.PerStep < 0 {
		sign = ""
	}
	return fmt.Sprintf("%s %s %s, %s%s per step", f.Kind, clean(f.Name), fmtRatio(f.Ratio), sign, fmtSec(f.PerStep))
}

// rowText is a row in two lines: its verdict and name, then its numbers.
func rowText(r Row, width int) []string {
	head := fmt.Sprintf("%-17s %s", r.Verdict, cut(clean(r.Name), max(width-20, 16)))
	nums := fmt.Sprintf("n %d→%d · p50 %s→%s %s %s · p95 %s→%s · share %s→%s · q %s", r.Base.Count, r.Cand.Count,
		fmtSec(r.Base.P50), fmtSec(r.Cand.P50), fmtRatio(r.Ratio), fmtInterval(r.Lo, r.Hi), fmtSec(r.Base.P95), fmtSec(r.Cand.P95),
		fmtShare(r.Base.Share), fmtShare(r.Cand.Share), fmtQ(r.Q))
	if r.Base.SlowestRank >= 0 && !math.IsNaN(r.Cand.Spread) {
		nums += fmt.Sprintf(" · slowest rank %d (%s the median)", r.Cand.SlowestRank, fmtRatio(r.Cand.Spread))
	}
	out := []string{head}
	for _, l := range wrapText(nums, width-20) {
		out = append(out, strings.Repeat(" ", 18)+l)
	}
	return out
}

// renderText writes the terminal report.
func renderText(w io.Writer, r *Report, opt RenderOptions) error {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	para := func(first, rest, text string) {
		for i, l := range wrapText(text, opt.Width-utf8.RuneCountInString(first)) {
			p := first
			if i > 0 {
				p = rest
			}
			line("%s%s", p, l)
		}
	}
	line("pipeline-analyze compare --profile %s", clean(r.Tool.Version))
	line("")
	line("Verdict")
	para("  ", "  ", r.Verdict.Text)
	line("")
	line("Sides")
	para("  base  ", "        ", clean(sideLine(r.Base)))
	para("  cand  ", "        ", clean(sideLine(r.Cand)))
	para("  ", "  ", settingsLine(r.Settings))
	table := func(title string, rows []Row, all int) {
		line("")
		line("%s", title)
		if len(rows) == 0 {
			line("  none")
			return
		}
		for _, rw := range rows {
			for _, l := range rowText(rw, opt.Width-2) {
				line("  %s", l)
			}
		}
		if all > len(rows) {
			line("  … %d more in -o json", all-len(rows))
		}
	}
	steps := []Row{r.Step}
	if r.StepWall.Name != "" {
		steps = append(steps, r.StepWall)
	}
	table("Step", steps, 0)
	for _, s := range []struct {
		title string
		refs  []Ref
	}{{"Regressions", r.Regressions}, {"Improvements", r.Improvements}} {
		line("")
		line("%s", s.title)
		if len(s.refs) == 0 {
			line("  none")
		}
		for _, f := range s.refs {
			para("  ", "    ", refLine(f))
		}
	}
	table(fmt.Sprintf("Layers (the most baseline GPU time first, %d of %d)", min(TopRows, len(r.Layers)), len(r.Layers)), r.Layers[:min(TopRows, len(r.Layers))], len(r.Layers))
	table(fmt.Sprintf("Kernels (%d of %d)", min(TopRows, len(r.Kernels)), len(r.Kernels)), r.Kernels[:min(TopRows, len(r.Kernels))], len(r.Kernels))
	if len(r.BaseRanks) > 1 || len(r.CandRanks) > 1 {
		line("")
		line("Ranks (GPU time of the median step, against the median rank)")
		for _, s := range []struct {
			name  string
			ranks []RankStat
		}{{"base", r.BaseRanks}, {"cand", r.CandRanks}} {
			var parts []string
			for _, k := range s.ranks {
				parts = append(parts, fmt.Sprintf("%d %s %s", k.Rank, fmtSec(k.StepP50), fmtRatio(k.VsMedian)))
			}
			para("  "+s.name+"  ", "        ", strings.Join(parts, " · "))
		}
		for _, st := range r.Stragglers {
			para("  ", "    ", stragglerLine(st))
		}
	}
	if len(r.Warnings) > 0 {
		line("")
		line("Warnings")
		for i, w := range r.Warnings {
			para(fmt.Sprintf("  [%d] ", i+1), "      ", clean(w))
		}
	}
	if len(r.Args) > 0 {
		line("")
		line("Rerun")
		para("  $ ", "      ", clean(reportfmt.ShellCommand(r.Args)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stragglerLine is a straggler in words.
func stragglerLine(s Straggler) string {
	t := fmt.Sprintf("straggler (%s): rank %d's steps take %s the median rank's", s.Side, s.Rank, fmtRatio(s.VsMedian))
	if len(s.Layers) > 0 {
		t += "; the slowest rank of " + clean(strings.Join(s.Layers, ", "))
	}
	return t
}

// alignRows pads each column to its widest cell.
func alignRows(rows [][]string) []string {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	out := make([]string, len(rows))
	for k, r := range rows {
		var sb strings.Builder
		for i, c := range r {
			sb.WriteString(c)
			if i < len(r)-1 {
				sb.WriteString(strings.Repeat(" ", w[i]-utf8.RuneCountInString(c)+2))
			}
		}
		out[k] = sb.String()
	}
	return out
}

// wrapText splits text into lines of at most width runes at spaces (a word
// longer than a line stands alone).
func wrapText(text string, width int) []string {
	width = max(width, 20)
	var out []string
	cur := ""
	for _, word := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = word
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= width:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = word
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// mdEscape escapes a cell for GitHub Markdown: pipes, backticks, brackets,
// emphasis, mentions and HTML.
var mdReplacer = strings.NewReplacer("\\", "\\\\", "|", "\\|", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "@", "&#64;", "#", "\\#", "~", "\\~", "\n", " ")

func md(s string) string { return mdReplacer.Replace(clean(s)) }

// renderMarkdown writes the report as GitHub-flavoured Markdown.
func renderMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	table := func(rows []Row) {
		p("| %s |", strings.Join(rowHeader, " | "))
		p("|%s", strings.Repeat("---|", len(rowHeader)))
		for _, rw := range rows {
			cells := rowCells(rw, 200)
			for i := range cells {
				cells[i] = md(cells[i])
			}
			p("| %s |", strings.Join(cells, " | "))
		}
		p("")
	}
	p("## Profiler A/B")
	p("")
	p("**Verdict:** %s", md(r.Verdict.Text))
	p("")
	p("- base: %s", md(sideLine(r.Base)))
	p("- cand: %s", md(sideLine(r.Cand)))
	p("- %s", md(settingsLine(r.Settings)))
	p("")
	p("### Step")
	p("")
	steps := []Row{r.Step}
	if r.StepWall.Name != "" {
		steps = append(steps, r.StepWall)
	}
	table(steps)
	for _, s := range []struct {
		title string
		refs  []Ref
	}{{"Regressions", r.Regressions}, {"Improvements", r.Improvements}} {
		p("### %s", s.title)
		p("")
		if len(s.refs) == 0 {
			p("none")
		}
		for _, f := range s.refs {
			p("- %s", md(refLine(f)))
		}
		p("")
	}
	p("### Layers (%d of %d)", min(TopRows, len(r.Layers)), len(r.Layers))
	p("")
	table(r.Layers[:min(TopRows, len(r.Layers))])
	p("### Kernels (%d of %d)", min(TopRows, len(r.Kernels)), len(r.Kernels))
	p("")
	table(r.Kernels[:min(TopRows, len(r.Kernels))])
	if len(r.Stragglers) > 0 {
		p("### Stragglers")
		p("")
		for _, s := range r.Stragglers {
			p("- %s", md(stragglerLine(s)))
		}
		p("")
	}
	if len(r.Warnings) > 0 {
		p("### Warnings")
		p("")
		for i, w := range r.Warnings {
			p("%d. %s", i+1, md(w))
		}
		p("")
	}
	if len(r.Args) > 0 {
		fence := "```"
		for strings.Contains(reportfmt.ShellCommand(r.Args), fence) {
			fence += "`"
		}
		p("%ssh\n%s\n%s", fence, clean(reportfmt.ShellCommand(r.Args)), fence)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sortedRefs is every finding, regressions first (for the chart).
func sortedRefs(r *Report) []Ref {
	out := append(append([]Ref{}, r.Regressions...), r.Improvements...)
	slices.SortStableFunc(out, func(a, b Ref) int {
		la, lb := math.Abs(math.Log(a.Ratio)), math.Abs(math.Log(b.Ratio))
		switch {
		case la > lb:
			return -1
		case la < lb:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
