package compare

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

//go:embed compare.html.tmpl
var htmlSource string

// htmlTemplate is parsed once; html/template escapes every value by context.
var htmlTemplate = template.Must(template.New("compare").Parse(htmlSource))

// extraCSS is what the comparison page adds to the scorecard's style sheet.
const extraCSS = `.v-regressed { color: var(--crit); font-weight: 600; }
.v-fixed { color: #1a7f37; font-weight: 600; }
.v-improved { color: #1a7f37; }
.v-changed { color: var(--warn); }
.v-unchanged, .v-insufficient { color: var(--muted); }
.verdict.v-box-regressed { border-left-color: var(--crit); }
.verdict.v-box-fixed, .verdict.v-box-improved { border-left-color: #1a7f37; }
svg.ecdf .axis line, svg.ecdf .axis path { stroke: #57606a; stroke-width: 1; fill: none; }
svg.ecdf .grid { stroke: #eaeef2; stroke-width: 1; }
svg.ecdf .before { stroke: #2c7bb6; stroke-width: 2; fill: none; }
svg.ecdf .after { stroke: #d7191c; stroke-width: 2; fill: none; }
svg.ecdf .band { fill: #d0d7de; fill-opacity: 0.45; }
figure.plot { display: inline-block; vertical-align: top; width: 520px; margin: 8px 16px 8px 0; }
`

type htmlData struct {
	Watch    []htmlWatch
	CSS      template.CSS
	Title    string
	From     string
	Seed     uint64
	Rerun    bool
	Tool     string
	Verdict  string
	VClass   string
	Before   string
	Baseline string
	After    string
	Settings string
	Counts   string
	Target   []htmlFinding
	Causes   []htmlFinding
	Regs     []htmlFinding
	Imps     []htmlFinding
	Traffic  []htmlFinding
	Plots    []htmlPlot
	Heat     *htmlHeat
	Shape    template.HTML // the request-shape section's body (shape.go)
	Notes    []render.HTMLNote
	Inputs   []render.HTMLInput
	Command  string
	Version  string
}

type htmlFinding struct {
	Rank                        int
	Verdict, Class, Label, Text string
}

func findingsHTML(fs []model.Finding) []htmlFinding {
	out := make([]htmlFinding, len(fs))
	for i, f := range fs {
		out[i] = htmlFinding{Rank: f.Rank, Verdict: string(f.Verdict), Class: verdictClass(f.Verdict), Label: clean(f.Label), Text: clean(f.Text)}
	}
	return out
}

func renderHTML(w io.Writer, r *model.Report, _ RenderOptions) error {
	if r.Mode == model.ModeCanary {
		return canary.RenderHTML(w, r)
	}
	d := htmlData{
		CSS: reportfmt.StyleSheet() + template.CSS(extraCSS), Tool: render.ToolLine(r),
		Verdict: clean(r.Verdict.Text), VClass: verdictClass(r.Verdict.Verdict),
		Before: sideText(r.Before), After: sideText(r.After), Settings: settingsText(r.Settings), Counts: countsText(r.Counts),
		Target: findingsHTML([]model.Finding{r.Target}), Causes: findingsHTML(r.Causes), Regs: findingsHTML(r.Regressions),
		Imps: findingsHTML(r.Improvements), Traffic: findingsHTML(r.Traffic), Watch: watchHTML(r.Watch),
		Command: render.CommandLine(r.Manifest), Version: render.OrDash(clean(r.Manifest.Version)),
		Title: clean(r.Target.Label), From: clean(r.CausesFrom), Seed: r.Manifest.Seed, Rerun: len(r.Manifest.Args) > 0,
	}
	if r.Before.BaselineStart != 0 {
		d.Baseline = render.Window(r.Before.BaselineStart, r.Before.BaselineEnd)
	}
	for _, p := range r.Plots {
		d.Plots = append(d.Plots, newHTMLPlot(p))
	}
	if len(r.Heatmap.Rows) > 0 {
		h := newHTMLHeat(r.Heatmap)
		d.Heat = &h
	}
	d.Shape = shapeHTML(r.RequestShape)
	d.Notes, d.Inputs = render.NotesAndInputsHTML(r)
	return htmlTemplate.Execute(w, d)
}

