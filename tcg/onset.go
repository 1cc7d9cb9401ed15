package tcg

import (
	"fmt"
	"math"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// DefaultOnsetLookback is Options.OnsetLookback's default: an alert fires
// after its rule held for its `for:` duration over a rate's range, minutes
// after the onset, rarely ten.
const DefaultOnsetLookback = 10 * time.Minute

// DefaultMinOnsetReach is Options.MinOnsetReach's default: a deviation that
// began under a minute (the coarsest usual scrape interval) before the
// window is within the alignment of the sources and the window's own
// margin, and a minute of the episode among a baseline's many minutes does
// not move its median or spread. Swept on the development sets
// (docs/accuracy.md).
const DefaultMinOnsetReach = time.Minute

// ExtendToOnset moves the incident window's start back to the target's
// onset when the target was already off at the window's start: an alert
// fires after its condition held for a while, so a window centred on it
// can begin inside the incident, with the incident's first minutes — the
// cause's onset among them — in the baseline, where they inflate its
// spread and hide the change. The target's deviation is followed back
// from the window's start while it holds (at 0.6·threshold; one sample
// below is tolerated, two end it, as for the episode in the window), up to
// opt.OnsetLookback and never leaving a baseline shorter than the window. The
// window then starts one sample before that onset. ok is false (inc
// unchanged) when the target is not anomalous from the window's first
// samples, or its deviation does not reach back both a sample and
// opt.MinOnsetReach before the window's start.
func ExtendToOnset(g *Graph, opt Options) (inc Incident, ok bool) {
	opt = opt.withDefaults(g.Step)
	inc = g.Incident
	if opt.OnsetLookback < 0 || g.Target < 0 || g.W0 <= g.B0 || g.W0 >= len(g.Grid) {
		return inc, false
	}
	n := g.Nodes[g.Target]
	if !n.Anomaly.Anomalous || n.Anomaly.OnsetIdx < 0 || n.Anomaly.Scale <= 0 || n.Rep < 0 || n.Rep >= len(n.Series) {
		return inc, false
	}
	s := n.Series[n.Rep]
	if s.Name == ingest.LogPatternShift || len(s.V) < g.W0 {
		return inc, false // a test of the window as a whole has no time course to follow
	}
	hold := 1
	if s.Every > 0 && g.Step > 0 {
		hold = max(1, int(s.Every/g.Step))
	}
	if n.Anomaly.OnsetIdx >= g.W0+2*hold {
		return inc, false // the window saw the target's onset
	}
	level := 0.6 * g.Threshold
	z := func(i int) float64 { return badDeviation(s.V[i], n.Anomaly.Baseline, n.Anomaly.Scale, n.Dir) }
	// The earliest cell the window may start at: OnsetLookback before its start,
	// and a baseline at least as long as the window.
	win := inc.WindowEnd - inc.WindowStart
	earliest := max(inc.WindowStart-ingest.Time(opt.OnsetLookback), inc.BaselineStart+win)
	onset, below := -1, 0
	for i := g.W0 - 1; i >= g.B0 && g.Grid[i] >= earliest; i-- {
		if math.IsNaN(s.V[i]) {
			continue
		}
		if z(i) < level {
			below++
			if below >= 2 {
				break
			}
			continue
		}
		below = 0
		onset = i
	}
	if onset < 0 || g.W0-onset < hold || time.Duration(g.Grid[g.W0]-g.Grid[onset]) < opt.MinOnsetReach {
		return inc, false
	}
	start := max(onset-hold, 0)
	if g.Grid[start] < earliest {
		start = onset
	}
	lead := time.Duration(inc.WindowStart - g.Grid[start])
	inc.WindowChosenBy = fmt.Sprintf("reaches back %v, to a sample before the target's onset: it was %.1f σ off at %s and stayed off into the window centred on the incident time",
		lead.Round(time.Second), z(onset), g.Grid[onset].Std().UTC().Format(time.RFC3339))
	inc.WindowStart = g.Grid[start]
	return inc, true
}
