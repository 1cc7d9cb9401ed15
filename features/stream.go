package features

import (
	"slices"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// A streamed read (ingest's span budget, ingest.Options.Stream) hands each
// file's spans to digestSpans as soon as the file is decoded, and keeps
// only a sample of them. The digest holds what deriveTraceSeries would
// have accumulated from those spans — the same per-span rules
// (traceDeriver.accumulate: entry spans, exclusive time, call edges, the
// client-side gap) — on one-second bins instead of the grid, which is not
// known until every input is read. Once it is, deriveDigestSeries puts the
// bins on the grid and emits the series as deriveTraceSeries does, from
// every span read.
//
// On a grid of whole seconds (any metric step of whole seconds, or the
// default 15 s) a grid cell is exactly a run of bins, so the counts, the
// error ratios and the latency quantiles are those the spans themselves
// would give; the means and the exclusive times add the same values in
// another order (file by file), so they may differ in the last digits.
// What a file cannot show (a parent in another file, a trace split across
// files) is, as in any one file, an orphan.

// maxDigestBins bounds one file's bins: a file whose spans (their robust
// range) last longer than this many seconds gets bins of several seconds,
// each put in the grid cell that holds its end.
const maxDigestBins = 20_000

// Streamer returns the features stage's digest of one file's spans, for
// ingest.Options.Stream (features.Read sets it).
func Streamer() func(*ingest.Bundle, []int32) ingest.SpanDigest { return digestSpans }

// spanDigest is the streamed spans' summary: each aggregate's cells by the
// end of their bin (Unix seconds), the node of each pod (the first file's
// that names one), the bins in which some span starts, and the pods of
// each service (the per-pod series exist only for a service with several).
type spanDigest struct {
	cells   map[aggKey]map[int64]*aggCell
	nodes   map[aggKey]ingest.Sym
	covered map[int64]bool
	podsOf  map[ingest.Sym]map[ingest.Sym]bool
}

// digestSpans summarises one file's checked spans (parent as Prepare
// links them). O(n) beside the children's index and the range's sort.
func digestSpans(b *ingest.Bundle, parent []int32) ingest.SpanDigest {
	dg := &spanDigest{cells: map[aggKey]map[int64]*aggCell{}, nodes: map[aggKey]ingest.Sym{},
		covered: map[int64]bool{}, podsOf: map[ingest.Sym]map[ingest.Sym]bool{}}
	if len(b.Spans) == 0 {
		return dg
	}
	starts := make([]int64, len(b.Spans))
	for i := range b.Spans {
		starts[i] = int64(b.Spans[i].Start)
	}
	slices.Sort(starts)
	lo, hi := ingest.RobustRange(starts, ingest.OutlierMinMargin)
	lo, hi = max(lo, starts[0]), min(hi, starts[len(starts)-1])
	w := int64(time.Second)
	if bins := (hi - lo) / w; bins >= maxDigestBins {
		w *= bins/maxDigestBins + 1
	}
	g0 := lo / w * w
	if lo < 0 && lo%w != 0 {
		g0 -= w
	}
	grid := make([]ingest.Time, (hi-g0)/w+2) // cell c ends at g0 + c·w
	for c := range grid {
		grid[c] = ingest.Time(g0 + int64(c)*w)
	}
	d := newTraceDeriver(&ingest.Bundle{Spans: b.Spans, Grid: grid, Step: time.Duration(w)}, parent)
	dg.podsOf = d.podsOf
	d.allPods = true // whether a service has several pods is known once every file is read
	for k, a := range d.accumulateAll() {
		m := map[int64]*aggCell{}
		for c := range a.cells {
			if cell := &a.cells[c]; !cell.empty() {
				m[(g0+int64(c)*w)/int64(time.Second)] = cell
			}
		}
		dg.cells[k] = m
		if !a.node.IsEmpty() {
			dg.nodes[k] = a.node
		}
	}
	for c, cov := range d.covered {
		if cov {
			dg.covered[(g0+int64(c)*w)/int64(time.Second)] = true
		}
	}
	return dg
}

// empty reports whether nothing was added to the cell.
func (c *aggCell) empty() bool {
	return c.n == 0 && c.errs == 0 && c.self == 0 && c.gapN == 0 && len(c.durs) == 0 && len(c.server) == 0 && len(c.clientDur) == 0
}

// add adds o's counts, sums and samples to c (o's samples after c's).
func (c *aggCell) add(o *aggCell) {
	c.n += o.n
	c.errs += o.errs
	c.self += o.self
	c.gapSum += o.gapSum
	c.gapN += o.gapN
	c.durs = append(c.durs, o.durs...)
	c.server = append(c.server, o.server...)
	c.clientDur = append(c.clientDur, o.clientDur...)
}

// Merge adds a later file's digest.
func (dg *spanDigest) Merge(later ingest.SpanDigest) {
	o := later.(*spanDigest)
	for k, m := range o.cells {
		mine := dg.cells[k]
		if mine == nil {
			dg.cells[k] = m
			continue
		}
		for sec, c := range m {
			if have := mine[sec]; have != nil {
				have.add(c)
			} else {
				mine[sec] = c
			}
		}
	}
	for k, n := range o.nodes {
		if _, ok := dg.nodes[k]; !ok {
			dg.nodes[k] = n
		}
	}
	for sec := range o.covered {
		dg.covered[sec] = true
	}
	for svc, pods := range o.podsOf {
		if dg.podsOf[svc] == nil {
			dg.podsOf[svc] = map[ingest.Sym]bool{}
		}
		for p := range pods {
			dg.podsOf[svc][p] = true
		}
	}
}

// deriveDigestSeries is deriveTraceSeries for a streamed read: the
// digest's bins put on the grid (each in the cell holding its end, in time
// order), then the same series. O(bins · log bins).
func deriveDigestSeries(b *ingest.Bundle, dg *spanDigest) {
	if len(b.Grid) == 0 {
		return
	}
	d := &traceDeriver{b: b, n: len(b.Grid), g0: int64(b.Grid[0]), step: int64(b.Step), covered: make([]bool, len(b.Grid))}
	for sec := range dg.covered {
		if c := d.cellOf(ingest.Time(sec * int64(time.Second))); c >= 0 {
			d.covered[c] = true
		}
	}
	aggs := map[aggKey]*agg{}
	for k, m := range dg.cells {
		if k.kind == aggPod && len(dg.podsOf[k.b]) <= 1 {
			continue
		}
		a := &agg{cells: make([]aggCell, d.n), node: dg.nodes[k]}
		secs := make([]int64, 0, len(m))
		for sec := range m {
			secs = append(secs, sec)
		}
		slices.Sort(secs)
		for _, sec := range secs {
			if c := d.cellOf(ingest.Time(sec * int64(time.Second))); c >= 0 {
				a.cells[c].add(m[sec])
			}
		}
		aggs[k] = a
	}
	b.Series = append(b.Series, d.emitAll(aggs)...)
}

// digestOf is the bundle's span digest when its read was streamed.
func digestOf(b *ingest.Bundle) *spanDigest {
	dg, _ := b.Digest.(*spanDigest)
	return dg
}
