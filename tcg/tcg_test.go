package tcg

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

var t0 = ingest.FromTime(time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC))

// series builds a 15 s series of n points: base + noise, plus shift from
// index onset on (when onset >= 0).
func series(name string, ent ingest.Entity, sig ingest.SignalKind, unit string, n int, base, noise, shift float64, onset int, rng *rand.Rand) *ingest.Series {
	s := &ingest.Series{Name: name, Labels: ingest.Labels{{Name: "id", Value: ent.Name}}, Entity: ent, Signal: sig, Unit: unit, Source: "test"}
	for i := 0; i < n; i++ {
		v := base + noise*rng.NormFloat64()
		if onset >= 0 && i >= onset {
			v += shift
		}
		s.T = append(s.T, t0.Add(time.Duration(i)*15*time.Second))
		s.V = append(s.V, v)
	}
	return s
}

func svc(name string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindService, Name: name, Service: name}
}

// chainBundle: frontend → cart → db (calls); db latency jumps at cell 80,
// cart at 81, frontend at 82. 100 cells of 15 s.
func chainBundle(t *testing.T) *ingest.Bundle {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	b := &ingest.Bundle{
		Deps: []ingest.Dependency{{Parent: "frontend", Child: "cart", CallCount: 10}, {Parent: "cart", Child: "db", CallCount: 10}},
		Series: []*ingest.Series{
			series("db_latency", svc("db"), ingest.SignalLatency, "s", 100, 0.010, 0.001, 0.200, 80, rng),
			series("cart_latency", svc("cart"), ingest.SignalLatency, "s", 100, 0.030, 0.002, 0.200, 81, rng),
			series("frontend_latency", svc("frontend"), ingest.SignalLatency, "s", 100, 0.080, 0.004, 0.200, 82, rng),
			series("frontend_cpu", svc("frontend"), ingest.SignalCPU, "", 100, 0.5, 0.02, 0, -1, rng),
		},
	}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	return b
}

func chainIncident(b *ingest.Bundle) Incident {
	at := t0.Add(84 * 15 * time.Second)
	return Incident{Target: Target{Service: "frontend", Signal: ingest.SignalLatency}, At: at,
		WindowStart: at - ingest.Time(150*time.Second), WindowEnd: at + ingest.Time(150*time.Second), BaselineStart: b.Start}
}

func TestDetect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	grid := make([]ingest.Time, 100)
	for i := range grid {
		grid[i] = t0.Add(time.Duration(i) * 15 * time.Second)
	}
	for _, tc := range []struct {
		name      string
		shift     float64
		dir       int
		anomalous bool
	}{
		{"up shift, up is bad", 5, 1, true},
		{"down shift, down is bad (clock drop)", -5, -1, true},
		{"down shift, up is bad", -5, 1, false},
		{"no shift", 0, 1, false},
		{"up shift, either direction", 5, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := series("x", svc("a"), ingest.SignalLatency, "", 100, 10, 0.5, tc.shift, 85, rng)
			a := detect(s.V, 0, 80, 80, 100, tc.dir, 3, grid)
			if a.Anomalous != tc.anomalous {
				t.Fatalf("anomalous = %v, want %v (score %.2f)", a.Anomalous, tc.anomalous, a.Score)
			}
			if tc.anomalous && (a.OnsetIdx < 84 || a.OnsetIdx > 86) {
				t.Errorf("onset index %d, want ~85", a.OnsetIdx)
			}
			if tc.anomalous && a.Score < 5 {
				t.Errorf("score %.2f, want ≥ 5 for a 10σ shift", a.Score)
			}
		})
	}
}

func TestDetectConstantBaseline(t *testing.T) {
	grid := make([]ingest.Time, 20)
	v := make([]float64, 20)
	for i := range v {
		grid[i] = t0.Add(time.Duration(i) * time.Minute)
		if i >= 15 {
			v[i] = 4
		}
	}
	a := detect(v, 0, 10, 10, 20, 1, 3, grid)
	if !a.Anomalous || math.IsInf(a.Score, 0) || a.Score > 1000 {
		t.Fatalf("constant-zero baseline: anomalous=%v score=%v; want anomalous with a finite score", a.Anomalous, a.Score)
	}
}

func TestTailShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := make([]float64, 2000)
	same := make([]float64, 500)
	slow := make([]float64, 500)
	for i := range base {
		base[i] = rng.ExpFloat64()
	}
	for i := range same {
		same[i] = rng.ExpFloat64()
		slow[i] = rng.ExpFloat64() * 2
	}
	if ts := tailShift(append([]float64{}, base...), same, 0.9, 0.05); ts == nil || ts.Shifted {
		t.Errorf("same distribution flagged as shifted: %+v", ts)
	}
	ts := tailShift(append([]float64{}, base...), slow, 0.9, 0.05)
	if ts == nil || !ts.Shifted {
		t.Fatalf("doubled durations not flagged: %+v", ts)
	}
	wantEps := math.Sqrt(math.Log(2/0.05)/(2*2000)) + math.Sqrt(math.Log(2/0.05)/(2*500))
	if math.Abs(ts.Bound-(0.1+wantEps)) > 1e-12 {
		t.Errorf("DKW bound %.6f, want %.6f", ts.Bound, 0.1+wantEps)
	}
	if tailShift(base[:5], slow, 0.9, 0.05) != nil {
		t.Error("too few baseline samples should give no test")
	}
}

func TestStateMachineChain(t *testing.T) {
	b := chainBundle(t)
	g, err := Build(b, chainIncident(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Target < 0 || g.Nodes[g.Target].ID != "service/frontend:latency" {
		t.Fatalf("target = %d", g.Target)
	}
	state := func(id string) *Node {
		i := g.NodeByID(id)
		if i < 0 {
			t.Fatalf("no node %s", id)
		}
		return g.Nodes[i]
	}
	db, cart, fe := state("service/db:latency"), state("service/cart:latency"), state("service/frontend:latency")
	// The graph stage goes as far as PROPAGATING (the causal stage
	// confirms roots): db's effect cart followed it, and frontend, the
	// last, propagated nothing.
	if db.State != Propagating {
		t.Errorf("db: %v, want PROPAGATING (transitions %+v)", db.State, db.Transitions)
	}
	if fe.State != Triggered {
		t.Errorf("frontend %v, want TRIGGERED (nothing follows it)", fe.State)
	}
	for _, n := range g.Nodes {
		if n.State == RootConfirmed {
			t.Errorf("%s is ROOT_CONFIRMED: the graph stage must leave that to the causal stage", n.ID)
		}
	}
	if !(db.Onset < cart.Onset && cart.Onset < fe.Onset) {
		t.Errorf("onsets db %v cart %v frontend %v, want increasing", db.Onset, cart.Onset, fe.Onset)
	}
	if len(db.Transitions) < 2 || db.Transitions[0].To != Triggered {
		t.Errorf("db transitions %+v: want TRIGGERED first, then more", db.Transitions)
	}
	if db.Depth != 2 || cart.Depth != 1 || fe.Depth != 0 {
		t.Errorf("depths db %d cart %d frontend %d, want 2 1 0", db.Depth, cart.Depth, fe.Depth)
	}
	if cpu := state("service/frontend:cpu"); cpu.Anomalous || cpu.State != Idle {
		t.Errorf("flat cpu: anomalous=%v state=%v", cpu.Anomalous, cpu.State)
	}
}

func TestBuildDeterministic(t *testing.T) {
	b := chainBundle(t)
	g1, _ := Build(b, chainIncident(b), Options{})
	g2, _ := Build(b, chainIncident(b), Options{})
	if g1.DOT() != g2.DOT() {
		t.Fatal("same inputs gave different graphs")
	}
	for i, e := range g1.Edges {
		if e != g2.Edges[i] {
			t.Fatalf("edge %d differs: %+v vs %+v", i, e, g2.Edges[i])
		}
	}
}

func TestResolveIncident(t *testing.T) {
	b := chainBundle(t)
	b.Alerts = []ingest.Alert{{Name: "HighLatency", Status: "firing", StartsAt: t0.Add(20 * time.Minute), Service: "frontend",
		Signal: ingest.SignalLatency, Stat: "p99", Source: "alert.json"}}
	inc, err := ResolveIncident(b, IncidentSpec{Window: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if inc.At != t0.Add(20*time.Minute) || inc.Target.Service != "frontend" || inc.Target.Stat != "p99" {
		t.Errorf("from alert: %+v", inc)
	}
	if inc.WindowStart != inc.At-ingest.Time(150*time.Second) {
		t.Errorf("window start %v", inc.WindowStart)
	}
	inc, err = ResolveIncident(b, IncidentSpec{Window: time.Minute, At: t0.Add(10 * time.Minute), Target: Target{Service: "cart", Signal: ingest.SignalErrors}})
	if err != nil {
		t.Fatal(err)
	}
	if inc.Target.Service != "cart" || inc.TargetChosenBy != "--target flag" || inc.AtChosenBy != "--at flag" {
		t.Errorf("flags must win over the alert: %+v", inc)
	}
}

// TestDetectHeldSample: a minute's metric carried over four cells of a
// 15-second grid shows one high sample as four high cells; it is one
// observation, not an onset. Two high samples are.
func TestDetectHeldSample(t *testing.T) {
	grid := make([]ingest.Time, 80)
	for i := range grid {
		grid[i] = t0.Add(time.Duration(i) * 15 * time.Second)
	}
	series := func(high ...int) []float64 {
		v := make([]float64, 80)
		for i := range v {
			v[i] = 10 + float64((i/4)%3) // a sample per minute, held
			for _, h := range high {
				if i/4 == h {
					v[i] = 100
				}
			}
		}
		return v
	}
	if a := detectHeld(series(15), 0, 56, 56, 80, 1, 3, grid, 4); a.Anomalous {
		t.Errorf("one high sample held over 4 cells: anomalous (onset %d, score %.1f), want not", a.OnsetIdx, a.Score)
	}
	if a := detect(series(15), 0, 56, 56, 80, 1, 3, grid); !a.Anomalous {
		t.Errorf("without the hold the 4 cells read as sustained: want anomalous (as before)")
	}
	if a := detectHeld(series(15, 16), 0, 56, 56, 80, 1, 3, grid, 4); !a.Anomalous || a.OnsetIdx != 60 {
		t.Errorf("two high samples: anomalous=%v onset %d, want anomalous from cell 60", a.Anomalous, a.OnsetIdx)
	}
}

// TestNaturalScale: a count of log records and a rate of spans are floored
// at their Poisson spread, a series of standard deviates at 1.
func TestNaturalScale(t *testing.T) {
	logs := &ingest.Series{Signal: ingest.SignalLogs, Stat: "count"}
	if got := naturalScale(logs, 0, time.Minute); got != 1 {
		t.Errorf("log count at 0: scale %v, want 1", got)
	}
	if got := naturalScale(logs, 16, time.Minute); got != 4 {
		t.Errorf("log count at 16: scale %v, want 4", got)
	}
	rate := &ingest.Series{Source: ingest.DerivedSource, Unit: "1/s"}
	if got := naturalScale(rate, 0, 15*time.Second); math.Abs(got-1.0/15) > 1e-12 {
		t.Errorf("span rate at 0 per 15 s: scale %v, want one span per step", got)
	}
	if got := naturalScale(&ingest.Series{Unit: "z"}, 0.2, time.Minute); got != 1 {
		t.Errorf("a z series: scale %v, want 1", got)
	}
	if got := naturalScale(&ingest.Series{Unit: "s"}, 0.2, time.Minute); got != 0 {
		t.Errorf("a latency: scale %v, want none", got)
	}
}
