package causal

import (
	"math"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestChangeTimingThreeRollouts: three concurrent rollouts, one every
// three minutes, the symptom beginning a minute after the second: the second
// weighs most (the symptom began after it, and the minutes after the first
// were healthy), the first less, the third — made after the symptom began
// — nothing; a change within a grid step after the onset still counts
// (event and sample times are approximate).
func TestChangeTimingThreeRollouts(t *testing.T) {
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC))
	min := func(m float64) ingest.Time { return t0 + ingest.Time(m*float64(time.Minute)) }
	target := &tcg.Node{ID: "service/frontend:errors", Entity: ingest.Entity{Kind: ingest.KindService, Name: "frontend", Service: "frontend"}}
	target.Anomalous, target.Onset = true, min(5)
	nodes := []*tcg.Node{target}
	var changes []tcg.Change
	for k, svc := range []string{"cart", "ads", "email"} {
		n := &tcg.Node{ID: "service/" + svc + ":change", Entity: ingest.Entity{Kind: ingest.KindService, Name: svc, Service: svc},
			Signal: ingest.SignalChange}
		nodes = append(nodes, n)
		changes = append(changes, tcg.Change{Service: svc, At: min(1 + 3*float64(k)), Rollout: svc + "-v2", Node: k + 1})
	}
	g := &tcg.Graph{Nodes: nodes, Target: 0, Step: time.Minute, Changes: changes}
	g.Incident.At = min(7)
	got := changeTiming(g, 5*time.Minute)
	want := []float64{0, math.Exp(-4.0 / 5), math.Exp(-1.0 / 5), 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("%s: timing %.3f, want %.3f", nodes[i].ID, got[i], want[i])
		}
	}
	if !(got[2] > got[1] && got[1] > got[3]) {
		t.Errorf("timings %v: want the change just before the onset first, the one after it last", got)
	}
	// Within a step after the onset: counted, as made at the onset.
	g.Changes[2].At = min(5.5)
	if got := changeTiming(g, 5*time.Minute); got[3] != 1 {
		t.Errorf("a change 30 s after the onset on a 1-minute grid: timing %.3f, want 1", got[3])
	}
	// Without an anomalous target the alert's time is the onset.
	target.Anomalous = false
	if got := changeTiming(g, 5*time.Minute); math.Abs(got[3]-math.Exp(-1.5/5)) > 1e-9 {
		t.Errorf("timing against the alert's time %.3f, want %.3f", got[3], math.Exp(-1.5/5))
	}
}

// TestLateness: a node whose onset follows the symptom's by more than a
// step weighs late in proportion, up to 1 after tau; one that moved first,
// with it or within a step, not at all.
func TestLateness(t *testing.T) {
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC))
	at := func(m float64) ingest.Time { return t0 + ingest.Time(m*float64(time.Minute)) }
	mk := func(onset float64) *tcg.Node {
		n := &tcg.Node{}
		n.Anomalous, n.Onset = true, at(onset)
		return n
	}
	target := mk(5)
	g := &tcg.Graph{Nodes: []*tcg.Node{target, mk(3), mk(5.5), mk(8.5), mk(20)}, Target: 0, Step: time.Minute}
	got := lateness(g, 5*time.Minute)
	want := []float64{0, 0, 0, 2.5 / 5, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("node %d (onset %v): lateness %.3f, want %.3f", i, g.Nodes[i].Onset, got[i], want[i])
		}
	}
}
