package peers

import (
	"math"
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestCallsContrast: a new version whose pods serve requests but never
// call one of the dependencies its old pods call (no series to it, or a
// call duration of exactly 0) is short of that callee from the cells its
// pods serve; one that calls everything its old pods call is not; cells
// before the new pods serve are not judged.
func TestCallsContrast(t *testing.T) {
	const n = 20
	nan := math.NaN()
	grid := make([]ingest.Time, n)
	for i := range grid {
		grid[i] = ingest.Time(int64(i) * 60e9)
	}
	series := func(name string, ent ingest.Entity, sig ingest.SignalKind, pod string, from int, v float64) *ingest.Series {
		s := &ingest.Series{Name: name, Entity: ent, Signal: sig, T: grid, V: make([]float64, n), Aligned: true,
			Labels: ingest.Labels{{Name: "destination_app", Value: ent.Callee}, {Name: "pod", Value: pod}, {Name: "source_app", Value: ent.Caller}}}
		for i := range s.V {
			s.V[i] = v
			if i < from {
				s.V[i] = nan
			}
		}
		return s
	}
	edge := func(a, b string) ingest.Entity {
		return ingest.Entity{Kind: ingest.KindEdge, Name: a + "->" + b, Caller: a, Callee: b, Service: b}
	}
	const oldPod, newPod = "checkout-v1-857f69df7f-k85n7", "checkout-v2-6df89d554c-wbmmp"
	build := func(newCallsEmail bool) (*ingest.Bundle, Rollout) {
		b := &ingest.Bundle{Grid: grid, Entities: []ingest.Entity{
			{Kind: ingest.KindService, Name: "checkout", Service: "checkout"},
			{Kind: ingest.KindPod, Name: oldPod, Service: "checkout"}, {Kind: ingest.KindPod, Name: newPod, Service: "checkout"}}}
		for _, p := range []struct {
			pod  string
			from int
		}{{oldPod, 0}, {newPod, 10}} {
			b.Series = append(b.Series,
				series("dur", edge("frontend", "checkout"), ingest.SignalLatency, p.pod, p.from, 3), // served
				series("dur", edge("checkout", "cart"), ingest.SignalLatency, p.pod, p.from, 3))
			switch {
			case p.pod == oldPod || newCallsEmail:
				b.Series = append(b.Series, series("dur", edge("checkout", "email"), ingest.SignalLatency, p.pod, p.from, 2))
			default:
				b.Series = append(b.Series, series("dur", edge("checkout", "email"), ingest.SignalLatency, p.pod, p.from, 0))
			}
		}
		old := &Group{Service: "checkout", Name: "checkout-v1-857f69df7f", Pods: []string{oldPod}}
		nw := &Group{Service: "checkout", Name: "checkout-v2-6df89d554c", Pods: []string{newPod}}
		return b, Rollout{Service: "checkout", New: nw, Old: []*Group{old}}
	}
	c := Cells{B0: 0, B1: 5, W0: 5, W1: n}
	b, r := build(false)
	ct, stopped := Build(b, Params{}).CallsContrast(b, r, c, 3)
	if !slices.Equal(stopped, []string{"email"}) {
		t.Fatalf("stopped %v, want [email]", stopped)
	}
	if ct.Cells != 10 || ct.Diff[9] == ct.Diff[9] || ct.Diff[12] != -0.5 {
		t.Errorf("contrast: %d cells, diff before serving %v, after %v; want 10 cells, NaN, −0.5", ct.Cells, ct.Diff[9], ct.Diff[12])
	}
	b, r = build(true)
	if ct, stopped := Build(b, Params{}).CallsContrast(b, r, c, 3); len(stopped) != 0 || ct.Diff[12] != 0 {
		t.Errorf("a release calling everything: stopped %v, diff %v", stopped, ct.Diff[12])
	}
}
