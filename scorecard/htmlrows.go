package scorecard

import (
	"fmt"
	"math"
	"strings"
)

// htmlRow is one row of the ranked components with, for the first
// TopRows, a chart of its series.
type htmlRow struct {
	Rank                                             int
	Component, Service, Signals, Conf, Explained, On string
	Chart                                            *htmlChart
}

// htmlChart is a small inline-SVG line chart of a Chart: the values as a
// polyline, the baseline band as a shaded strip, the window shaded, onset
// and alert as vertical lines, and a caption.
type htmlChart struct {
	W, H, PlotH       int
	Points            string // polyline "x,y x,y ..."
	BandY, BandH      int    // the baseline band (BandH 0: none)
	WinX, WinW        int    // the window
	OnsetX, AlertX    int    // -1: none
	Caption, Low, Top string
}

// Chart geometry in px.
const (
	chW     = 360
	chPlotH = 64
	chH     = chPlotH + 2
)

// newHTMLRows is the rows' view, with charts for the first TopRows.
func newHTMLRows(c *Card) []htmlRow {
	var out []htmlRow
	for i, r := range c.Rows {
		hr := htmlRow{Rank: r.Rank, Component: componentName(r.ComponentKind, r.Component), Service: r.Service,
			Signals: strings.Join(r.Signals, ", "), Conf: fmtConf(r.Confidence), Explained: fmtShare(r.ExplainedShare), On: fmtTime(r.Onset)}
		if r.AfterAlert {
			hr.On += " (after the alert)"
		}
		if i < TopRows {
			hr.Chart = newHTMLChart(r.Chart)
		}
		out = append(out, hr)
	}
	return out
}

// newHTMLChart lays out a chart; nil when it has fewer than two values.
func newHTMLChart(ch Chart) *htmlChart {
	n := len(ch.Values)
	if n < 2 {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(append([]float64{}, ch.Values...), ch.BandLow, ch.BandHigh) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return nil
	}
	if hi <= lo {
		hi = lo + 1
	}
	y := func(v float64) int { return 1 + int(math.Round(float64(chPlotH-1)*(hi-v)/(hi-lo))) }
	x := func(k int) int { return int(math.Round(float64(chW-1) * float64(k) / float64(n-1))) }
	xt := func(t int64) int {
		if ch.Step <= 0 {
			return -1
		}
		k := float64(t-int64(ch.Start)) / float64(ch.Step)
		if k < 0 || k > float64(n-1) {
			return -1
		}
		return int(math.Round(float64(chW-1) * k / float64(n-1)))
	}
	hc := &htmlChart{W: chW, H: chH, PlotH: chPlotH, OnsetX: -1, AlertX: -1}
	var pts []string
	for k, v := range ch.Values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			pts = append(pts, fmt.Sprintf("%d,%d", x(k), y(v)))
		}
	}
	hc.Points = strings.Join(pts, " ")
	if !math.IsNaN(ch.BandLow) && !math.IsNaN(ch.BandHigh) {
		hc.BandY, hc.BandH = y(ch.BandHigh), max(1, y(ch.BandLow)-y(ch.BandHigh))
	}
	if a, b := xt(int64(ch.WindowStart)), xt(int64(ch.WindowEnd)); a >= 0 {
		if b < 0 {
			b = chW - 1
		}
		hc.WinX, hc.WinW = a, max(1, b-a)
	}
	if ch.Onset != 0 {
		hc.OnsetX = xt(int64(ch.Onset))
	}
	if ch.Alert != 0 {
		hc.AlertX = xt(int64(ch.Alert))
	}
	hc.Caption = sparkCaption(ch)
	hc.Low, hc.Top = fmtValue(lo, ch.Unit), fmtValue(hi, ch.Unit)
	return hc
}
