package causal

import (
	"math"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// symptomOnset is when the incident's symptom began: the target's onset
// when it is anomalous, else the incident's time (the alert's).
func symptomOnset(g *tcg.Graph) ingest.Time {
	if g.Target >= 0 && g.Nodes[g.Target].Anomalous && g.Nodes[g.Target].Onset != 0 {
		return g.Nodes[g.Target].Onset
	}
	return g.Incident.At
}

// changeTiming is TermChangeTiming of every node (see it): for a
// service's change node and a rollout's contrast nodes, exp(−lead/tau) of
// the latest of their changes made before the symptom's onset (or within
// one grid step after it), 0 when every change of theirs came later; 0 for
// other nodes. O(changes · judged nodes).
func changeTiming(g *tcg.Graph, tau time.Duration) []float64 {
	out := make([]float64, len(g.Nodes))
	onset := symptomOnset(g)
	if onset == 0 || tau <= 0 {
		return out
	}
	tol := ingest.Time(max(g.Step, time.Minute))
	for _, c := range g.Changes {
		if c.At > onset+tol {
			continue // made after the symptom began
		}
		lead := math.Max(0, float64(onset-c.At))
		v := math.Exp(-lead / float64(tau))
		for _, i := range append([]int{c.Node}, c.Judged...) {
			if i >= 0 && v > out[i] {
				out[i] = v
			}
		}
	}
	return out
}
