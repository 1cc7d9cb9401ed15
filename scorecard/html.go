package scorecard

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"reflect"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
)

//go:embed card.html.tmpl
var htmlSource string

// htmlTemplate is parsed once; html/template escapes every value by context,
// so input-derived strings can never become markup.
var htmlTemplate = template.Must(template.New("card").Parse(htmlSource))

// htmlData is the template's view of a Card: the Card itself plus every
// derived string and the geometry of the SVG figures, computed in Go.
type htmlData struct {
	CSS         template.CSS
	Card        *Card
	ToolLine    string
	TargetText  string
	VerdictText string
	At          string
	Alert       string
	Window      string
	Baseline    string
	Unexplained string
	Pruned      string
	Causes      []htmlCause
	// Rows are the ranked components, one row each, the first with charts.
	Rows []htmlRow
	// RequestBreaks: each service's most broken request pattern.
	RequestBreaks []htmlRequestBreak
	RequestNote   string
	// Changes: what changed, one line each.
	Changes      []string
	Graph        htmlGraph
	Heatmaps     []htmlHeat
	Footnotes    []htmlFootnote
	Inputs       []htmlInput
	ShowManifest bool
	Command      string
	Comparison   bool // a comparison method: no confidence, counterfactual or state columns
	HeatLegend   string
	Shape        template.HTML // the request-shape section's body (reportview.ShapeHTML); empty without one
}

type htmlCause struct {
	C            Cause
	Component    string
	SevClass     string
	Score        string
	Conf         string
	Explained    string
	Summary      string
	Intervention string
	Dims         []htmlDim
	Evidence     []htmlEvidence
	Path         string
	Steps        []htmlStep
}

// htmlStep is one next step: its kind, its command (or query, or link) and
// why.
type htmlStep struct {
	Kind, Command, Query, URL, Text string
}

type htmlDim struct {
	Name, Value, Weight string
	BarPx               int
}

type htmlEvidence struct {
	Text     string
	TraceIDs []htmlTrace
}

// htmlRequestBreak is a request change of the card, its strings ready.
type htmlRequestBreak struct {
	Service, Rank string
	Evidence      htmlEvidence
}

// htmlTrace is a trace ID and, with RenderOptions.TraceURL, its Jaeger UI
// link.
type htmlTrace struct {
	ID, URL string
}

type htmlFootnote struct {
	N    int
	Text string
}

type htmlInput struct {
	Path, Format, SHA, SHA12, Range, Counts string
	Size                                    int64
}

