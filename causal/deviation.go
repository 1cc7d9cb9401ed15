package causal

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// DeviationShare converts a share of the target's anomaly — the log scale
// a_T = ln(1 + z_T) on which the Shapley flows and Result.Unexplained add
// up — into the share of the target's deviation in its own units, the
// scale of Intervention.ExplainedShare: with the share s of a_T left, the
// target stays e^{a_T·s} − 1 robust σ away instead of z_T, so the part of
// its deviation that remains is (e^{a_T·s} − 1)/z_T. It is the
// counterfactual's formula (counterfactual) read the other way, so the
// card's "unexplained" and its rows' "explained" are on one scale. NaN for
// a NaN share; the share itself when the target has no positive anomaly.
func DeviationShare(g *tcg.Graph, logShare float64) float64 {
	if math.IsNaN(logShare) || g == nil || g.Target < 0 || g.Target >= len(g.Nodes) {
		return logShare
	}
	z := g.Nodes[g.Target].Score
	if !(z > 0) || !g.Nodes[g.Target].Anomalous {
		return logShare
	}
	aT := math.Log1p(z)
	return clip01(math.Expm1(aT*clip01(logShare)) / z)
}
