package compare

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Side is one side of a comparison: a finalized bundle and the window of
// it to compare. BEFORE and AFTER may share one bundle (two windows of the
// same data).
type Side struct {
	Bundle     *ingest.Bundle
	Start, End ingest.Time // the window [Start, End)
	ChosenBy   string      // how the window was chosen, for the report
	Paths      []string    // the inputs as given, for the report and the manifest
}

// Cause is one ranked cause of the BEFORE side's analysis, as the stable
// fields of causal.Candidate (or a scorecard's JSON) name it.
type Cause struct {
	Rank          int
	Service       string
	Component     string
	ComponentKind string // "service", "pod", "edge", "gpu", "node"
	Signal        string // ingest.SignalKind name
	Facet         string
	NodeID        string // "kind/name:signal[/facet]"
}

// CausesOf returns the first n candidates of r as Causes.
func CausesOf(r *causal.Result, n int) []Cause {
	var out []Cause
	for i, c := range r.Candidates {
		if i >= n {
			break
		}
		kind, comp := measuredOn(c.ComponentKind.String(), c.Component, c.Via)
		out = append(out, Cause{Rank: i + 1, Service: c.Service, Component: comp, ComponentKind: kind,
			Signal: c.Signal.String(), Facet: c.Facet, NodeID: c.NodeID})
	}
	return out
}

// measuredOn is the entity a cause's signal was measured on: its Via
// ("edge/a->b") when the analysis resolved the signal to another part
// (the callee's replica, a workload), else the component itself. compare
// judges the signal where it was measured.
func measuredOn(kind, comp, via string) (string, string) {
	if k, name, ok := strings.Cut(via, "/"); ok && name != "" {
		return k, name
	}
	return kind, comp
}

// Options are the thresholds and choices of a comparison. Zero fields take
// the defaults of DefaultOptions; see the package documentation for how
// each was chosen.
type Options struct {
	Alpha       float64 // Benjamini–Hochberg false-discovery rate (default 0.01)
	MinDelta    float64 // |Cliff's δ| of a location change (default 0.2)
	MinRatio    float64 // relative quantile (or traffic) change (default 0.25)
	MinH        float64 // Cohen's h of an error-ratio change (default 0.2)
	MinShift    float64 // robust σ of a metric level change (default 3)
	MinSamples  int     // spans or requests per side (default 30)
	MinCells    int     // time cells with spans per side (default 4)
	MinPoints   int     // series points per side (default 3)
	MinCoverage float64 // share of each window the side's data must cover (default 0.5)
	BandWindows int     // baseline windows needed for a band (default 3)
	// SeriesWindows is how many disjoint baseline windows as long as the
	// compared ones an episodic metric series (one that bursts in its
	// baseline, on a sibling pod, or ends AFTER back in its band) needs
	// before a level beyond its band is a regression (default 5).
	SeriesWindows int
	Cell          time.Duration // time cell of the clustering correction and the block bootstrap (default 15s)
	Slice         time.Duration // heatmap slice (default 30s)
	Baseline      time.Duration // BEFORE's baseline before its window (0: all the data before it)
	Bootstrap     int           // block-bootstrap replicates (default 200)
	Seed          uint64        // bootstrap seed (default 1)
	MaxFindings   int           // regressions and improvements listed (default 10)
	MaxPlots      int           // distributions plotted (default 6)

	Target         tcg.Target // the incident target (Service "" = the busiest entry service)
	TargetChosenBy string
	Causes         []Cause // the BEFORE side's top causes, when known
	CausesFrom     string  // where they came from, e.g. "analysis of BEFORE (method tcg)"
	Version        string  // tool version, for the manifest
	// GrafanaURL and GrafanaDatasource (--grafana-url,
	// --grafana-datasource) link each watched series to Grafana Explore.
	GrafanaURL, GrafanaDatasource string
	Args                          []string
}

