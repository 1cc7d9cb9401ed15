package causal

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// spanChain builds traced requests frontend → cart → db, one every 5 s for
// 20 minutes, each a frontend server span with a client span to cart
// (unlabelled kind, as Nezha's traces are), cart's server span, and cart's
// call to db. From minute 15, slow adds seconds to the named part: "db"
// (db's own work), "gap" (the network between frontend and cart: the
// client span grows, cart's server span does not) or "" (nothing).
func spanChain(t *testing.T, slow string) (*ingest.Bundle, *tcg.Graph) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	b := &ingest.Bundle{}
	var id ingest.SpanID
	next := func() ingest.SpanID { id++; return id }
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	for r := 0; r < 240; r++ {
		start := t0.Add(time.Duration(r) * 5 * time.Second)
		late := r >= 180
		tr := ingest.TraceID{Low: uint64(r + 1)}
		dbWork := 4 + rng.Float64()
		gap := 1 + 0.2*rng.Float64()
		if late && slow == "db" {
			dbWork += 40
		}
		if late && slow == "gap" {
			gap += 40
		}
		cartSelf := 3 + rng.Float64()
		feSelf := 5 + rng.Float64()
		dbDur := dbWork
		cartDur := cartSelf + dbDur + 0.5
		clientDur := cartDur + gap
		feDur := feSelf + clientDur
		fe, cl, ca, dbc, db := next(), next(), next(), next(), next()
		add := func(sid, parent ingest.SpanID, svc, op string, kind ingest.SpanKind, off, dur float64) {
			b.Spans = append(b.Spans, ingest.Span{TraceID: tr, SpanID: sid, ParentID: parent, Service: ingest.Intern(svc), Operation: ingest.Intern(op),
				Kind: kind, Start: start.Add(ms(off)), Duration: ms(dur), Source: ingest.Intern("test")})
		}
		add(fe, 0, "frontend", "GET /", ingest.SpanServer, 0, feDur)
		add(cl, fe, "frontend", "cart.Get", ingest.SpanUnspecified, feSelf/2, clientDur)
		add(ca, cl, "cart", "Get", ingest.SpanServer, feSelf/2+gap/2, cartDur)
		add(dbc, ca, "cart", "db.query", ingest.SpanClient, feSelf/2+gap/2+cartSelf/2, dbDur+0.5)
		add(db, dbc, "db", "query", ingest.SpanServer, feSelf/2+gap/2+cartSelf/2+0.25, dbDur)
	}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	at := t0.Add(16 * time.Minute)
	inc := tcg.Incident{Target: tcg.Target{Service: "frontend", Signal: ingest.SignalLatency}, At: at,
		WindowStart: at - ingest.Time(150*time.Second), WindowEnd: at + ingest.Time(150*time.Second), BaselineStart: b.Start}
	g, err := tcg.Build(b, inc, tcg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b, g
}

func topService(t *testing.T, g *tcg.Graph, b *ingest.Bundle, method string) string {
	t.Helper()
	res, err := Analyze(g, b, Options{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) == 0 {
		t.Fatalf("%s: no candidates (warnings %v)", method, res.Warnings)
	}
	return res.Candidates[0].Service
}

func TestSelfTimeFindsTheSlowService(t *testing.T) {
	b, g := spanChain(t, "db")
	if got := topService(t, g, b, "selftime"); got != "db" {
		t.Fatalf("selftime top %s, want db", got)
	}
}

func TestSelfTimeBlamesTheCalleeForACallGap(t *testing.T) {
	b, g := spanChain(t, "gap")
	res, _ := Analyze(g, b, Options{Method: "selftime"})
	if len(res.Candidates) == 0 || res.Candidates[0].Service != "cart" {
		t.Fatalf("selftime ranking %v, want cart (the callee of the slow call) first", services(res))
	}
	if res.Candidates[0].NodeID != "selftime/cart/:frontend → cart" {
		t.Errorf("top key %s, want the frontend → cart call", res.Candidates[0].NodeID)
	}
}

func TestSelfTimeNeedsSpans(t *testing.T) {
	b, g := chain(t, true)
	res, err := Analyze(g, b, Options{Method: "selftime"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 0 || len(res.Warnings) == 0 {
		t.Fatalf("selftime without spans: %d candidates, warnings %v; want none and a warning", len(res.Candidates), res.Warnings)
	}
}

func TestSelfTimeQuietOnAHealthySystem(t *testing.T) {
	b, g := spanChain(t, "")
	res, _ := Analyze(g, b, Options{Method: "selftime"})
	for _, c := range res.Candidates {
		if c.Score > 3 {
			t.Errorf("healthy system: %s scores %.2f > 3", c.NodeID, c.Score)
		}
	}
}

func TestExclusiveTimeUnionOfChildren(t *testing.T) {
	at := func(ms int) ingest.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	spans := []ingest.Span{
		{Start: at(0), Duration: 100 * time.Millisecond},
		{Start: at(10), Duration: 30 * time.Millisecond},  // 10–40
		{Start: at(20), Duration: 30 * time.Millisecond},  // 20–50 overlaps: union 10–50
		{Start: at(90), Duration: 50 * time.Millisecond},  // 90–140 clipped to 90–100
		{Start: at(-20), Duration: 25 * time.Millisecond}, // -20–5 clipped to 0–5
	}
	got, _ := exclusiveTime(spans, 0, []int32{1, 2, 3, 4}, nil)
	if want := 0.100 - 0.040 - 0.010 - 0.005; got < want-1e-9 || got > want+1e-9 {
		t.Fatalf("exclusive time %.6f s, want %.6f s", got, want)
	}
}

func TestTraversalWalksToTheDeepestAnomalousService(t *testing.T) {
	b, g := chain(t, true)
	res, err := Analyze(g, b, Options{Method: "traversal"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Service)
	}
	// db is the deepest anomalous service on the walk from frontend; cart
	// is anomalous but calls the anomalous db, so it comes after it.
	if len(got) < 3 || got[0] != "db" {
		t.Fatalf("traversal ranking %v, want db (the deepest anomalous callee) first", got)
	}
	pos := map[string]int{}
	for i, s := range got {
		pos[s] = i
	}
	if pos["cart"] < pos["mail"] {
		t.Errorf("traversal ranking %v: the leaf mail (anomalous, reached) must precede the intermediate cart", got)
	}
}

func TestCIRCAFindsTheChangedMechanism(t *testing.T) {
	b, g := chain(t, true)
	if got := topService(t, g, b, "circa"); got != "db" {
		t.Fatalf("circa top %s, want db", got)
	}
}

func TestTopoIndexBreaksCyclesDeterministically(t *testing.T) {
	// 0 → 1 → 2 → 1 (cycle), 3 isolated.
	parents := [][]int{nil, {0, 2}, {1}, nil}
	children := [][]int{{1}, {2}, {1}, nil}
	a := topoIndex(4, parents, children)
	b := topoIndex(4, parents, children)
	if a[0] != 0 || a[3] != 0 || a[1] <= a[0] || a[2] <= a[1] {
		t.Fatalf("levels %v: want 0 and 3 first, then 1, then 2", a)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("not deterministic: %v vs %v", a, b)
		}
	}
}
