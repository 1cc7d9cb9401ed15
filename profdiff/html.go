package profdiff

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// htmlRow is a row's cells for the page.
type htmlRow struct {
	Class string
	Cells []string
}

// htmlBar is one bar of the chart of the largest changes: a log-scale bar
// from the ×1 axis, red for slower, blue for faster.
type htmlBar struct {
	Label                string
	X, Y, W, TextX, TY   int
	Fill, Text, TextSide string
}

type htmlPage struct {
	CSS                   template.CSS
	Version, Verdict      string
	Base, Cand, Settings  string
	Steps, Layers, Kernel []htmlRow
	Header                []string
	Regs, Imps, Straggle  []string
	Bars                  []htmlBar
	ChartW, ChartH, Axis  int
	Warnings              []string
	Rerun                 string
}

// tableData is what the table template ranges over.
type tableData struct {
	Header []string
	Rows   []htmlRow
}

var pageTemplate = template.Must(template.New("profdiff").Funcs(template.FuncMap{
	"dict": func(h []string, rows []htmlRow) tableData { return tableData{h, rows} },
}).Parse(pageSource()))

// pageSource is the template's text, with the table called on its data.
func pageSource() string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Profiler A/B</title>
<style>{{.CSS}}
tr.slower td:first-child { color: #b42318; font-weight: 600; }
tr.faster td:first-child { color: #1a7f37; font-weight: 600; }
</style></head><body>
<header><h1>Profiler A/B</h1><p class="muted">pipeline-analyze compare --profile {{.Version}}</p></header>
<section id="verdict"><h2>Verdict</h2><p><strong>{{.Verdict}}</strong></p>
<ul><li>base: {{.Base}}</li><li>cand: {{.Cand}}</li></ul><p class="muted">{{.Settings}}</p></section>
{{- define "table"}}<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{- range .Rows}}<tr class="{{.Class}}">{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
<section id="step"><h2>Step</h2>{{template "table" (dict .Header .Steps)}}</section>
{{- if .Bars}}
<section id="changes"><h2>Largest changes</h2>
<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{{.ChartW}}" height="{{.ChartH}}" viewBox="0 0 {{.ChartW}} {{.ChartH}}" role="img" aria-label="largest changes, median ratio on a log scale">
<line x1="{{.Axis}}" y1="0" x2="{{.Axis}}" y2="{{.ChartH}}" stroke="#57606a"/>
{{- range .Bars}}
<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="14" fill="{{.Fill}}"><title>{{.Label}} {{.Text}}</title></rect><text x="{{.TextX}}" y="{{.TY}}" text-anchor="{{.TextSide}}">{{.Label}} {{.Text}}</text>
{{- end}}
</svg></section>
{{- end}}
<section id="findings"><h2>Regressions</h2>{{if .Regs}}<ul>{{range .Regs}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
<h2>Improvements</h2>{{if .Imps}}<ul>{{range .Imps}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}</section>
{{- if .Straggle}}<section id="ranks"><h2>Stragglers</h2><ul>{{range .Straggle}}<li>{{.}}</li>{{end}}</ul></section>{{end}}
<section id="layers"><h2>Layers</h2>{{template "table" (dict .Header .Layers)}}</section>
<section id="kernels"><h2>Kernels</h2>{{template "table" (dict .Header .Kernel)}}</section>
{{- if .Warnings}}<section id="warnings"><h2>Warnings</h2><ol>{{range .Warnings}}<li>{{.}}</li>{{end}}</ol></section>{{end}}
{{- if .Rerun}}<section id="rerun"><h2>Rerun</h2><pre><code>{{.Rerun}}</code></pre></section>{{end}}
</body></html>
`
}

// renderHTML writes the report as one self-contained page.
func renderHTML(w io.Writer, r *Report) error {
	rows := func(rs []Row) []htmlRow {
		out := make([]htmlRow, len(rs))
		for i, rw := range rs {
			out[i] = htmlRow{Class: map[string]string{Slower: "slower", Faster: "faster"}[rw.Verdict], Cells: rowCells(rw, 160)}
		}
		return out
	}
	d := htmlPage{CSS: reportfmt.StyleSheet(), Version: clean(r.Tool.Version), Verdict: r.Verdict.Text,
		Base: clean(sideLine(r.Base)), Cand: clean(sideLine(r.Cand)), Settings: settingsLine(r.Settings), Header: rowHeader,
		Layers: rows(r.Layers), Kernel: rows(r.Kernels)}
	steps := []Row{r.Step}
	if r.StepWall.Name != "" {
		steps = append(steps, r.StepWall)
	}
	d.Steps = rows(steps)
	for _, f := range r.Regressions {
		d.Regs = append(d.Regs, refLine(f))
	}
	for _, f := range r.Improvements {
		d.Imps = append(d.Imps, refLine(f))
	}
	for _, s := range r.Stragglers {
		d.Straggle = append(d.Straggle, stragglerLine(s))
	}
	for _, wn := range r.Warnings {
		d.Warnings = append(d.Warnings, clean(wn))
	}
	if len(r.Args) > 0 {
		d.Rerun = clean(reportfmt.ShellCommand(r.Args))
	}
	// The chart: the largest changes, a log2 scale of ±3 (×8) across 300 px.
	const half, top = 300, 10
	d.ChartW, d.Axis = 2*half+40, half+20
	for i, f := range sortedRefs(r)[:min(20, len(r.Regressions)+len(r.Improvements))] {
		l := math.Max(-3, math.Min(3, math.Log2(f.Ratio)))
		wpx := int(math.Abs(l) / 3 * half)
		b := htmlBar{Label: cut(clean(f.Name), 40), Y: top + 18*i, W: max(wpx, 1), Text: fmtRatio(f.Ratio), TY: top + 18*i + 11}
		if l >= 0 {
			b.X, b.Fill, b.TextX, b.TextSide = d.Axis, "#d7191c", d.Axis-4, "end"
		} else {
			b.X, b.Fill, b.TextX, b.TextSide = d.Axis-wpx, "#2c7bb6", d.Axis+4, "start"
		}
		d.Bars = append(d.Bars, b)
	}
	d.ChartH = top + 18*len(d.Bars) + 6
	if err := pageTemplate.Execute(w, d); err != nil {
		return fmt.Errorf("profdiff html: %w", err)
	}
	return nil
}
