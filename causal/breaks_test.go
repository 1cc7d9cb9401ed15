package causal

import (
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

func TestRequestBreaks(t *testing.T) {
	ps := []ingest.PatternShift{
		// broke: 240/241 → 28/212, significant over the 4 services tested
		{Service: "orders", P: 1e-20, BaselineHits: 240, BaselineN: 241, WindowHits: 28, WindowN: 212},
		// significant but a shift, not a break: 29% → 35% of requests
		{Service: "frontend", P: 1e-30, BaselineHits: 960, BaselineN: 3302, WindowHits: 1072, WindowN: 3103},
		// broke, but p 3e-4 × 4 services is not under 1e-3
		{Service: "seats", P: 3e-4, BaselineHits: 50, BaselineN: 50, WindowHits: 5, WindowN: 40},
		// broke and significant, less so than orders
		{Service: "basic", P: 1e-8, BaselineHits: 104, BaselineN: 106, WindowHits: 0, WindowN: 34},
		// a pattern after a call (an edge's owner) is not a service's own
		{Service: "gateway", Callee: "orders", P: 1e-40, BaselineHits: 100, BaselineN: 100, WindowHits: 0, WindowN: 100},
	}
	if got, want := breakServices(RequestBreaks(ps, 1e-3, 0.5, 0.5)), []string{"orders", "basic"}; !slices.Equal(got, want) {
		t.Errorf("breaks %v, want %v", got, want)
	}
	if n := len(RequestBreaks(ps, 1e-3, 0.05, 0.05)); n != 3 {
		t.Errorf("with a 5%% move counting as a break: %d services, want 3 (frontend too)", n)
	}
	// A caller's break that begins at the answer of a call to a service
	// whose requests broke too is explained by it: the callee comes first,
	// however much more traffic (a smaller p) the caller has.
	chain := []ingest.PatternShift{
		{Service: "frontend", AfterCall: "checkout", P: 1e-30, BaselineHits: 40, BaselineN: 40, WindowHits: 6, WindowN: 22},
		{Service: "checkout", AfterCall: "payment", P: 1e-10, BaselineHits: 40, BaselineN: 40, WindowHits: 6, WindowN: 22},
	}
	if got, want := breakServices(RequestBreaks(chain, 1e-3, 0.5, 0.1)), []string{"checkout", "frontend"}; !slices.Equal(got, want) {
		t.Errorf("caller and callee broke: %v, want %v", got, want)
	}
	// Every service tested counts in the correction, those whose requests
	// did nothing new too: 2e-4 × 4 is under 1e-3, 2e-4 × 6 is not.
	quiet := []ingest.PatternShift{
		{Service: "seats", P: 2e-4, BaselineHits: 50, BaselineN: 50, WindowHits: 5, WindowN: 40},
		{Service: "a", P: 0.2, BaselineHits: 50, BaselineN: 50, WindowHits: 40, WindowN: 40},
		{Service: "b", P: 1, BaselineHits: 50, BaselineN: 50, WindowHits: 40, WindowN: 40},
		{Service: "c", P: 1, BaselineHits: 50, BaselineN: 50, WindowHits: 40, WindowN: 40},
	}
	if n := len(RequestBreaks(quiet, 1e-3, 0.5, 0.1)); n != 1 {
		t.Errorf("one break among four services tested: %d breaks", n)
	}
	quiet = append(quiet, quiet[3], quiet[3])
	if n := len(RequestBreaks(quiet, 1e-3, 0.5, 0.1)); n != 0 {
		t.Errorf("p 2e-4 among six services tested: %d breaks, want none", n)
	}
	// A step that every baseline request took (59 of 59) and that 23 of 50
	// window requests skip (an exception thrown in some of them) broke,
	// though not in a majority; the same move of a step the baseline took
	// in 4 of 5 requests is a shift. 1 − 27/50 = 0.46, under BreakShare.
	partial := []ingest.PatternShift{
		{Service: "travel", P: 1e-7, BaselineHits: 59, BaselineN: 59, WindowHits: 27, WindowN: 50},
		{Service: "seats", P: 1e-7, BaselineHits: 400, BaselineN: 500, WindowHits: 17, WindowN: 50},
	}
	if got, want := breakServices(RequestBreaks(partial, 1e-3, 0.5, 0.1)), []string{"travel"}; !slices.Equal(got, want) {
		t.Errorf("invariant step skipped by 46%%: breaks %v, want %v", got, want)
	}
	if n := len(RequestBreaks(partial, 1e-3, 0.5, 0.5)); n != 0 {
		t.Errorf("with the invariant floor at a majority: %d breaks, want none", n)
	}
	// Under the invariant floor (1 in 20 requests skip it) it is no break.
	partial[0].WindowHits = 48
	if n := len(RequestBreaks(partial[:1], 1e-3, 0.5, 0.1)); n != 0 {
		t.Errorf("invariant step skipped by 4%%: %d breaks, want none", n)
	}
	if n := len(RequestBreaks(nil, 1e-3, 0.5, 0.1)); n != 0 {
		t.Errorf("no patterns: %d breaks", n)
	}
}

func TestRequestBreakFirst(t *testing.T) {
	g := &tcg.Graph{Nodes: []*tcg.Node{
		{ID: "service/gw:latency", Signal: ingest.SignalLatency, Anomaly: tcg.Anomaly{Score: 1.2, Anomalous: true}},
		{ID: "edge/a->b:latency/gap", Entity: ingest.Entity{Kind: ingest.KindEdge, Name: "a->b", Service: "b"}, Signal: ingest.SignalLatency, Facet: "gap"},
		{ID: "service/c:cpu", Entity: ingest.Entity{Kind: ingest.KindService, Name: "c", Service: "c"}, Signal: ingest.SignalCPU},
		{ID: "service/orders:latency", Entity: ingest.Entity{Kind: ingest.KindService, Name: "orders", Service: "orders"}, Signal: ingest.SignalLatency},
		{ID: "service/orders:logs/pattern", Entity: ingest.Entity{Kind: ingest.KindService, Name: "orders", Service: "orders"}, Signal: ingest.SignalLogs, Facet: "pattern"},
	}, Target: 0, Threshold: 3}
	mk := func() []scored {
		var cs []scored
		for i := 1; i < len(g.Nodes); i++ {
			cs = append(cs, scored{node: i, terms: map[string]float64{}, score: float64(30 - i)})
		}
		return cs
	}
	order := candidateNodes
	breaks := "orders"
	// The target barely moved: the broken service's pattern goes first,
	// the candidates it passed score below it.
	cs := requestBreakFirst(g, mk(), breaks, 0.05)
	if got := order(cs); !slices.Equal(got, []int{4, 1, 2, 3}) {
		t.Errorf("barely moved: order %v, want [4 1 2 3]", got)
	}
	for _, c := range cs[1:] {
		if c.score >= cs[0].score {
			t.Errorf("%s scores %v, not below the first's %v", g.Nodes[c.node].ID, c.score, cs[0].score)
		}
	}
	// Without a pattern candidate, the service's best candidate goes.
	noPattern := mk()[:3]
	if got := order(requestBreakFirst(g, noPattern, breaks, 0.05)); !slices.Equal(got, []int{3, 1, 2}) {
		t.Errorf("no pattern candidate: order %v, want [3 1 2]", got)
	}
	// A target that moved and a first candidate that explains a share of
	// it: the mechanisms decide, the order stands.
	g.Nodes[0].Score = 9
	explaining := mk()
	explaining[0].terms[TermTargetShare] = 0.3
	if got := order(requestBreakFirst(g, explaining, breaks, 0.05)); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("target moved, first explains 30%%: order %v, want [1 2 3 4]", got)
	}
	// A target that moved but a first candidate that explains under the
	// least share (here 2%; the others none): nothing ties a candidate to
	// the target, the broken service goes first.
	weak := mk()
	weak[0].terms[TermTargetShare] = 0.02
	weak[1].terms[TermTargetShare] = 0.4 // only the first one's share counts
	if got := order(requestBreakFirst(g, weak, breaks, 0.05)); !slices.Equal(got, []int{4, 1, 2, 3}) {
		t.Errorf("target moved, first explains 2%%: order %v, want [4 1 2 3]", got)
	}
	// No break: the order stands.
	g.Nodes[0].Score = 1.2
	if got := order(requestBreakFirst(g, mk(), "", 0.05)); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("no break: order %v, want [1 2 3 4]", got)
	}
}

