package features

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/radix"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

type aggKind uint8

const (
	aggService aggKind = iota
	aggPod
	aggEdge
)

type aggKey struct {
	kind aggKind
	a, b ingest.Sym // service | pod,service | caller,callee
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
	node  ingest.Sym
}

// deriveTraceSeries aggregates spans into RED series per service, per pod
// (when a service has several pods) and per call edge, on the grid.
// parent is checkSpans' parent index of each span (-1: root or orphan).
// Complexity O(spans · log spans) for the quantiles.
func deriveTraceSeries(b *ingest.Bundle, parent []int32) {
	if len(b.Spans) == 0 || len(b.Grid) == 0 {
		return
	}
	d := newTraceDeriver(b, parent)
	b.Series = append(b.Series, d.emitAll(d.accumulateAll())...)
}

// emitAll returns the series of every aggregate, in the order of their
// keys (kind, then names).
func (d *traceDeriver) emitAll(aggs map[aggKey]*agg) []*ingest.Series {
	keys := make([]aggKey, 0, len(aggs))
	for k := range aggs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		if a, b := keys[i].a.String(), keys[j].a.String(); a != b {
			return a < b
		}
		return keys[i].b.String() < keys[j].b.String()
	})
	// Each aggregate's series depend on it alone: two halves of the keys
	// are emitted in parallel and appended in key order.
	emitAll := func(keys []aggKey) (out []*ingest.Series) {
		for _, k := range keys {
			out = d.emitSeries(out, k, aggs[k])
		}
		return out
	}
	var first, second []*ingest.Series
	ingest.BothIf(len(d.b.Spans), func() { first = emitAll(keys[:len(keys)/2]) }, func() { second = emitAll(keys[len(keys)/2:]) })
	return append(first, second...)
}

// traceDeriver holds what deriveTraceSeries computes once over the spans:
// the grid, each span's children (all, and those in other services), the
// pods of each service and the cells any span covers.
type traceDeriver struct {
	b                        *ingest.Bundle
	parent                   []int32
	n                        int   // grid cells
	g0, step                 int64 // the grid's start and step (ns)
	nChildren, crossChildren []int32
	off, kids                []int32 // span i's children are kids[off[i]:off[i+1]]
	podsOf                   map[ingest.Sym]map[ingest.Sym]bool
	covered                  []bool // cells with a span: the others' rates are unknown (NaN), not zero
	// allPods aggregates every pod's entry spans, also of a service with
	// one pod (a streamed file's digest: the other files may hold more).
	allPods bool
}

// newTraceDeriver indexes the spans' children, pods and covered cells.
// O(spans).
func newTraceDeriver(b *ingest.Bundle, parent []int32) *traceDeriver {
	d := &traceDeriver{b: b, parent: parent, n: len(b.Grid), g0: int64(b.Grid[0]), step: int64(b.Step)}
	ingest.BothIf(len(b.Spans), d.indexChildren, d.indexPlaces)
	return d
}

// indexChildren counts each span's children (all, and those in other
// services) and lists them in CSR form. O(spans).
func (d *traceDeriver) indexChildren() {
	b, parent := d.b, d.parent
	d.nChildren = make([]int32, len(b.Spans))
	d.crossChildren = make([]int32, len(b.Spans))
	for i := range b.Spans {
		if p := parent[i]; p >= 0 {
			d.nChildren[p]++
			if b.Spans[p].Service != b.Spans[i].Service {
				d.crossChildren[p]++
			}
		}
	}
	// Children intervals for self time: offsets into one flat array.
	d.off = make([]int32, len(b.Spans)+1)
	for i := range b.Spans {
		d.off[i+1] = d.off[i] + d.nChildren[i]
	}
	d.kids = make([]int32, d.off[len(b.Spans)])
	fill := make([]int32, len(b.Spans))
	for i := range b.Spans {
		if p := parent[i]; p >= 0 {
			d.kids[d.off[p]+fill[p]] = int32(i)
			fill[p]++
		}
	}
}

// indexPlaces finds the pods of each service and the grid cells that some
// span starts in. O(spans).
func (d *traceDeriver) indexPlaces() {
	b := d.b
	d.podsOf = map[ingest.Sym]map[ingest.Sym]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		if !s.Pod.IsEmpty() {
			if d.podsOf[s.Service] == nil {
				d.podsOf[s.Service] = map[ingest.Sym]bool{}
			}
			d.podsOf[s.Service][s.Pod] = true
		}
	}
	d.covered = make([]bool, d.n)
	for i := range b.Spans {
		if c := d.cellOf(b.Spans[i].Start); c >= 0 {
			d.covered[c] = true
		}
	}
}

