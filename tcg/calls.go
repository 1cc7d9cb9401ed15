package tcg

import (
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// CallsPerRequest is a caller's calls to its dependencies per request it
// serves, against the baseline's: per cell, over the dependencies whose
// calls can be counted, the most negative signed Poisson deviance residual
// of the calls made given the calls its requests made at the baseline's
// rate, each in its baseline's spread (a standard deviate: about 0 at the
// baseline's rate, negative for fewer calls). A service that stops making
// the calls its requests make — an exception thrown before them, a wrong
// branch, a call left out — shows here while its own load, latency and
// resource use look as before; its callees see the calls it no longer
// makes as a fall in their traffic, which is never a cause of its own.
const CallsPerRequest = "calls_per_request_shift"

// callsSeries derives the CallsPerRequest series of every service whose
// requests and whose calls to at least one dependency are counted: a
// call edge's own count (spans, service-graph or mesh metrics) or, for a
// dependency with no other known caller, the dependency's requests. The
// baseline is cells [b0, b1). O(calls · cells).
func callsSeries(b *ingest.Bundle, calls []call, counts map[string]CountSeries, b0, b1 int) []*ingest.Series {
	n := len(b.Grid)
	if n == 0 || b1-b0 < 2 {
		return nil
	}
	// The call topology (topologyOf): dependencies and call edges.
	callees := map[string][]string{}
	callers := map[string]int{}
	for _, c := range calls {
		callees[c.caller] = append(callees[c.caller], c.callee)
		callers[c.callee]++
	}
	// A service's requests per cell: its own count, else its pods' sum.
	pods := map[string][]string{}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindPod && e.Service != "" {
			pods[e.Service] = append(pods[e.Service], e.ID())
		}
	}
	// Two views of the counts: every source's (spans first, requestCounts)
	// and the metrics' alone. Spans may cover only minutes around an
	// incident while the metrics cover the baseline too; each pair of
	// counts (a caller's requests, its calls to one dependency) comes from
	// one view, the first whose baseline knows the rate.
	views := []map[string]CountSeries{counts}
	if anyDerived(counts) {
		views = append(views, requestCounts(measured(b.Series), b.Step))
	}
	// requests is a service's requests per cell in one view (memoised: a
	// service is asked once per view, however many pods or callers).
	type viewSvc struct {
		view int
		svc  string
	}
	memo := map[viewSvc][]float64{}
	requests := func(view int, svc string) []float64 {
		k := viewSvc{view, svc}
		if v, ok := memo[k]; ok {
			return v
		}
		v := serviceRequests(views[view], pods[svc], svc, n)
		memo[k] = v
		return v
	}
	// residuals is the first view's residuals of a's calls to c.
	residuals := func(a, c string) []float64 {
		for view, counts := range views {
			in := requests(view, a)
			if in == nil {
				continue
			}
			var made []float64
			if cs, ok := counts[ingest.Entity{Kind: ingest.KindEdge, Name: a + "->" + c}.ID()]; ok {
				made = countsOf(cs, n)
			} else if callers[c] == 1 {
				made = requests(view, c) // its only caller's calls
			}
			if d := callResiduals(in, made, b0, b1); d != nil {
				return d
			}
		}
		return nil
	}
	names := make([]string, 0, len(callees))
	for a := range callees {
		names = append(names, a)
	}
	sort.Strings(names)
	var out []*ingest.Series
	for _, a := range names {
		var shift []float64
		for _, c := range callees[a] { // sorted: calls is
			d := residuals(a, c)
			if d == nil {
				continue
			}
			if shift == nil {
				shift = d
				continue
			}
			for t := range shift {
				if math.IsNaN(shift[t]) || d[t] < shift[t] {
					shift[t] = d[t]
				}
			}
		}
		if shift == nil {
			continue
		}
		ent := svcEntity(a)
		out = append(out, &ingest.Series{Name: CallsPerRequest, Entity: ent, Signal: ingest.SignalErrors, Stat: "shift", Unit: "z",
			Source: ingest.DerivedSource, T: b.Grid, V: shift, Aligned: true})
	}
	return out
}

// serviceRequests is a service's requests per cell on a grid of n cells:
// its own count, else the sum of its pods' (nil when a pod is not counted:
// the service's requests are then not known).
func serviceRequests(counts map[string]CountSeries, pods []string, svc string, n int) []float64 {
	if cs, ok := counts[svcEntity(svc).ID()]; ok {
		return countsOf(cs, n)
	}
	var sum []float64
	for _, id := range slices.Sorted(slices.Values(pods)) {
		cs, ok := counts[id]
		if !ok {
			return nil
		}
		v := countsOf(cs, n)
		if sum == nil {
			sum = v
			continue
		}
		for t := range sum {
			sum[t] += v[t]
		}
	}
	return sum
}