func TestBreakOriginOf(t *testing.T) {
	// Two callers whose requests end right after calling catalog, where
	// they went on to other calls (an exception in catalog answered as
	// an error): catalog is the origin, though it has no pattern of its own.
	frontend := ingest.PatternShift{Service: "frontend", After: "a call to catalog", AfterCall: "catalog", P: 1e-30,
		BaselineHits: 2425, BaselineN: 3952, WindowHits: 36, WindowN: 928}
	checkout := ingest.PatternShift{Service: "checkout", After: "a call to catalog", AfterCall: "catalog", P: 1e-12,
		BaselineHits: 45, BaselineN: 78, WindowHits: 1, WindowN: 21}
	if svc, callers := BreakOriginOf([]ingest.PatternShift{frontend, checkout}); svc != "catalog" || !slices.Equal(callers, []string{"frontend", "checkout"}) {
		t.Errorf("two callers react to catalog's answer: origin %q, callers %v; want catalog, [frontend checkout]", svc, callers)
	}
	// One caller alone may have changed its own handling of the answer.
	if svc, callers := BreakOriginOf([]ingest.PatternShift{frontend}); svc != "frontend" || callers != nil {
		t.Errorf("one caller: origin %q, callers %v; want frontend, none", svc, callers)
	}
	// The second break begins elsewhere: no shared reaction.
	other := checkout
	other.AfterCall, other.After = "", "the request's start"
	if svc, _ := BreakOriginOf([]ingest.PatternShift{frontend, other}); svc != "frontend" {
		t.Errorf("breaks at different steps: origin %q, want frontend", svc)
	}
	// A first break not at a call's answer is its own origin.
	if svc, _ := BreakOriginOf([]ingest.PatternShift{other, frontend}); svc != "checkout" {
		t.Errorf("first break at the request's start: origin %q, want checkout", svc)
	}
	if svc, callers := BreakOriginOf(nil); svc != "" || callers != nil {
		t.Errorf("no breaks: %q %v", svc, callers)
	}
}

// breakServices lists the breaks' services in order.
func breakServices(ps []ingest.PatternShift) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Service)
	}
	return out
}

// candidateNodes lists the candidates' nodes in order.
func candidateNodes(cs []scored) []int {
	var o []int
	for _, c := range cs {
		o = append(o, c.node)
	}
	return o
}
