package reportview

import (
	"math"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/shape"
)

// TestShapeGridMargins: a bucket merged into its neighbour shows the
// merged margin's change, and a missing one is "~".
func TestShapeGridMargins(t *testing.T) {
	ch := func(r float64) shape.Change { return shape.Change{Ratio: r, Lo: r, Hi: r, BaseN: 50, WinN: 50} }
	ms := []ShapeCell{{InputLo: 0, InputHi: 1024, TTFT: ch(1)}, {InputLo: 1024, InputHi: -1, TTFT: ch(3)}}
	if got := marginChange(ms, 256, 1024, true, shape.TTFT).Ratio; got != 1 {
		t.Errorf("256–1k in <1k: %v", got)
	}
	if got := marginChange(ms, 4096, 16384, true, shape.TTFT).Ratio; got != 3 {
		t.Errorf("4k–16k in ≥1k: %v", got)
	}
	if got := marginChange(ms[:1], 4096, -1, true, shape.TTFT); !got.Few || !math.IsNaN(got.Ratio) {
		t.Errorf("uncovered bucket: %+v", got)
	}
	if ShapeMark(ch(3)) != "▒" || ShapeMark(ch(0.5)) != "◦" || ShapeMark(ch(1.1)) != "·" || ShapeMark(shape.Change{Few: true, Ratio: math.NaN()}) != "~" {
		t.Error("marks")
	}
}