// Plus adds for the template's geometry.
func (htmlData) Plus(a, b int) int { return a + b }

// PlotHeight is a plot area's height.
func (htmlData) PlotHeight(p htmlPlot) int { return p.Y1 - p.Y0 }

// htmlPlot is one ECDF figure's geometry.
type htmlPlot struct {
	Title, Unit, Axis       string
	W, H                    int
	Before, After           string // polyline points
	BandX, BandW            int
	HasBand                 bool
	X0, X1, Y0, Y1          int // plot area
	XTicks                  []htmlTick
	YTicks                  []htmlTick
	LegendY, LegendX, Leg2X int
}

type htmlTick struct {
	X, Y   int
	Text   string
	Anchor string // SVG text-anchor: start, middle or end
}

// ECDF plot geometry in px.
const (
	pW, pH           = 520, 230
	pLeft, pRight    = 52, 16
	pTop, pBottom    = 14, 46
	pTicks           = 5
	minPositive      = 1e-12
	bandMinVisiblePx = 2
)

// newHTMLPlot lays out the two ECDFs as step lines over a shared x axis
// (logarithmic when Plot.LogX), the band as a grey strip.
func newHTMLPlot(p model.Plot) htmlPlot {
	hp := htmlPlot{Title: clean(p.Title), Unit: clean(p.Unit), W: pW, H: pH, X0: pLeft, X1: pW - pRight, Y0: pTop, Y1: pH - pBottom}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pts := range [][][2]float64{p.Before, p.After} {
		for _, pt := range pts {
			lo, hi = math.Min(lo, pt[0]), math.Max(hi, pt[0])
		}
	}
	if math.IsInf(lo, 0) {
		return hp
	}
	if hi == lo {
		hi = lo + math.Max(1, math.Abs(lo))*0.01
	}
	tr := func(v float64) float64 {
		if p.LogX {
			return math.Log10(math.Max(v, minPositive))
		}
		return v
	}
	a, b := tr(lo), tr(hi)
	x := func(v float64) int {
		f := (tr(v) - a) / (b - a)
		f = math.Max(0, math.Min(1, f))
		return hp.X0 + int(math.Round(f*float64(hp.X1-hp.X0)))
	}
	y := func(s float64) int { return hp.Y1 - int(math.Round(s*float64(hp.Y1-hp.Y0))) }
	step := func(pts [][2]float64) string {
		var sb strings.Builder
		prevY := y(0)
		fmt.Fprintf(&sb, "%d,%d", hp.X0, prevY)
		for _, pt := range pts {
			px := x(pt[0])
			fmt.Fprintf(&sb, " %d,%d %d,%d", px, prevY, px, y(pt[1]))
			prevY = y(pt[1])
		}
		fmt.Fprintf(&sb, " %d,%d", hp.X1, prevY)
		return sb.String()
	}
	hp.Before, hp.After = step(p.Before), step(p.After)
	if bl, bh := p.Band[0], p.Band[1]; bl == bl && bh == bh {
		x0, x1 := x(bl), x(bh)
		hp.HasBand, hp.BandX, hp.BandW = true, x0, max(bandMinVisiblePx, x1-x0)
	}
	for k := range pTicks {
		f := float64(k) / float64(pTicks-1)
		v := a + f*(b-a)
		if p.LogX {
			v = math.Pow(10, v)
		}
		anchor := "middle"
		switch k {
		case 0:
			anchor = "start"
		case pTicks - 1:
			anchor = "end"
		}
		hp.XTicks = append(hp.XTicks, htmlTick{X: hp.X0 + int(math.Round(f*float64(hp.X1-hp.X0))), Y: hp.Y1 + 16, Text: value(v, p.Unit), Anchor: anchor})
	}
	for _, s := range []float64{0, 0.5, 1} {
		hp.YTicks = append(hp.YTicks, htmlTick{X: hp.X0 - 6, Y: y(s) + 4, Text: fix(s, 1)})
	}
	hp.Axis = "share of samples ≤ value"
	if p.LogX {
		hp.Axis += " (log scale)"
	}
	hp.LegendY = pH - 10
	hp.LegendX = hp.X0
	hp.Leg2X = hp.X0 + 110
	return hp
}