// anyDerived reports whether a count comes from spans or logs.
func anyDerived(counts map[string]CountSeries) bool {
	for _, cs := range counts {
		if cs.Series.Source == ingest.DerivedSource {
			return true
		}
	}
	return false
}

// measured is the series not derived from spans or logs (the metrics).
func measured(series []*ingest.Series) []*ingest.Series {
	var out []*ingest.Series
	for _, s := range series {
		if s.Source != ingest.DerivedSource {
			out = append(out, s)
		}
	}
	return out
}

// countsOf is a count series' requests per cell on a grid of n cells.
func countsOf(cs CountSeries, n int) []float64 {
	v := make([]float64, n)
	for t := range v {
		v[t] = cs.At(t)
	}
	return v
}

// callResiduals is, per cell, the signed Poisson deviance residual of the
// calls made given the requests served at the baseline's calls per
// request (cells [b0, b1)), in the baseline residuals' robust spread
// around their median (a spread of at least 1); nil when the baseline
// does not know the rate.
func callResiduals(in, made []float64, b0, b1 int) []float64 {
	if len(made) != len(in) {
		return nil
	}
	var sumIn, sumMade float64
	known := 0
	for t := b0; t < b1; t++ {
		if x, y := in[t], made[t]; !math.IsNaN(x) && !math.IsNaN(y) && x > 0 {
			sumIn, sumMade = sumIn+x, sumMade+y
			known++
		}
	}
	if sumMade < callsMinBaseline || float64(known) < callsMinCellShare*float64(b1-b0) {
		return nil
	}
	rate := sumMade / sumIn
	d := make([]float64, len(in))
	var base []float64
	for t := range d {
		x, k := in[t], made[t]
		if math.IsNaN(x) || math.IsNaN(k) || x <= 0 {
			d[t] = math.NaN()
			continue
		}
		d[t] = poissonResidual(math.Max(k, 0), rate*x)
		if t >= b0 && t < b1 {
			base = append(base, d[t])
		}
	}
	// In the dependency's own baseline spread (at least Poisson's): calls
	// per request vary more than Poisson's where requests differ (a cart's
	// items, a page's widgets), and one such dependency must not drown
	// another's stop.
	med, mad := measure.MedianMAD(base, nil)
	scale := math.Max(measure.MADToSigma*mad, 1)
	for t, x := range d {
		d[t] = (x - med) / scale
	}
	return d
}

// poissonResidual is the signed deviance residual of k events where e
// were expected: ±√(2(k·ln(k/e) − (k − e))), negative when k < e.
func poissonResidual(k, e float64) float64 {
	if e <= 0 {
		return math.NaN()
	}
	dev := e - k
	if k > 0 {
		dev = k*math.Log(k/e) - (k - e)
	}
	r := math.Sqrt(2 * math.Max(dev, 0))
	if k < e {
		return -r
	}
	return r
}

// callsEdges links each service's calls node (CallsPerRequest) to what
// its requests' missing calls do and to what can make them go missing.
// Effects: its own errors and latency and its callers' (a request served without
// the calls it needs fails or returns early, and a wrong answer fails its
// caller). Causes: a callee's failure (errors, restarts: a request ends at
// the failed call, before its later calls). Not its mix of operations:
// that moves with what its callers send, which its own failures change
// (an edge from it would close a cycle through them). Its callees' traffic falls
// by the calls not made, but a fall in traffic is never an anomaly to
// explain (a surge is, which fewer calls cannot cause): no edge to it.
func (g *Graph) callsEdges(eb *edgeBuilder) {
	for i, n := range g.Nodes {
		if n.Facet != FacetCalls || n.Entity.Kind != ingest.KindService {
			continue
		}
		svc := n.Entity.Name
		for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
			eb.add(i, g.find(svcEntity(svc), sig, FacetNone), EdgeComponent, 0.85, "requests served without the calls they make fail or return early")
		}
		for _, c := range g.calls {
			switch {
			case c.caller == svc && c.callee != svc:
				edge := ingest.Entity{Kind: ingest.KindEdge, Name: svc + "->" + c.callee}
				for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalRestarts} {
					eb.add(g.find(svcEntity(c.callee), sig, FacetNone), i, EdgeCall, 0.7, "a failed call ends the request before its later calls")
				}
				eb.add(g.find(edge, ingest.SignalErrors, FacetNone), i, EdgeCall, 0.7, "a failed call ends the request before its later calls")
			case c.callee == svc && c.caller != svc:
				edge := ingest.Entity{Kind: ingest.KindEdge, Name: c.caller + "->" + svc}
				for _, sig := range []ingest.SignalKind{ingest.SignalErrors, ingest.SignalLatency} {
					eb.add(i, g.find(svcEntity(c.caller), sig, FacetNone), EdgeCall, 0.7, "what it answers without its calls reaches its callers")
					eb.add(i, g.find(edge, sig, FacetNone), EdgeCall, 0.7, "what it answers without its calls reaches its callers")
				}
			}
		}
	}
}