// cellOf is the grid cell of a span starting at t (cell g covers
// (g-step, g]); -1 off the grid.
func (d *traceDeriver) cellOf(t ingest.Time) int {
	c := (int64(t) - d.g0 + d.step - 1) / d.step
	if c < 0 || c >= int64(d.n) {
		return -1
	}
	return int(c)
}

// accumulateAll aggregates every span. Spans are sorted by start, so cells
// increase along them: with enough spans the two halves, split at the
// first span of the middle span's cell, run in parallel and merge into
// exactly the sequential result.
func (d *traceDeriver) accumulateAll() map[aggKey]*agg {
	spans := d.b.Spans
	mid := len(spans) / 2
	cm := d.cellOf(spans[mid].Start)
	for mid > 0 && d.cellOf(spans[mid-1].Start) == cm {
		mid--
	}
	aggs, late := map[aggKey]*agg{}, map[aggKey]*agg{}
	if cm <= 0 || len(spans) < ingest.ParallelMinSpans {
		d.accumulate(0, len(spans), aggs)
		return aggs
	}
	ingest.Both(func() { d.accumulate(0, mid, aggs) }, func() { d.accumulate(mid, len(spans), late) })
	for k, l := range late {
		a := aggs[k]
		if a == nil {
			aggs[k] = l
			continue
		}
		copy(a.cells[cm:], l.cells[cm:])
		if a.node.IsEmpty() {
			a.node = l.node
		}
	}
	return aggs
}

