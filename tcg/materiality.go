package tcg

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// materialParts bounds the anomaly of a latency that is a part of another
// — a call's network/queueing gap (a part of its caller-side latency) and
// a service's own processing time (a part of its latency) — by what its
// rise is in the whole's terms: the part's rise in seconds over the
// whole's baseline scale, both on means (means add up: client = server +
// gap; latency = own time + calls). A gap that went from 1 ms to 3 ms is
// 100 σ of its own flat baseline and nothing to the calls it is part of
// when their latency varies by 20 ms; a rise that matters to the whole
// keeps its score. A part whose whole has no mean series keeps its score.
func (g *Graph) materialParts(opt Options) {
	for _, n := range g.Nodes {
		if !n.Anomalous || n.Signal != ingest.SignalLatency || n.Peer != nil {
			continue
		}
		var whole int
		switch n.Facet {
		case FacetSelf:
			whole = g.find(n.Entity, ingest.SignalLatency, FacetNone)
		default:
			continue
		}
		if whole < 0 {
			continue
		}
		var mean *ingest.Series
		for _, s := range g.Nodes[whole].Series {
			if s.Stat == "mean" && s.Unit == "s" {
				mean = s
			}
		}
		if mean == nil {
			continue
		}
		an, _, ok := seriesAnomaly(mean, g.Step, g.Grid, opt, g.B0, g.B1, g.W0, g.W1, g.Counts)
		rise := n.Incident - n.Baseline
		if !ok || !(an.Scale > 0) || math.IsNaN(rise) {
			continue
		}
		if z := math.Max(rise/an.Scale, 0); z < n.Score {
			n.Score = z
			if z < opt.Threshold {
				n.Anomalous, n.OnsetIdx, n.Onset = false, -1, 0
			}
		}
	}
}