// DefaultOptions are the documented defaults.
func DefaultOptions() Options {
	return Options{Alpha: 0.01, MinDelta: 0.2, MinRatio: 0.25, MinH: 0.2, MinShift: 3, MinSamples: 30, MinCells: 4,
		MinPoints: 3, MinCoverage: 0.5, BandWindows: 3, SeriesWindows: 5, Cell: 15 * time.Second, Slice: 30 * time.Second,
		Bootstrap: 200, Seed: 1, MaxFindings: 10, MaxPlots: 6}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	setF := func(v *float64, def float64) {
		if *v <= 0 || math.IsNaN(*v) {
			*v = def
		}
	}
	setI := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setF(&o.Alpha, d.Alpha)
	setF(&o.MinDelta, d.MinDelta)
	setF(&o.MinRatio, d.MinRatio)
	setF(&o.MinH, d.MinH)
	setF(&o.MinShift, d.MinShift)
	setF(&o.MinCoverage, d.MinCoverage)
	setI(&o.MinSamples, d.MinSamples)
	setI(&o.MinCells, d.MinCells)
	setI(&o.MinPoints, d.MinPoints)
	setI(&o.BandWindows, d.BandWindows)
	setI(&o.SeriesWindows, d.SeriesWindows)
	setI(&o.Bootstrap, d.Bootstrap)
	setI(&o.MaxFindings, d.MaxFindings)
	setI(&o.MaxPlots, d.MaxPlots)
	if o.Cell <= 0 {
		o.Cell = d.Cell
	}
	if o.Slice <= 0 {
		o.Slice = d.Slice
	}
	if o.Seed == 0 {
		o.Seed = d.Seed
	}
	return o
}

// run is one comparison in progress.
type run struct {
	opt            Options
	before, after  Side
	base, bd, ad   *sideData
	baseStart      ingest.Time
	window         time.Duration // BEFORE's window length (the band's window)
	shortB, shortA string        // why a side is too short ("" when it is not)
	depth          map[string]int
	calls          map[string]map[string]bool // caller → callees of either side's call topology (callDepths)
	work           []*itemWork
	// burstyFamily marks the series families (the same series of every
	// pod of a workload) whose baseline bursts on some member (episodic).
	burstyFamily map[string]bool
	tests        int // p-values in the Benjamini–Hochberg family
	warnings     []model.Footnote
}

// Run compares AFTER with BEFORE and returns the report. It is a pure
// function of its inputs: the same bundles, windows and options give the
// same report. Cost: O(S log S) for S spans in the windows (sorting and
// ranks) plus O(B · S) for the block bootstrap, B = Options.Bootstrap.
func Run(before, after Side, opt Options) (*model.Report, error) {
	opt = opt.withDefaults()
	if before.Bundle == nil || after.Bundle == nil {
		return nil, errors.New("compare: nil bundle")
	}
	if before.End <= before.Start || after.End <= after.Start {
		return nil, errors.New("compare: empty window")
	}
	r := &run{opt: opt, before: before, after: after, window: before.End.Sub(before.Start)}
	ixB := newBundleIndex(before.Bundle)
	ixA := ixB
	if after.Bundle != before.Bundle {
		ixA = newBundleIndex(after.Bundle)
	}
	r.baseStart = before.Bundle.Start
	if opt.Baseline > 0 && before.Start.Add(-opt.Baseline) > r.baseStart {
		r.baseStart = before.Start.Add(-opt.Baseline)
	}
	if r.baseStart < before.Start {
		r.base = ixB.extract(r.baseStart, before.Start, opt.Cell)
	} else {
		r.base = ixB.extract(before.Start, before.Start, opt.Cell)
		r.baseStart = 0
	}
	r.bd = ixB.extract(before.Start, before.End, opt.Cell)
	r.ad = ixA.extract(after.Start, after.End, opt.Cell)
	if r.bd.spans+r.bd.nseries+r.bd.logs+r.ad.spans+r.ad.nseries+r.ad.logs == 0 {
		return nil, fmt.Errorf("compare BEFORE %s → %s, AFTER %s → %s: %w", before.Start, before.End, after.Start, after.End, model.ErrNoData)
	}
	r.shortB = r.tooShort("BEFORE", before, r.bd)
	r.shortA = r.tooShort("AFTER", after, r.ad)
	r.depth = callDepths([]*ingest.Bundle{before.Bundle, after.Bundle}, opt.Target.Service, r)
	r.buildItems()
	r.adjust()
	for _, w := range r.work {
		r.decide(w)
	}
	r.rolloutItems()
	rep := r.report()
	rep.RequestShape = shapeChange(before, after, opt)
	return rep, nil
}