// accumulate adds spans [lo, hi) to aggs. Every write goes to the cell of
// the span being read, so two halves of the spans split at a cell boundary
// touch disjoint cells and can run in parallel; merged, they give exactly
// the sequential result (same values, same order).
func (d *traceDeriver) accumulate(lo, hi int, aggs map[aggKey]*agg) {
	b, parent, nChildren, crossChildren := d.b, d.parent, d.nChildren, d.crossChildren
	// A key packs into 64 bits while the symbols' IDs fit in 31 bits
	// each (always, short of two billion distinct strings): looked up
	// in a map of uint64 keys, the struct map's hashing is most of a
	// lookup's cost. aggs stays the one result.
	packed := map[uint64]*agg{}
	get := func(k aggKey) *agg {
		ai, bi := k.a.ID(), k.b.ID()
		packs := ai>>31 == 0 && bi>>31 == 0
		pk := uint64(k.kind)<<62 | uint64(ai)<<31 | uint64(bi)
		if a := packed[pk]; packs && a != nil {
			return a
		}
		a := aggs[k]
		if a == nil {
			a = &agg{cells: make([]aggCell, d.n)}
			aggs[k] = a
		}
		if packs {
			packed[pk] = a
		}
		return a
	}
	var ivs [][2]int64
	for i := lo; i < hi; i++ {
		s := &b.Spans[i]
		c := d.cellOf(s.Start)
		if c < 0 {
			continue
		}
		dur := s.Duration.Seconds()
		var self float64
		self, ivs = d.exclusiveTime(i, ivs)
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
			if !s.Pod.IsEmpty() && (d.allPods || len(d.podsOf[s.Service]) > 1) {
				pa := get(aggKey{kind: aggPod, a: s.Pod, b: s.Service})
				if pa.node.IsEmpty() {
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
			clientSide := ps.Kind == ingest.SpanClient ||
				(ps.Kind == ingest.SpanUnspecified && pp >= 0 && b.Spans[pp].Service == ps.Service && crossChildren[p] == nChildren[p] && nChildren[p] == 1)
			if clientSide {
				cd := ps.Duration.Seconds()
				ec.clientDur = append(ec.clientDur, float32(cd))
				ec.gapSum += cd - dur
				ec.gapN++
			}
		}
		if !s.Peer.IsEmpty() && s.Peer != s.Service && nChildren[i] == 0 && (s.Kind == ingest.SpanClient || s.Kind == ingest.SpanUnspecified) {
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

// exclusiveTime is span i's duration minus the union of its children's
// intervals (clipped to it), in ns; ivs is scratch, returned for reuse.
func (d *traceDeriver) exclusiveTime(i int, ivs [][2]int64) (float64, [][2]int64) {
	s := &d.b.Spans[i]
	ivs = ivs[:0]
	for _, k := range d.kids[d.off[i]:d.off[i+1]] {
		ch := &d.b.Spans[k]
		lo, hi := max(int64(ch.Start), int64(s.Start)), min(int64(ch.End()), int64(s.End()))
		if hi > lo {
			ivs = append(ivs, [2]int64{lo, hi})
		}
	}
	self := float64(s.Duration)
	if len(ivs) > 0 {
		// By start only: the union's length does not depend on the order
		// of intervals with equal starts.
		slices.SortFunc(ivs, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
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
	return self, ivs
}

// emitSeries appends the series of one aggregate to out, in a fixed order
// (a quantile sorts its cell's durations in place after the mean has summed
// them in arrival order), and returns it. It reads the deriver and writes
// only a's cells, so aggregates can be emitted in parallel.
func (d *traceDeriver) emitSeries(out []*ingest.Series, k aggKey, a *agg) []*ingest.Series {
	b := d.b
	perSec := 1 / b.Step.Seconds()
	var ent ingest.Entity
	var labels ingest.Labels
	switch k.kind {
	case aggService:
		a := k.a.String()
		ent = ingest.Entity{Kind: ingest.KindService, Name: a, Service: a}
		labels = ingest.Labels{{Name: "service", Value: a}}
	case aggPod:
		pod, svc := k.a.String(), k.b.String()
		ent = ingest.Entity{Kind: ingest.KindPod, Name: pod, Service: svc, Node: a.node.String()}
		labels = ingest.Labels{{Name: "pod", Value: pod}, {Name: "service", Value: svc}}
	case aggEdge:
		caller, callee := k.a.String(), k.b.String()
		ent = ingest.Entity{Kind: ingest.KindEdge, Name: caller + "->" + callee, Service: callee, Caller: caller, Callee: callee}
		labels = ingest.Labels{{Name: "callee", Value: callee}, {Name: "caller", Value: caller}}
	}
	emit := func(name string, sig ingest.SignalKind, stat, unit string, f func(c *aggCell) float64) {
		v := make([]float64, d.n)
		any := false
		for i := range a.cells {
			if !d.covered[i] {
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
		ls := append(ingest.Labels{}, labels...)
		if stat != "" && stat != "rate" && stat != "ratio" {
			ls = append(ls, ingest.Label{Name: "stat", Value: stat})
			ingest.SortLabels(ls)
		}
		out = append(out, &ingest.Series{Name: name, Labels: ls, Entity: ent, Signal: sig, Stat: stat, Unit: unit,
			Source: ingest.DerivedSource, T: b.Grid, V: v, Aligned: true})
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
		emit(ingest.TraceRequests, ingest.SignalTraffic, "rate", "1/s", func(c *aggCell) float64 { return float64(c.n) * perSec })
		emit(ingest.TraceErrors, ingest.SignalErrors, "rate", "1/s", func(c *aggCell) float64 { return float64(c.errs) * perSec })
		emit(ingest.TraceErrorRatio, ingest.SignalErrors, "ratio", "ratio", func(c *aggCell) float64 {
			if c.n == 0 {
				return math.NaN()
			}
			return float64(c.errs) / float64(c.n)
		})
		emit(ingest.TraceLatency, ingest.SignalLatency, "mean", "s", mean(durs))
		emit(ingest.TraceLatency, ingest.SignalLatency, "p50", "s", quant(durs, 0.50))
		emit(ingest.TraceLatency, ingest.SignalLatency, "p90", "s", quant(durs, 0.90))
		emit(ingest.TraceLatency, ingest.SignalLatency, "p99", "s", quant(durs, 0.99))
		if k.kind == aggService {
			emit(ingest.TraceSelf, ingest.SignalLatency, "self", "s", func(c *aggCell) float64 {
				if c.n == 0 {
					return math.NaN()
				}
				return c.self / float64(c.n)
			})
		}
	case aggEdge:
		client := func(c *aggCell) []float32 { return c.clientDur }
		server := func(c *aggCell) []float32 { return c.server }
		emit(ingest.EdgeCalls, ingest.SignalTraffic, "rate", "1/s", func(c *aggCell) float64 { return float64(c.n) * perSec })
		emit(ingest.EdgeErrors, ingest.SignalErrors, "rate", "1/s", func(c *aggCell) float64 { return float64(c.errs) * perSec })
		emit(ingest.EdgeClient, ingest.SignalLatency, "mean", "s", mean(client))
		emit(ingest.EdgeClient, ingest.SignalLatency, "p90", "s", quant(client, 0.90))
		emit(ingest.EdgeServer, ingest.SignalLatency, "mean", "s", mean(server))
		emit(ingest.EdgeServer, ingest.SignalLatency, "p90", "s", quant(server, 0.90))
		emit(ingest.EdgeGap, ingest.SignalLatency, "gap", "s", func(c *aggCell) float64 {
			if c.gapN == 0 {
				return math.NaN()
			}
			return c.gapSum / float64(c.gapN)
		})
	}
	return out
}

// quantile32 is measure.QuantileSorted of xs after sorting xs in place.
func quantile32(xs []float32, q float64) float64 {
	if !slices.IsSorted(xs) {
		radix.Float32s(xs)
	}
	return measure.QuantileSorted(xs, q)
}
