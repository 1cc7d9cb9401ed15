package ingest

import (
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// DerivedSource is the Source of series derived from spans.
const DerivedSource = "derived:traces"

// Names of the series derived from spans. Latencies are in seconds, rates
// per second. Each cell g of the grid aggregates spans starting in (g-step, g],
// matching Prometheus' "value at t covers the step before t".
const (
	TraceRequests   = "trace_requests_per_second"   // entry spans of a service/pod (traffic)
	TraceErrors     = "trace_errors_per_second"     // entry spans marked error (errors)
	TraceErrorRatio = "trace_error_ratio"           // errors / requests (errors)
	TraceLatency    = "trace_latency_seconds"       // entry span duration; Stat p50/p90/p99/mean
	TraceSelf       = "trace_self_seconds"          // exclusive time of the service's spans per request
	EdgeClient      = "trace_edge_client_seconds"   // caller-side duration of calls on an edge
	EdgeServer      = "trace_edge_server_seconds"   // callee-side duration of calls on an edge
	EdgeGap         = "trace_edge_gap_seconds"      // client minus server: network and queueing
	EdgeCalls       = "trace_edge_calls_per_second" // calls on an edge (traffic)
	EdgeErrors      = "trace_edge_errors_per_second"
)

type aggKind uint8

const (
	aggService aggKind = iota
	aggPod
	aggEdge
)

type aggKey struct {
	kind aggKind
	a, b string // service | pod,service | caller,callee
}

type aggCell struct {
	n, errs   int32
	durs      []float32
	self      float64
	gapSum    float64
	gapN      int32
	server    []float32
	clientDur []float32
}

type agg struct {
	cells []aggCell
	node  string
}

// deriveTraceSeries aggregates spans into RED series per service, per pod
// (when a service has several pods) and per call edge, on the grid.
// parent is checkSpans' parent index of each span (-1: root or orphan).
// Complexity O(spans · log spans) for the quantiles.
func (b *Bundle) deriveTraceSeries(parent []int32) {
	if len(b.Spans) == 0 || len(b.Grid) == 0 {
		return
	}
	n := len(b.Grid)
	g0, step := int64(b.Grid[0]), int64(b.Step)
	cellOf := func(t Time) int {
		c := (int64(t) - g0 + step - 1) / step
		if c < 0 || c >= int64(n) {
			return -1
		}
		return int(c)
	}
	nChildren := make([]int32, len(b.Spans))
	crossChildren := make([]int32, len(b.Spans))
	for i := range b.Spans {
		if p := parent[i]; p >= 0 {
			nChildren[p]++
			if b.Spans[p].Service != b.Spans[i].Service {
				crossChildren[p]++
			}
		}
	}
	// Children intervals for self time: offsets into one flat array.
	off := make([]int32, len(b.Spans)+1)
	for i := range b.Spans {
		off[i+1] = off[i] + nChildren[i]
	}
	kids := make([]int32, off[len(b.Spans)])
	fill := make([]int32, len(b.Spans))
	for i := range b.Spans {
		if p := parent[i]; p >= 0 {
			kids[off[p]+fill[p]] = int32(i)
			fill[p]++
		}
	}
	podsOf := map[string]map[string]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		if s.Pod != "" {
			if podsOf[s.Service] == nil {
				podsOf[s.Service] = map[string]bool{}
			}
			podsOf[s.Service][s.Pod] = true
		}
	}
	// Cells with no span at all have no trace coverage: their rates are
	// unknown (NaN), not zero.
	covered := make([]bool, n)
	for i := range b.Spans {
		if c := cellOf(b.Spans[i].Start); c >= 0 {
			covered[c] = true
		}
	}
	// accumulate adds spans [lo, hi) to aggs. Every write goes to the cell
	// of the span being read, so two halves of the spans split at a cell
	// boundary touch disjoint cells and can run in parallel; merged, they
	// give exactly the sequential result (same values, same order).
	accumulate := func(lo, hi int, aggs map[aggKey]*agg) {
		get := func(k aggKey) *agg {
			a := aggs[k]
			if a == nil {
				a = &agg{cells: make([]aggCell, n)}
				aggs[k] = a
			}
			return a
		}
		var ivs [][2]int64
		for i := lo; i < hi; i++ {
			s := &b.Spans[i]
			c := cellOf(s.Start)
			if c < 0 {
				continue
			}
			dur := s.Duration.Seconds()
			// Exclusive time: duration minus the union of children intervals.
			ivs = ivs[:0]
			for _, k := range kids[off[i]:off[i+1]] {
				ch := &b.Spans[k]
				lo, hi := max(int64(ch.Start), int64(s.Start)), min(int64(ch.End()), int64(s.End()))
				if hi > lo {
					ivs = append(ivs, [2]int64{lo, hi})
				}
			}
			self := float64(s.Duration)
			if len(ivs) > 0 {
				sort.Slice(ivs, func(x, y int) bool { return ivs[x][0] < ivs[y][0] })
				covered, cur := int64(0), ivs[0]
				for _, iv := range ivs[1:] {
					if iv[0] <= cur[1] {
						cur[1] = max(cur[1], iv[1])
						continue
					}
					covered += cur[1] - cur[0]
					cur = iv
				}
				covered += cur[1] - cur[0]
				self -= float64(covered)
			}
			svc := get(aggKey{kind: aggService, a: s.Service})
			// A client span whose children are all in other services is the
			// caller's view of a call: its exclusive time is the network and
			// queueing gap, accounted on the edge, not the service's own work.
			if !(nChildren[i] > 0 && crossChildren[i] == nChildren[i]) {
				svc.cells[c].self += math.Max(self, 0) / 1e9
			}
			p := parent[i]
			entry := p < 0 || b.Spans[p].Service != s.Service
			if entry {
				cell := &svc.cells[c]
				cell.n++
				cell.durs = append(cell.durs, float32(dur))
				if s.Error {
					cell.errs++
				}
				if s.Pod != "" && len(podsOf[s.Service]) > 1 {
					pa := get(aggKey{kind: aggPod, a: s.Pod, b: s.Service})
					if pa.node == "" {
						pa.node = s.Node
					}
					pc := &pa.cells[c]
					pc.n++
					pc.durs = append(pc.durs, float32(dur))
					if s.Error {
						pc.errs++
					}
				}
			}
			if p >= 0 && b.Spans[p].Service != s.Service {
				ps := &b.Spans[p]
				e := get(aggKey{kind: aggEdge, a: ps.Service, b: s.Service})
				ec := &e.cells[c]
				ec.n++
				if s.Error {
					ec.errs++
				}
				ec.server = append(ec.server, float32(dur))
				// The parent is the caller's client-side view of this call when it
				// is a client span, or an unlabelled non-entry span whose only
				// children are in other services.
				pp := parent[p]
				clientSide := ps.Kind == SpanClient ||
					(ps.Kind == SpanUnspecified && pp >= 0 && b.Spans[pp].Service == ps.Service && crossChildren[p] == nChildren[p] && nChildren[p] == 1)
				if clientSide {
					cd := ps.Duration.Seconds()
					ec.clientDur = append(ec.clientDur, float32(cd))
					ec.gapSum += cd - dur
					ec.gapN++
				}
			}
			if s.Peer != "" && s.Peer != s.Service && nChildren[i] == 0 && (s.Kind == SpanClient || s.Kind == SpanUnspecified) {
				e := get(aggKey{kind: aggEdge, a: s.Service, b: s.Peer})
				ec := &e.cells[c]
				ec.n++
				if s.Error {
					ec.errs++
				}
				ec.clientDur = append(ec.clientDur, float32(dur))
			}
		}
	}
	// Spans are sorted by start, so cells increase along them: split at
	// the first span of the middle span's cell.
	mid := len(b.Spans) / 2
	cm := cellOf(b.Spans[mid].Start)
	for mid > 0 && cellOf(b.Spans[mid-1].Start) == cm {
		mid--
	}
	aggs, late := map[aggKey]*agg{}, map[aggKey]*agg{}
	if cm <= 0 || len(b.Spans) < parallelMinSpans {
		accumulate(0, len(b.Spans), aggs)
	} else {
		both(func() { accumulate(0, mid, aggs) }, func() { accumulate(mid, len(b.Spans), late) })
		for k, l := range late {
			a := aggs[k]
			if a == nil {
				aggs[k] = l
				continue
			}
			copy(a.cells[cm:], l.cells[cm:])
			if a.node == "" {
				a.node = l.node
			}
		}
	}
	keys := make([]aggKey, 0, len(aggs))
	for k := range aggs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		if keys[i].a != keys[j].a {
			return keys[i].a < keys[j].a
		}
		return keys[i].b < keys[j].b
	})
	perSec := 1 / b.Step.Seconds()
	for _, k := range keys {
		a := aggs[k]
		var ent Entity
		var labels Labels
		switch k.kind {
		case aggService:
			ent = Entity{Kind: KindService, Name: k.a, Service: k.a}
			labels = Labels{{"service", k.a}}
		case aggPod:
			ent = Entity{Kind: KindPod, Name: k.a, Service: k.b, Node: a.node}
			labels = Labels{{"pod", k.a}, {"service", k.b}}
		case aggEdge:
			ent = Entity{Kind: KindEdge, Name: k.a + "->" + k.b, Service: k.b, Caller: k.a, Callee: k.b}
			labels = Labels{{"callee", k.b}, {"caller", k.a}}
		}
		emit := func(name string, sig SignalKind, stat, unit string, f func(c *aggCell) float64) {
			v := make([]float64, n)
			any := false
			for i := range a.cells {
				if !covered[i] {
					v[i] = math.NaN()
					continue
				}
				v[i] = f(&a.cells[i])
				if !math.IsNaN(v[i]) {
					any = true
				}
			}
			if !any {
				return
			}
			ls := append(Labels{}, labels...)
			if stat != "" && stat != "rate" && stat != "ratio" {
				ls = append(ls, Label{"stat", stat})
				SortLabels(ls)
			}
			b.Series = append(b.Series, &Series{Name: name, Labels: ls, Entity: ent, Signal: sig, Stat: stat, Unit: unit,
				Source: DerivedSource, T: b.Grid, V: v, Aligned: true})
		}
		quant := func(sel func(c *aggCell) []float32, q float64) func(c *aggCell) float64 {
			return func(c *aggCell) float64 { return quantile32(sel(c), q) }
		}
		mean := func(sel func(c *aggCell) []float32) func(c *aggCell) float64 {
			return func(c *aggCell) float64 {
				d := sel(c)
				if len(d) == 0 {
					return math.NaN()
				}
				t := 0.0
				for _, x := range d {
					t += float64(x)
				}
				return t / float64(len(d))
			}
		}
		durs := func(c *aggCell) []float32 { return c.durs }
		switch k.kind {
		case aggService, aggPod:
			emit(TraceRequests, SignalTraffic, "rate", "1/s", func(c *aggCell) float64 { return float64(c.n) * perSec })
			emit(TraceErrors, SignalErrors, "rate", "1/s", func(c *aggCell) float64 { return float64(c.errs) * perSec })
			emit(TraceErrorRatio, SignalErrors, "ratio", "ratio", func(c *aggCell) float64 {
				if c.n == 0 {
					return math.NaN()
				}
				return float64(c.errs) / float64(c.n)
			})
			emit(TraceLatency, SignalLatency, "mean", "s", mean(durs))
			emit(TraceLatency, SignalLatency, "p50", "s", quant(durs, 0.50))
			emit(TraceLatency, SignalLatency, "p90", "s", quant(durs, 0.90))
			emit(TraceLatency, SignalLatency, "p99", "s", quant(durs, 0.99))
			if k.kind == aggService {
				emit(TraceSelf, SignalLatency, "self", "s", func(c *aggCell) float64 {
					if c.n == 0 {
						return math.NaN()
					}
					return c.self / float64(c.n)
				})
			}
		case aggEdge:
			client := func(c *aggCell) []float32 { return c.clientDur }
			server := func(c *aggCell) []float32 { return c.server }
			emit(EdgeCalls, SignalTraffic, "rate", "1/s", func(c *aggCell) float64 { return float64(c.n) * perSec })
			emit(EdgeErrors, SignalErrors, "rate", "1/s", func(c *aggCell) float64 { return float64(c.errs) * perSec })
			emit(EdgeClient, SignalLatency, "mean", "s", mean(client))
			emit(EdgeClient, SignalLatency, "p90", "s", quant(client, 0.90))
			emit(EdgeServer, SignalLatency, "mean", "s", mean(server))
			emit(EdgeServer, SignalLatency, "p90", "s", quant(server, 0.90))
			emit(EdgeGap, SignalLatency, "gap", "s", func(c *aggCell) float64 {
				if c.gapN == 0 {
					return math.NaN()
				}
				return c.gapSum / float64(c.gapN)
			})
		}
	}
}

// quantile32 is measure.QuantileSorted of xs after sorting xs in place.
func quantile32(xs []float32, q float64) float64 {
	if !slices.IsSorted(xs) {
		slices.Sort(xs)
	}
	return measure.QuantileSorted(xs, q)
}