func renderHTML(w io.Writer, c *Card, opt RenderOptions) error {
	c = sanitizedCopy(c)
	in := c.Incident
	d := htmlData{
		CSS:         reportfmt.StyleSheet(),
		Card:        c,
		Rows:        newHTMLRows(c),
		ToolLine:    toolLine(c),
		TargetText:  targetText(in.Target),
		VerdictText: sanitize(c.Verdict.Text),
		At:          fmtTime(in.At),
		Window:      windowText(in),
		Baseline:    fmtRange(in.BaselineStart, in.BaselineEnd),
		Unexplained: unexplainedText(c.Unexplained),
		Pruned:      prunedText(c.Pruned),
		Graph:       newHTMLGraph(c.Causes, 3),
		Command:     commandLine(c.Manifest),
		Comparison:  isComparison(c),
		HeatLegend:  heatLegendHTML(),
	}
	for _, ch := range c.Changes {
		d.Changes = append(d.Changes, changeLine(ch))
	}
	if d.VerdictText == "" {
		d.VerdictText = "no confident root cause"
	}
	if in.AlertName != "" || in.AlertAt != 0 {
		d.Alert = sanitize(in.AlertName) + " at " + fmtTime(in.AlertAt)
		if in.RunbookURL != "" {
			d.Alert += " · runbook " + sanitize(in.RunbookURL)
		}
	}
	m := c.Manifest
	d.ShowManifest = len(m.Args) > 0 || len(m.Inputs) > 0 || m.Version != ""
	for _, cs := range c.Causes {
		hc := htmlCause{
			C:         cs,
			Component: sanitize(causeComponent(cs)),
			SevClass:  sevClass(cs.Severity),
			Score:     fmtScore(cs.Score),
			Conf:      fmtConf(cs.Confidence),
			Explained: strings.TrimSpace(fmtShare(cs.Intervention.ExplainedShare) + " " + fmtInterval(cs.Intervention.Interval)),
			Summary: joinNonEmpty([]string{sanitize(cs.Service), sanitize(cs.State),
				"score " + fmtScore(cs.Score), "confidence " + fmtConf(cs.Confidence)}, " · "),
			Path: pathText(cs.Path),
		}
		if iv := cs.Intervention; iv.Target != "" {
			hc.Intervention = fmt.Sprintf("do(%s := baseline): target %s → %s, explains %s %s", sanitize(iv.Target),
				fmtValue(iv.Observed, iv.Unit), fmtValue(iv.Counterfactual, iv.Unit), fmtShare(iv.ExplainedShare), fmtInterval(iv.Interval))
		}
		for _, dm := range cs.Dimensions {
			px := 0
			if v := clamp01(dm.Value); v == v {
				px = int(v*80 + 0.5)
			}
			hc.Dims = append(hc.Dims, htmlDim{Name: sanitize(dm.Name), Value: fmtFixed(dm.Value, 2), Weight: fmtFixed(dm.Weight, 2), BarPx: px})
		}
		for _, e := range cs.Evidence {
			ids := make([]htmlTrace, len(e.TraceIDs))
			for i, id := range e.TraceIDs {
				ids[i] = htmlTrace{ID: sanitize(id), URL: opt.traceLink(sanitize(id))}
			}
			hc.Evidence = append(hc.Evidence, htmlEvidence{Text: evidenceText(e), TraceIDs: ids})
		}
		for _, st := range cs.NextSteps {
			text := st.Text
			if st.Where != "" {
				text += " (" + st.Where + ")"
			}
			hc.Steps = append(hc.Steps, htmlStep{Kind: sanitize(st.Kind), Command: sanitize(st.Command), Query: sanitize(st.Query),
				URL: safeURL(st.URL), Text: sanitize(text)})
		}
		d.Causes = append(d.Causes, hc)
	}
	for _, rc := range c.RequestBreaks {
		ids := make([]htmlTrace, len(rc.Evidence.TraceIDs))
		for i, id := range rc.Evidence.TraceIDs {
			ids[i] = htmlTrace{ID: id, URL: opt.traceLink(id)}
		}
		d.RequestBreaks = append(d.RequestBreaks, htmlRequestBreak{Service: rc.Service, Rank: causeRankText(rc.CauseRank),
			Evidence: htmlEvidence{Text: rc.Evidence.Text, TraceIDs: ids}})
	}
	d.RequestNote = requestBreaksSentence(c.Verdict.MinShare)
	if c.RequestShape != nil {
		d.Shape = reportview.ShapeHTML(c.RequestShape)
	}
	maps := cardHeatmaps(c)
	labelW := heatLabelWidth(maps)
	for _, h := range maps {
		d.Heatmaps = append(d.Heatmaps, newHTMLHeat(h, labelW))
	}
	for i, f := range c.Warnings {
		d.Footnotes = append(d.Footnotes, htmlFootnote{N: footnoteN(f, i), Text: footnoteText(f)})
	}
	for _, in := range c.Inputs {
		d.Inputs = append(d.Inputs, htmlInput{Path: sanitize(in.Path), Format: sanitize(in.Format), SHA: sanitize(in.SHA256),
			SHA12: sha12(in.SHA256), Range: fmtRange(in.Start, in.End), Counts: inputCounts(in), Size: in.Size})
	}
	return htmlTemplate.Execute(w, d)
}

// sevClass maps a severity to a known CSS class suffix.
func sevClass(s string) string {
	switch s {
	case SeverityCritical, SeverityWarning, SeverityInfo:
		return s
	}
	return "unknown"
}

// htmlGraph is the laid-out propagation graph of the top causes' paths.
type htmlGraph struct {
	Width, Height int
	Nodes         []htmlNode
	Edges         []htmlEdge
}

