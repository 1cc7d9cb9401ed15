package tcg

import (
	"fmt"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// State is a node's state in the propagation state machine of the seed.
type State uint8

// States: IDLE → TRIGGERED → PROPAGATING → ROOT_CONFIRMED.
const (
	Idle State = iota
	Triggered
	Propagating
	RootConfirmed
)

var stateNames = [...]string{"IDLE", "TRIGGERED", "PROPAGATING", "ROOT_CONFIRMED"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("STATE(%d)", s)
}

// Transition is one recorded state change, kept as evidence.
type Transition struct {
	At       ingest.Time
	From, To State
	Edge     int // edge index that caused it (-1 for none)
	Reason   string
}

// runStateMachine drives every node's state from anomaly events in onset
// order (ties: higher score first, then node ID):
//   - IDLE → TRIGGERED when the node becomes anomalous;
//   - TRIGGERED → PROPAGATING when an effect-side neighbour, over an edge of
//     confidence ≥ MinConfidence, becomes anomalous within LagWindow after it.
//
// The last step, → ROOT_CONFIRMED, needs the causal stage's verdict on
// whose mechanism changed: causal records it on its candidates.
func (g *Graph) runStateMachine(opt Options) {
	var events []int
	for i, n := range g.Nodes {
		if n.Anomalous {
			events = append(events, i)
		}
	}
	sort.SliceStable(events, func(a, b int) bool {
		x, y := g.Nodes[events[a]], g.Nodes[events[b]]
		if x.Onset != y.Onset {
			return x.Onset < y.Onset
		}
		if x.Score != y.Score {
			return x.Score > y.Score
		}
		return x.ID < y.ID
	})
	lag := ingest.Time(opt.LagWindow)
	set := func(n *Node, to State, at ingest.Time, edge int, reason string) {
		n.Transitions = append(n.Transitions, Transition{At: at, From: n.State, To: to, Edge: edge, Reason: reason})
		n.State = to
	}
	for _, i := range events {
		n := g.Nodes[i]
		why := n.Label() + " " + n.DeviationWords()
		if r := n.Recurrence; r != nil {
			why = fmt.Sprintf("%s spikes more often than in its baseline (%d of %d samples, %d of %d before): %.1f σ as a rate",
				n.Label(), r.WindowHits, r.WindowN, r.BaselineHits, r.BaselineN, n.Score)
		}
		set(n, Triggered, n.Onset, -1, why)
		// Does this anomaly follow an already-anomalous upstream node?
		for _, ei := range g.in[i] {
			e := g.Edges[ei]
			p := g.Nodes[e.From]
			if e.Confidence < opt.MinConfidence || !p.Anomalous || p.State == Idle {
				continue
			}
			if n.Onset >= p.Onset && n.Onset-p.Onset <= lag && p.State == Triggered {
				set(p, Propagating, n.Onset, ei, fmt.Sprintf("effect %s became anomalous %v later over a %s edge (confidence %.2f)",
					n.Label(), n.Onset.Sub(p.Onset), e.Kind, e.Confidence))
			}
		}
	}
}

// tailTests runs the DKW tail-shift test on span samples for service and
// edge latency nodes.
func (g *Graph) tailTests(b *ingest.Bundle, opt Options) {
	// No baseline cells (the window starts before the data, or lies after
	// it, so that B0 may be len(Grid)): nothing to compare. Checked before
	// any index is taken.
	if len(b.Spans) == 0 || len(g.Grid) == 0 || g.B1 <= g.B0 {
		return
	}
	bs, ws := g.Grid[g.B0], g.Grid[min(g.W0, len(g.Grid)-1)]
	we := g.Grid[min(max(g.W1, 1), len(g.Grid))-1] + ingest.Time(g.Step)
	type samples struct{ base, win []float64 }
	svc := map[ingest.Sym]*samples{}
	for i := range b.Spans {
		s := &b.Spans[i]
		if i < len(b.Parent) && b.Parent[i] >= 0 && b.Spans[b.Parent[i]].Service == s.Service {
			continue // not an entry span of its service
		}
		x := svc[s.Service]
		if x == nil {
			x = &samples{}
			svc[s.Service] = x
		}
		switch {
		case s.Start >= bs && s.Start < ws:
			x.base = append(x.base, s.Duration.Seconds())
		case s.Start >= ws && s.Start < we:
			x.win = append(x.win, s.Duration.Seconds())
		}
	}
	byName := make(map[string]*samples, len(svc))
	for s, x := range svc {
		byName[s.String()] = x
	}
	for _, n := range g.Nodes {
		if n.Entity.Kind != ingest.KindService || n.Signal != ingest.SignalLatency || n.Facet != FacetNone {
			continue
		}
		if x := byName[n.Entity.Name]; x != nil {
			n.Tail = tailShift(x.base, x.win, 0.9, opt.Alpha)
		}
	}
}