// htmlHeat is the heatmap's SVG geometry.
type htmlHeat struct {
	W, H, LegendY, LegendTY, LegendX0, LegendX1 int
	Labels                                      []htmlTick
	Cells, Legend                               []htmlRect
	Ticks                                       []htmlTick
	Axis                                        string
}

type htmlRect struct {
	X, Y, W, H int
	Fill, Tip  string
}

const (
	hCellH   = 18
	hTop     = 8
	hMaxGrid = 900
)

// newHTMLHeat lays out the heatmap: labels right-aligned left of the grid,
// cells coloured on the scorecard's blue→red scale (blue faster, red
// slower), ticks at up to six slice starts, a legend.
func newHTMLHeat(h model.Heatmap) htmlHeat {
	cols := 0
	for _, row := range h.Cells {
		cols = max(cols, len(row))
	}
	labelW := 60
	labels := make([]string, len(h.Rows))
	for i, row := range h.Rows {
		d := "?"
		if row.Depth >= 0 {
			d = itoa(row.Depth)
		}
		labels[i] = truncate(d+" "+clean(row.Label), 44)
		labelW = max(labelW, 7*len([]rune(labels[i]))+10)
	}
	cellW := 24
	if cols > 0 {
		cellW = max(4, min(24, hMaxGrid/cols))
	}
	out := htmlHeat{Axis: heatAxis(h, cols)}
	axisY := hTop + len(h.Rows)*hCellH
	for i, row := range h.Cells {
		yy := hTop + i*hCellH
		out.Labels = append(out.Labels, htmlTick{X: labelW - 6, Y: yy + 13, Text: labels[i]})
		for j, v := range row {
			tip := fmt.Sprintf("%s, slice %d: ", labels[i], j+1)
			if v != v {
				tip += "no data"
			} else {
				tip += "×" + fix(math.Pow(2, 2*v), 2)
			}
			out.Cells = append(out.Cells, htmlRect{X: labelW + j*cellW, Y: yy, W: cellW, H: hCellH - 1, Fill: heatFill(v), Tip: tip})
		}
	}
	for j, s := range durationTicks(cols, h.Slice) {
		if s != "" {
			out.Ticks = append(out.Ticks, htmlTick{X: labelW + j*cellW, Y: axisY + 14, Text: s})
		}
	}
	out.LegendY = axisY + 24
	out.LegendTY = out.LegendY + 9
	out.LegendX0 = labelW - 6
	for k := range 10 {
		v := -1 + (float64(k)+0.5)/5
		out.Legend = append(out.Legend, htmlRect{X: labelW + k*14, Y: out.LegendY, W: 14, H: 10, Fill: heatFill(v)})
	}
	out.LegendX1 = labelW + 10*14 + 6
	out.W = max(labelW+cols*cellW+20, out.LegendX1+140)
	out.H = out.LegendY + 16
	return out
}

// heatFill colours a cell of −1..1 (NaN: no data) on the scorecard scale.
func heatFill(v float64) string {
	if v != v {
		return reportfmt.HeatNoDataColor
	}
	return reportfmt.HeatColor((v + 1) / 2)
}

// htmlWatch is one watched item, cleaned for the page.
type htmlWatch struct {
	Label, Verdict, Text, Query, URL string
}

// watchHTML cleans the watch list for the page; a link that is not
// http(s) is left out.
func watchHTML(ws []model.Watch) []htmlWatch {
	var out []htmlWatch
	for _, w := range ws {
		hw := htmlWatch{Label: clean(w.Label), Verdict: clean(string(w.Verdict)), Text: clean(w.Text), Query: clean(w.Query)}
		if reportfmt.MarkdownSafeURL(w.URL) {
			hw.URL = w.URL
		}
		out = append(out, hw)
	}
	return out
}