type htmlNode struct {
	X, Y, W, H, TX, TY1, TY2  int
	Class, Full, Line1, Line2 string
	Rank                      string // "#1" on a top cause's box
	RX, RY                    int    // where the rank is written
}

type htmlEdge struct {
	X1, Y1, X2, Y2, LX, LY int
	Label                  string
}

// Graph geometry in px.
const (
	gNodeW = 230
	gNodeH = 36
	gColW  = 290
	gRowH  = 56
	gPad   = 12
	// gMaxWidth is the widest graph drawn: the page's content width
	// (style.css: a body of 1200 px less its padding). Longer paths wrap
	// into bands of gBandCols columns, so the whole graph — the target at
	// the end of the paths included — is on the page (TestHTMLGraphFits).
	gMaxWidth = 1152
	gBandCols = (gMaxWidth-2*gPad-gNodeW)/gColW + 1
	gBandGap  = 28
)

// newHTMLGraph lays out the union of the first top causes' paths: nodes keyed
// by "node:signal", placed in columns by longest-path layering (a cycle stops
// relaxing after len(nodes) rounds) and in rows by first appearance. O(P·N)
// for P path steps and N distinct nodes.
func newHTMLGraph(causes []Cause, top int) htmlGraph {
	type edge struct {
		from, to int
		lag      string
	}
	index := map[string]int{}
	var keys []string
	var steps []PathStep
	var edges []edge
	seenEdge := map[[2]int]bool{}
	isRoot := map[int]bool{}
	rankOf := map[int]string{}
	target := -1
	for ci, cs := range causes {
		if ci >= top {
			break
		}
		prev := -1
		for si, s := range cs.Path {
			k := stepName(s)
			id, ok := index[k]
			if !ok {
				id = len(keys)
				index[k] = id
				keys = append(keys, k)
				steps = append(steps, s)
			}
			if si == 0 {
				isRoot[id] = true
				rankOf[id] = strings.TrimPrefix(rankOf[id]+","+fmt.Sprintf("#%d", cs.Rank), ",")
			}
			if si == len(cs.Path)-1 {
				target = id
			}
			if prev >= 0 && prev != id && !seenEdge[[2]int{prev, id}] {
				seenEdge[[2]int{prev, id}] = true
				lag := ""
				if s.Lag != 0 {
					lag = fmtLag(s.Lag)
				}
				edges = append(edges, edge{prev, id, lag})
			}
			prev = id
		}
	}
	if len(keys) == 0 {
		return htmlGraph{}
	}
	col := make([]int, len(keys))
	for range keys {
		changed := false
		for _, e := range edges {
			if col[e.to] < col[e.from]+1 {
				col[e.to] = col[e.from] + 1
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	rowsIn := map[int]int{}
	row := make([]int, len(keys))
	maxCol, maxRow := 0, 0
	for i := range keys {
		row[i] = rowsIn[col[i]]
		rowsIn[col[i]]++
		maxCol, maxRow = max(maxCol, col[i]), max(maxRow, row[i])
	}
	// Columns past gBandCols wrap into bands below one another.
	bands := maxCol/gBandCols + 1
	bandH := maxRow*gRowH + gNodeH + gBandGap
	pos := func(i int) (int, int) {
		return gPad + (col[i]%gBandCols)*gColW, gPad + (col[i]/gBandCols)*bandH + row[i]*gRowH
	}
	g := htmlGraph{Width: 2*gPad + min(maxCol, gBandCols-1)*gColW + gNodeW, Height: 2*gPad + (bands-1)*bandH + maxRow*gRowH + gNodeH}
	for i, s := range steps {
		x, y := pos(i)
		class := ""
		switch {
		case isRoot[i]:
			class = "root"
		case i == target:
			class = "target"
		}
		n := htmlNode{X: x, Y: y, W: gNodeW, H: gNodeH, TX: x + 6, TY1: y + 15, TY2: y + 29,
			Class: class, Full: sanitize(keys[i]), Line1: truncate(sanitize(s.Node), 31), Line2: truncate(sanitize(s.Signal), 31)}
		if r := rankOf[i]; r != "" {
			n.Rank, n.RX, n.RY = r, x+gNodeW-6, y+15
			n.Line1 = truncate(sanitize(s.Node), 31-runeLen(r)-1)
		}
		g.Nodes = append(g.Nodes, n)
	}
	var placed [][2]int // label centres so far
	for _, e := range edges {
		fx, fy := pos(e.from)
		tx, ty := pos(e.to)
		x1, y1, x2, y2 := fx+gNodeW, fy+gNodeH/2, tx, ty+gNodeH/2
		if col[e.from]/gBandCols != col[e.to]/gBandCols {
			// into the next band: from the bottom of the one to the top of the other
			x1, y1, x2, y2 = fx+gNodeW/2, fy+gNodeH, tx+gNodeW/2, ty
		}
		he := htmlEdge{X1: x1, Y1: y1, X2: x2, Y2: y2, Label: e.lag}
		if e.lag != "" {
			he.LX, he.LY = labelSpot(x1, y1, x2, y2, placed)
			placed = append(placed, [2]int{he.LX, he.LY})
		}
		g.Edges = append(g.Edges, he)
	}
	return g
}

// labelSpot places an edge's lag label on the edge (the middle, else a
// third or two thirds along, ...) where it overlaps no label placed
// before (labels are about 50×12 px); the middle when nothing is free.
func labelSpot(x1, y1, x2, y2 int, placed [][2]int) (int, int) {
	for _, f := range []float64{0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6} {
		x := x1 + int(f*float64(x2-x1))
		y := y1 + int(f*float64(y2-y1)) - 4
		free := true
		for _, p := range placed {
			if abs(p[0]-x) < 52 && abs(p[1]-y) < 13 {
				free = false
				break
			}
		}
		if free {
			return x, y
		}
	}
	return (x1 + x2) / 2, (y1+y2)/2 - 4
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// htmlHeat is one heatmap's SVG geometry.
type htmlHeat struct {
	Rank                                  int
	Title, Axis                           string
	W, H                                  int
	Labels                                []htmlText
	Cells, Legend                         []htmlRect
	Ticks                                 []htmlTick
	Markers                               []htmlMarker
	LegendX0, LegendX1, LegendY, LegendTY int
	NoDataX, NoDataTX                     int
	NoDataFill                            string
}

type htmlText struct {
	X, Y int
	Text string
}

type htmlRect struct {
	X, Y, W, H int
	Fill, Tip  string
}

type htmlTick struct {
	X, Y1, Y2, TY int
	Text          string
}

type htmlMarker struct {
	X, Y1, Y2, TY int
	Class, Text   string
}

// Heatmap geometry in px.
const (
	hCellH   = 18
	hTop     = 30 // room for marker labels
	hMaxGrid = 900
	hMaxCols = 150
)

// heatLabelMax is the longest heatmap row label drawn, in runes (longer
// ones lose their middle).
const heatLabelMax = 64

// heatLabelWidth is the label column every heatmap of a card shares, in
// px, so that their columns line up on one time axis.
func heatLabelWidth(maps []Heatmap) int {
	w := 60
	for _, h := range maps {
		for _, r := range h.Rows {
			w = max(w, 7*min(runeLen(sanitize(r.Label))+htmlTargetLen(r), heatLabelMax)+10)
		}
	}
	return w
}

// htmlTargetLen is the room of the target mark after a label.
func htmlTargetLen(r HeatRow) int {
	if r.Target {
		return runeLen(" " + targetMark)
	}
	return 0
}

// newHTMLHeat lays out h: labels right-aligned left of the grid in a
// column labelW px wide (shared by the card's heatmaps), at most hMaxCols
// columns (merged by maximum), ticks on the time axis, dashed onset and
// alert markers, and a ten-step legend.
func newHTMLHeat(h Heatmap, labelW int) htmlHeat {
	v := newHeatView(h, hMaxCols)
	labels := make([]string, len(v.Rows))
	for i, r := range v.Rows {
		labels[i] = truncateMiddle(sanitize(r.Label), heatLabelMax-htmlTargetLen(r)) // right-aligned: SVG would collapse an indent
		if r.Target {
			labels[i] += " " + targetMark
		}
	}
	cellW := 24
	if v.Cols > 0 {
		cellW = max(4, min(24, hMaxGrid/v.Cols))
	}
	x0 := labelW
	gridH := len(v.Rows) * hCellH
	axisY := hTop + gridH
	out := htmlHeat{Rank: h.CauseRank, Title: heatTitle(h), Axis: heatAxisText(v) + markerText(h),
		W: x0 + v.Cols*cellW + 20, NoDataFill: heatNoDataColor}
	out.W = max(out.W, x0+330)
	for i, row := range v.Cells {
		y := hTop + i*hCellH
		out.Labels = append(out.Labels, htmlText{X: x0 - 6, Y: y + 13, Text: labels[i]})
		for j, x := range row {
			tip := fmt.Sprintf("%s @ %s: %s", labels[i], fmtTime(v.Start.Add(v.Slice*timeDuration(j))), fmtFixed(x, 2))
			if x != x {
				tip = fmt.Sprintf("%s @ %s: no data", labels[i], fmtTime(v.Start.Add(v.Slice*timeDuration(j))))
			}
			out.Cells = append(out.Cells, htmlRect{X: x0 + j*cellW, Y: y, W: cellW, H: hCellH - 1, Fill: heatColor(x), Tip: strings.TrimSpace(tip)})
		}
	}
	every := max(1, (v.Cols+5)/6)
	for j := 0; j < v.Cols; j += every {
		x := x0 + j*cellW
		out.Ticks = append(out.Ticks, htmlTick{X: x, Y1: axisY, Y2: axisY + 4, TY: axisY + 16,
			Text: v.Start.Add(v.Slice * timeDuration(j)).Std().Format("15:04:05")})
	}
	mark := func(c, ty int, class, text string) {
		if c >= 0 {
			x := x0 + c*cellW + cellW/2
			out.Markers = append(out.Markers, htmlMarker{X: x, Y1: ty + 3, Y2: axisY + 2, TY: ty, Class: class, Text: text})
		}
	}
	mark(v.Onset, hTop-4, "onset", "▼ onset")
	mark(v.Alert, hTop-17, "alert", "! alert")
	out.LegendY = axisY + 26
	out.LegendTY = out.LegendY + 9
	out.LegendX0 = x0 - 6
	for k := range 10 {
		out.Legend = append(out.Legend, htmlRect{X: x0 + k*14, Y: out.LegendY, W: 14, H: 10, Fill: heatColor((float64(k) + 0.5) / 10)})
	}
	out.LegendX1 = x0 + 10*14 + 6
	out.NoDataX = out.LegendX1 + 120
	out.NoDataTX = out.NoDataX + 18
	out.H = out.LegendY + 16
	return out
}

// sanitizedCopy returns a deep copy of c with every string passed through
// sanitize, so templates can use Card fields directly.
func sanitizedCopy(c *Card) *Card {
	out := new(Card)
	copySanitized(reflect.ValueOf(out).Elem(), reflect.ValueOf(c).Elem())
	return out
}

func copySanitized(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(sanitize(src.String()))
	case reflect.Struct:
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				copySanitized(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
		for i := range src.Len() {
			copySanitized(dst.Index(i), src.Index(i))
		}
	case reflect.Array:
		for i := range src.Len() {
			copySanitized(dst.Index(i), src.Index(i))
		}
	default:
		dst.Set(src)
	}
}

// safeURL keeps an http(s) link and drops anything else (a javascript: or
// data: URL in an annotation must not become a link).
func safeURL(u string) string {
	u = sanitize(u)
	l := strings.ToLower(u)
	if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		return u
	}
	return ""
}

// windowText is the incident window's range, with why it is not centred on
// the incident time when it is not.
func windowText(in Incident) string {
	w := fmtRange(in.WindowStart, in.WindowEnd)
	if in.WindowChosenBy != "" {
		w += " (" + in.WindowChosenBy + ")"
	}
	return w
}