// covered is how much of [start, end) the bundle's data spans.
func covered(b *ingest.Bundle, start, end ingest.Time) time.Duration {
	lo, hi := max(start, b.Start), min(end, b.End.Add(b.Step))
	if hi <= lo {
		return 0
	}
	return hi.Sub(lo)
}

// tooShort explains why a side's window is too short to decide, or "".
func (r *run) tooShort(name string, s Side, d *sideData) string {
	if d.spans == 0 && d.nseries == 0 && d.logs == 0 {
		return name + " has no data in its window " + s.Start.String() + " → " + s.End.String()
	}
	w := s.End.Sub(s.Start)
	c := covered(s.Bundle, s.Start, s.End)
	if float64(c) < r.opt.MinCoverage*float64(w) {
		return fmt.Sprintf("%s's data covers %s of its %s window (less than %.0f%%)", name, fmtDur(c), fmtDur(w), 100*r.opt.MinCoverage)
	}
	return ""
}

// callDepths is the hop distance of every service from the target's
// service along the call topology the graph follows (tcg.CallPairs: the
// dependencies and the call-edge series, span-derived or measured) of any
// bundle, breadth first; services not reached get -1. The target defaults
// to the busiest entry service of the spans.
func callDepths(bs []*ingest.Bundle, target string, r *run) map[string]int {
	adj := map[string]map[string]bool{}
	roots := map[string]int{}
	for bi, b := range bs {
		if bi > 0 && b == bs[0] {
			continue
		}
		for _, p := range tcg.CallPairs(b) {
			add(adj, p[0], p[1])
		}
		for i := range b.Spans {
			if parentOf(b, i) < 0 {
				roots[b.Spans[i].Service.String()]++
			}
		}
	}
	r.calls = adj
	if target == "" {
		best := -1
		for _, svc := range slices.Sorted(maps.Keys(roots)) {
			if roots[svc] > best {
				target, best = svc, roots[svc]
			}
		}
		r.opt.Target.Service = target
		if r.opt.TargetChosenBy == "" && target != "" {
			r.opt.TargetChosenBy = "entry service with the most traced requests"
		}
	}
	depth := map[string]int{}
	if target == "" {
		return depth
	}
	depth[target] = 0
	queue := []string{target}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, nxt := range slices.Sorted(maps.Keys(adj[cur])) {
			if _, ok := depth[nxt]; !ok {
				depth[nxt] = depth[cur] + 1
				queue = append(queue, nxt)
			}
		}
	}
	return depth
}

// depthOf is the depth of an item's service, -1 when unknown.
func (r *run) depthOf(service string) int {
	if d, ok := r.depth[service]; ok {
		return d
	}
	return -1
}

// adjust applies Benjamini–Hochberg to every p-value of every item (the
// primary test and, for distributions, the KS test) as one family.
func (r *run) adjust() {
	var ps []float64
	for _, w := range r.work {
		ps = append(ps, w.item.Test.P, w.item.Test.KSP)
	}
	qs := benjaminiHochberg(ps)
	n := 0
	for _, p := range ps {
		if p == p {
			n++
		}
	}
	r.tests = n
	for i, w := range r.work {
		w.item.Test.Q, w.item.Test.KSQ = qs[2*i], qs[2*i+1]
	}
}
