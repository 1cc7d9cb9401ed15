package reportfmt

import (
	_ "embed"
	"fmt"
	"html/template"
	"math"
)

// styleSheet is the reports' page CSS.
//
//go:embed style.css
var styleSheet string

// StyleSheet is the scorecard page's CSS (style.css), which the other
// reports' HTML pages share so that they look alike.
func StyleSheet() template.CSS { return template.CSS(styleSheet) }

// heatStops is the blue→yellow→red scale (ColorBrewer RdYlBu ends).
var heatStops = [3][3]float64{{44, 123, 182}, {255, 255, 191}, {215, 25, 28}}

// HeatNoDataColor is the fill of heatmap cells without data.
const HeatNoDataColor = "#d9d9d9"

// HeatColor maps a 0..1 score (clamped) to "#rrggbb" on the blue→red
// heatmap scale; NaN gets HeatNoDataColor.
func HeatColor(x float64) string {
	if math.IsNaN(x) {
		return HeatNoDataColor
	}
	x = min(max(x, 0), 1)
	lo, hi, f := heatStops[0], heatStops[1], x*2
	if x > 0.5 {
		lo, hi, f = heatStops[1], heatStops[2], (x-0.5)*2
	}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(lo[i] + (hi[i]-lo[i])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}
