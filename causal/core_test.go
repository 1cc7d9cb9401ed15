package causal

import (
	"math"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// space builds the anomaly space of the chain incident.
func space(t *testing.T) (*tcg.Graph, *anomalySpace) {
	t.Helper()
	_, g := chain(t, true)
	p := DefaultParams()
	m := fitMechanisms(g, p.Mechanism, nil)
	ev := nodeEvidence(g, m, p.Mechanism, nil)
	return g, newAnomalySpace(g, ev, p.PrecedenceOwn)
}

func TestFlowsConserveEachNodesAnomaly(t *testing.T) {
	g, sp := space(t)
	fl := sp.flows()
	if len(sp.order) < 3 {
		t.Fatalf("only %d anomalous nodes", len(sp.order))
	}
	for _, j := range sp.order {
		sum := 0.0
		for _, amt := range fl[j] {
			if amt < -1e-12 {
				t.Errorf("%s: negative share %v", g.Nodes[j].ID, amt)
			}
			sum += amt
		}
		if math.Abs(sum-sp.a[j]) > 1e-9 {
			t.Errorf("%s: flows sum to %.6f, want its anomaly %.6f", g.Nodes[j].ID, sum, sp.a[j])
		}
		if sp.r[j] < 0 || sp.r[j] > sp.a[j]+1e-12 {
			t.Errorf("%s: own change %.3f outside [0, a=%.3f]", g.Nodes[j].ID, sp.r[j], sp.a[j])
		}
	}
}

func TestTargetShareGoesToTheRootNotItsEffects(t *testing.T) {
	g, sp := space(t)
	fl := sp.flows()
	tf := fl[g.Target]
	share := map[string]float64{}
	for i, amt := range tf {
		share[g.Nodes[i].Entity.Service] += amt / sp.a[g.Target]
	}
	if share["db"] < 0.5 {
		t.Errorf("db's own change explains %.2f of frontend's anomaly, want most (shares %v)", share["db"], share)
	}
	if share["cart"] > share["db"] {
		t.Errorf("cart (an effect of db) gets %.2f > db %.2f", share["cart"], share["db"])
	}
	if share["mail"] != 0 {
		t.Errorf("the unrelated mail gets %.2f of the target", share["mail"])
	}
}

func TestDownstreamCountsWhatTheChangeExplains(t *testing.T) {
	g, sp := space(t)
	db := g.NodeByID("service/db:cpu")
	cart := g.NodeByID("service/cart:latency")
	if db < 0 || cart < 0 {
		t.Fatalf("nodes missing: db cpu %d, cart latency %d", db, cart)
	}
	if d, c := sp.downstream(db), sp.downstream(cart); !(d > c) {
		t.Errorf("downstream of db cpu %.2f, of cart latency %.2f: the root's change must explain more", d, c)
	}
	anc := sp.ancestors(cart)
	if !anc[db] {
		t.Errorf("db cpu is not an anomalous ancestor of cart latency")
	}
}

// TestVerdictConfidenceAgreesWithExplainedShare: a confident verdict's top
// cause accounts for part of the target's deviation, and a counterfactual
// lies between the baseline and the observed value.
func TestVerdictConfidenceAgreesWithExplainedShare(t *testing.T) {
	b, g := chain(t, true)
	res, err := Analyze(g, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Confident {
		t.Fatalf("not confident: %s", res.Abstention)
	}
	top := res.Candidates[0]
	iv := top.Intervention
	if iv.ExplainedShare < DefaultParams().MinVerdictShare {
		t.Errorf("confident verdict (%.2f) with %.0f%% of the deviation explained", top.Confidence, 100*iv.ExplainedShare)
	}
	lo, hi := math.Min(iv.Baseline, iv.Observed), math.Max(iv.Baseline, iv.Observed)
	if iv.Counterfactual < lo-1e-12 || iv.Counterfactual > hi+1e-12 {
		t.Errorf("counterfactual %.4f outside [baseline %.4f, observed %.4f]", iv.Counterfactual, iv.Baseline, iv.Observed)
	}
	// Every candidate that explains nothing of the target must not be the
	// confident verdict: force it by ranking only by own change.
	p := DefaultParams()
	p.Weights = map[string]float64{TermOwn: 5}
	res2, _ := Analyze(g, b, Options{Params: &p})
	if res2.Confident && res2.Candidates[0].Intervention.ExplainedShare < p.MinVerdictShare {
		t.Errorf("confident verdict %s with %.0f%% explained", res2.Candidates[0].NodeID, 100*res2.Candidates[0].Intervention.ExplainedShare)
	}
	if !res2.Confident && res2.Abstention == "" {
		t.Error("abstention without a reason")
	}
}

func TestProbabilitiesSumToOne(t *testing.T) {
	b, g := chain(t, true)
	res, _ := Analyze(g, b, Options{})
	p := DefaultParams()
	probs, none := ServiceProbabilities(p.withAblation(nil).Weights, p.NoneScore, res.Scored)
	sum := none
	for _, v := range probs {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("probabilities sum to %v", sum)
	}
	// The reported confidence is the service's probability, calibrated.
	if want := p.Calibration.Apply(probs[res.Candidates[0].Service]); res.Candidates[0].Confidence != want {
		t.Errorf("top confidence %.4f, its service's calibrated probability %.4f", res.Candidates[0].Confidence, want)
	}
}

func TestCalibration(t *testing.T) {
	id := Calibration{Slope: 1}
	for _, p := range []float64{0, 0.1, 0.5, 0.9} {
		if got := id.Apply(p); math.Abs(got-p) > 1e-12 {
			t.Errorf("identity calibration of %v = %v", p, got)
		}
	}
	// No calibrated probability claims certainty.
	for _, p := range []float64{0.995, 0.9999, 1} {
		if got := id.Apply(p); got != MaxCalibrated {
			t.Errorf("calibration of %v = %v, want the ceiling %v", p, got, MaxCalibrated)
		}
	}
	// A model that says 0.6 when it is right nine times in ten is made
	// more confident; monotone.
	var pts []CalPoint
	for k := 0; k < 100; k++ {
		pts = append(pts, CalPoint{P: 0.6, Right: k%10 != 0}, CalPoint{P: 0.3, Right: k%2 == 0})
	}
	c := FitCalibration(pts)
	if got := c.Apply(0.6); got < 0.8 || got > 0.95 {
		t.Errorf("calibrated 0.6 = %.3f (slope %.2f, intercept %.2f), want about 0.9", got, c.Slope, c.Intercept)
	}
	if c.Apply(0.3) >= c.Apply(0.6) {
		t.Errorf("calibration not monotone")
	}
}

func TestCalibrateKeepsTheTopFirst(t *testing.T) {
	// A near tie: the calibration lowers the top (slope above 1), and the
	// others' shares of the rest would exceed it; capped at the top's.
	c := Calibration{Slope: 1.33, Intercept: 0.18}
	prob := map[string]float64{"a": 0.26, "b": 0.25, "c": 0.24, "d": 0.05}
	c.Calibrate(prob)
	if prob["a"] >= 0.26 {
		t.Fatalf("calibrated top %.3f, want it lowered (the test's premise)", prob["a"])
	}
	for _, s := range []string{"b", "c", "d"} {
		if prob[s] > prob["a"] {
			t.Errorf("%s %.3f above the top's %.3f", s, prob[s], prob["a"])
		}
	}
	if prob["d"] >= prob["c"] {
		t.Errorf("order below the top changed: c %.3f, d %.3f", prob["c"], prob["d"])
	}
	sum := 0.0
	for _, p := range prob {
		sum += p
	}
	if sum > 1+1e-12 {
		t.Errorf("probabilities sum to %.3f", sum)
	}
}

func TestFitLearnsTheInformativeTerm(t *testing.T) {
	// In every case the true service's candidate has the larger "own";
	// "downstream" is noise. The fit must weigh own positively and rank
	// the truth first.
	var cases []TrainingCase
	for k := 0; k < 30; k++ {
		noise := float64((k*7)%5) - 2
		cases = append(cases, TrainingCase{Name: "c", Set: "s", Truth: "root", Scored: []Scored{
			{Service: "root", Terms: map[string]float64{TermOwn: 2 + 0.1*float64(k%3), TermDownstream: noise}},
			{Service: "effect", Terms: map[string]float64{TermOwn: 1, TermDownstream: -noise}},
		}})
	}
	w, _ := Fit(cases, FitOptions{Terms: []string{TermOwn, TermDownstream}})
	if w[TermOwn] <= 0 {
		t.Fatalf("own weight %.3f, want positive", w[TermOwn])
	}
	if math.Abs(w[TermDownstream]) > w[TermOwn] {
		t.Errorf("noise term weight %.3f larger than the informative one %.3f", w[TermDownstream], w[TermOwn])
	}
	for _, c := range cases {
		if got := RankServices(w, c.Scored); got[0] != "root" {
			t.Fatalf("ranking %v", got)
		}
	}
	// The same fit twice gives the same weights (deterministic).
	w2, _ := Fit(cases, FitOptions{Terms: []string{TermOwn, TermDownstream}})
	if w2[TermOwn] != w[TermOwn] || w2[TermDownstream] != w[TermDownstream] {
		t.Error("fit is not deterministic")
	}
}

func TestAblationTurnsATermOff(t *testing.T) {
	b, g := chain(t, true)
	full, _ := Analyze(g, b, Options{})
	abl, _ := Analyze(g, b, Options{Ablate: []string{TermDownstream}})
	for _, c := range abl.Scored {
		if c.Terms[TermDownstream] == 0 {
			continue
		}
		want := 0.0
		p := DefaultParams().withAblation([]string{TermDownstream})
		for _, k := range Terms() {
			want += p.Weights[k] * c.Terms[k]
		}
		for _, cd := range abl.Candidates {
			if cd.Node == c.Node && math.Abs(cd.Score-want) > 1e-9 && cd.Score != want {
				// ancestorsFirst may lift a node to its service's best score
				if cd.Score < want {
					t.Errorf("%s: score %.3f, want %.3f without the downstream term", cd.NodeID, cd.Score, want)
				}
			}
		}
	}
	if _, err := ParseAblate("own,nope"); err == nil {
		t.Error("unknown term accepted")
	}
	if len(full.Scored) != len(abl.Scored) {
		t.Error("ablation changed the candidate set")
	}
}

// TestEffectPath: the path shown is the one the cause's effect takes, from
// the cause to the target over anomalous edges in their causal direction,
// with the share arriving at each step falling from 1.
func TestEffectPath(t *testing.T) {
	b, g := chain(t, true)
	res, err := Analyze(g, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var top Candidate
	for _, c := range res.Candidates {
		if c.Service == "db" {
			top = c
			break
		}
	}
	if len(top.PathShares) == 0 {
		t.Fatalf("db's candidate %s has no effect path (path %v)", top.NodeID, top.Path)
	}
	if last := top.Path[len(top.Path)-1]; last != g.Target {
		t.Errorf("path ends at %s, want the target", g.Nodes[last].ID)
	}
	if top.PathShares[0] != 1 {
		t.Errorf("share at the cause %v, want 1", top.PathShares[0])
	}
	for k := 1; k < len(top.Path); k++ {
		if s := top.PathShares[k]; !(s > 0 && s <= top.PathShares[k-1]) {
			t.Errorf("share at step %d = %v after %v: want positive and not rising", k, s, top.PathShares[k-1])
		}
		if e := top.PathEdges[k-1]; e < 0 || g.Edges[e].From != top.Path[k-1] || g.Edges[e].To != top.Path[k] {
			t.Errorf("step %d: edge %d is not %s → %s", k, e, g.Nodes[top.Path[k-1]].ID, g.Nodes[top.Path[k]].ID)
		}
	}
	var ids []string
	for _, i := range top.Path {
		ids = append(ids, g.Nodes[i].ID)
	}
	if !strings.Contains(strings.Join(ids, " "), "service/cart:latency") {
		t.Errorf("path %v does not go through cart, db's only way to the frontend", ids)
	}
}
