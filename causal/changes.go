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

// lateness is TermLate of every node (see it): 0 for a node whose onset is
// not later than the symptom's onset by more than a grid step (or a
// minute), growing to 1 over tau beyond that; 0 for nodes that are not
// anomalous or without an onset.
func lateness(g *tcg.Graph, tau time.Duration) []float64 {
	out := make([]float64, len(g.Nodes))
	onset := symptomOnset(g)
	if onset == 0 || tau <= 0 {
		return out
	}
	tol := ingest.Time(max(g.Step, time.Minute))
	for i, n := range g.Nodes {
		if !n.Anomalous || n.Onset == 0 || n.Onset <= onset+tol {
			continue
		}
		out[i] = math.Min(1, float64(n.Onset-onset-tol)/float64(tau))
	}
	return out
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

// ChangeVerdict is one change of the look-back as the analysis judged it:
// what the card lists under "what changed".
type ChangeVerdict struct {
	Service string
	At      ingest.Time
	What    string
	// Rollout is the rollout's name when the change is one ("" else).
	Rollout string
	// Lead is the symptom's onset minus the change's time: positive for a
	// change made before the symptom began.
	Lead time.Duration
	// Verdict is ChangeBlamed, ChangeExonerated or ChangeNotJudged.
	Verdict string
	// Why says what the verdict rests on, in a few words.
	Why string
}

// Change verdicts.
const (
	// ChangeBlamed: the first cause is the change, or a signal of the
	// changed service that the change preceded.
	ChangeBlamed = "blamed"
	// ChangeExonerated: made after the symptom began, or its new pods
	// behave like its old ones.
	ChangeExonerated = "exonerated"
	// ChangeNotJudged: made before the symptom, but nothing measured what
	// it did and it is not the first cause.
	ChangeNotJudged = "not judged"
)

// judgeChanges gives every change of the graph its verdict (oldest first)
// against the ranked candidates. O(changes · (judged nodes + candidates)).
func judgeChanges(g *tcg.Graph, cands []Candidate) []ChangeVerdict {
	onset := symptomOnset(g)
	tol := ingest.Time(max(g.Step, time.Minute))
	var out []ChangeVerdict
	for _, c := range g.Changes {
		v := ChangeVerdict{Service: c.Service, At: c.At, What: c.What, Rollout: c.Rollout}
		if onset != 0 {
			v.Lead = time.Duration(onset - c.At)
		}
		anomalous, judged := false, len(c.Judged) > 0
		for _, j := range c.Judged {
			anomalous = anomalous || g.Nodes[j].Anomalous
		}
		top := len(cands) > 0 && cands[0].Service == c.Service
		switch {
		case onset != 0 && c.At > onset+tol:
			v.Verdict, v.Why = ChangeExonerated, "made after the symptom began"
		case top && (cands[0].ComponentKind == ingest.KindRollout || cands[0].Signal == ingest.SignalChange):
			v.Verdict, v.Why = ChangeBlamed, "the first cause"
		case top:
			v.Verdict, v.Why = ChangeBlamed, "its service is the first cause and the change came first"
		case judged && !anomalous:
			v.Verdict, v.Why = ChangeExonerated, "its new pods behave like its old ones"
		case judged:
			v.Verdict, v.Why = ChangeNotJudged, "its new pods differ from its old ones, but it is not the first cause"
		default:
			v.Verdict, v.Why = ChangeNotJudged, "no data on what its new version does"
		}
		out = append(out, v)
	}
	return out
}
