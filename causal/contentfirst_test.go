package causal

import (
	"slices"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

func TestContentNotFirst(t *testing.T) {
	g := &tcg.Graph{Nodes: []*tcg.Node{
		{ID: "service/a:logs/pattern", Signal: ingest.SignalLogs, Facet: "pattern"},
		{ID: "service/b:traffic/mix", Signal: ingest.SignalTraffic, Facet: "mix"},
		{ID: "service/c:latency", Signal: ingest.SignalLatency},
		{ID: "service/d:logs/records", Signal: ingest.SignalLogs, Facet: "records"},
		{ID: "service/t:latency", Signal: ingest.SignalLatency, Anomaly: tcg.Anomaly{Score: 8, Anomalous: true}},
	}, Target: 4, Threshold: 3}
	mk := func(shares ...float64) []scored {
		var cs []scored
		for i, s := range shares {
			cs = append(cs, scored{node: i, terms: map[string]float64{TermTargetShare: s}, score: float64(10 - i)})
		}
		return cs
	}
	order := candidateNodes
	for _, c := range []struct {
		name   string
		shares []float64
		want   []int
	}{
		{"content explaining nothing yields to the first other cause", []float64{0, 0.01, 0, 0}, []int{2, 0, 1, 3}},
		{"content with a share of the target keeps its place", []float64{0.3, 0, 0, 0}, []int{0, 1, 2, 3}},
	} {
		if got := order(contentNotFirst(g, mk(c.shares...), 0.05)); !slices.Equal(got, c.want) {
			t.Errorf("%s: order %v, want %v", c.name, got, c.want)
		}
	}
	// The content signals passed score below the cause that took the
	// first place, so that the services' probabilities follow the order.
	cs := contentNotFirst(g, mk(0, 0.01, 0, 0), 0.05)
	for _, c := range cs[1:3] {
		if c.score >= cs[0].score {
			t.Errorf("%s scores %v, not below the first's %v", g.Nodes[c.node].ID, c.score, cs[0].score)
		}
	}
	// Log volume (records) counts as traffic, not content: it may lead.
	cs = []scored{{node: 3, terms: map[string]float64{}}, {node: 2, terms: map[string]float64{}}}
	if got := order(contentNotFirst(g, cs, 0.05)); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("log volume first: order %v, want [3 2]", got)
	}
	// Only content signals: the order stands.
	cs = mk(0, 0)
	if got := order(contentNotFirst(g, cs, 0.05)); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("only content: order %v, want [0 1]", got)
	}
	// A target that did not move (its deviation under the detection
	// threshold): no candidate explains a share of noise, so "0%" is no
	// evidence against content, and the order of the scores stands.
	g.Nodes[4].Score = 1.2
	if got := order(contentNotFirst(g, mk(0, 0.01, 0, 0), 0.05)); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("target within noise: order %v, want [0 1 2 3]", got)
	}
	g.Nodes[4].Score = 8
	g.Target = -1 // no target: nothing to explain either
	if got := order(contentNotFirst(g, mk(0, 0.01, 0, 0), 0.05)); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("no target: order %v, want [0 1 2 3]", got)
	}
}

// TestDecideTargetBarelyMoved: a target flagged anomalous whose episode is
// within its baseline's noise (a recurring spike read as a rate, under the
// threshold) gets no verdict, however probable the top cause; the same
// top cause stands when the target moved.
func TestDecideTargetBarelyMoved(t *testing.T) {
	g := &tcg.Graph{Nodes: []*tcg.Node{
		{ID: "service/gw:latency", Entity: ingest.Entity{Kind: ingest.KindService, Name: "gw", Service: "gw"}, Signal: ingest.SignalLatency,
			Anomaly: tcg.Anomaly{Score: 0.8, Anomalous: true}},
		{ID: "service/db:latency", Signal: ingest.SignalLatency},
	}, Target: 0, Threshold: 3}
	p := DefaultParams()
	verdict := func() Result {
		res := Result{Candidates: []Candidate{{Node: 1, Confidence: 0.9, Intervention: Intervention{ExplainedShare: 0.6}}}}
		decide(&res, g, 1, p)
		return res
	}
	res := verdict()
	if res.Confident || !strings.Contains(res.Abstention, "barely moved") {
		t.Errorf("target at 0.8 σ: confident %v, abstention %q; want no verdict, saying the target barely moved", res.Confident, res.Abstention)
	}
	g.Nodes[0].Score = 8
	if res := verdict(); !res.Confident || res.Abstention != "" {
		t.Errorf("target at 8 σ: confident %v, abstention %q; want the verdict", res.Confident, res.Abstention)
	}
}
