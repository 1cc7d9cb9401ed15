package tcg

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// materialParts bounds the anomaly of a service's own processing time, a
// part of its latency (means add up: latency = own time + calls), by what
// its rise is in the whole's terms: the rise in seconds over the baseline
// scale of the service's mean latency. 1 ms → 3 ms of own time is 100 σ of
// its own flat baseline and nothing to a latency that varies by 20 ms; a
// rise that matters to the latency keeps its score, and so does a part
// whose service has no mean latency series. (A call's network gap, a part
// of its caller-side latency, is left uncapped: docs/accuracy.md.)
func (g *Graph) materialParts(opt Options) {
	for _, n := range g.Nodes {
		if !n.Anomalous || n.Signal != ingest.SignalLatency || n.Facet != FacetSelf || n.Peer != nil {
			continue
		}
		whole := g.find(n.Entity, ingest.SignalLatency, FacetNone)
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
