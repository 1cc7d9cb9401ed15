package evidence

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// DefaultMaxCauses is how many candidates, the first by rank, get evidence
// by default: the scorecard shows as many (scorecard.BuildOptions.MaxCauses
// defaults to it), so every cause it shows has its evidence.
const DefaultMaxCauses = 10

// Options bound what Collect gathers. Zero fields take defaults.
type Options struct {
	MaxCauses  int // candidates given evidence, the first by rank (default DefaultMaxCauses)
	SlowTraces int // trace IDs per cause (default 3)
	Operations int // operations per operation-mix shift (default 3)
	Kernels    int // profiler items per GPU (default 5)
	// Shape is the request-shape map's parameters (shape.Options: zero
	// fields take its defaults).
	Shape shape.Options
}

func (o Options) withDefaults() Options {
	if o.MaxCauses <= 0 {
		o.MaxCauses = DefaultMaxCauses
	}
	if o.SlowTraces <= 0 {
		o.SlowTraces = 3
	}
	if o.Operations <= 0 {
		o.Operations = 3
	}
	if o.Kernels <= 0 {
		o.Kernels = 5
	}
	return o
}

// Set is the evidence of one analysis.
type Set struct {
	Inputs   []ingest.Input   // the bundle's inputs, in its order
	Warnings []ingest.Warning // the bundle's data-quality warnings
	Entities []ingest.Entity  // every entity, sorted by ID (inventory, call depths)
	// Causes[i] is the evidence of the result's Candidates[i], for the
	// first Options.MaxCauses candidates.
	Causes []Cause
	// Shape is the target's tail latency by request shape (nil: the target
	// is not a latency, or the data holds no LLM request shapes).
	Shape *Shape
}

// Cause is the evidence of one ranked candidate. A comparison method's
// candidate (no graph node) has none.
type Cause struct {
	SlowTraces []string           // the slowest traces through the node's service in the window
	Shares     *Shares            // the operation-mix shift of an operation-mix node; nil otherwise
	Kernels    []Kernel           // a GPU node's profiler items, the largest relative change first
	Placements []ingest.Placement // the workloads a GPU node hosts
	// Pattern is, for a node of what a service's requests do, its most
	// broken per-request pattern over the window (ingest.PatternShift).
	Pattern *ingest.PatternShift
}

// Shares is the shift of one service's spans across its operations between
// the baseline and the incident window.
type Shares struct {
	Service                    string
	BaselineSpans, WindowSpans float64
	Changes                    []ShareChange // the largest change of share first (ties by operation)
}

// ShareChange is one operation's share of its service's spans before and
// in the window.
type ShareChange struct {
	Operation string
	From, To  float64
}

// Kernel is one unaligned profiler series of a GPU (Nsight Systems,
// Kineto) summarised over the baseline and the window: its means, NaN
// where the profile does not cover that period.
type Kernel struct {
	Series             *ingest.Series
	Baseline, Incident float64
	Ratio              float64 // Incident/Baseline (+Inf for a zero baseline); NaN without a baseline
}

// Collect gathers the evidence of the first candidates of r. It reads b
// and g and changes neither.
func Collect(b *ingest.Bundle, g *tcg.Graph, r *causal.Result, opt Options) *Set {
	return collect(b, g, r, opt, func(opt Options) *Shape { return ShapeOf(b, g, r, opt.Shape, opt.MaxCauses) })
}

// CollectMapped is Collect with the request-shape map already made: m
// must be ShapeMap(b, g.Incident, opt.Shape) (nil where that is nil), as
// a caller that made it beside the graph and the ranking has it.
func CollectMapped(b *ingest.Bundle, g *tcg.Graph, r *causal.Result, opt Options, m *shape.Map) *Set {
	return collect(b, g, r, opt, func(opt Options) *Shape { return shapeOfMap(m, r, opt.MaxCauses) })
}

// collect is Collect with the shape section given by shapeOf (called
// with the options' defaults filled).
func collect(b *ingest.Bundle, g *tcg.Graph, r *causal.Result, opt Options, shapeOf func(Options) *Shape) *Set {
	opt = opt.withDefaults()
	s := &Set{Inputs: b.Inputs, Warnings: b.Warnings, Entities: b.Entities}
	for _, cand := range r.Candidates[:min(opt.MaxCauses, len(r.Candidates))] {
		var c Cause
		if cand.Node >= 0 {
			n := g.Nodes[cand.Node]
			if n.Facet == tcg.FacetMix {
				if sh, ok := OperationShares(b, n.Entity.Service, g.Incident, opt.Operations); ok {
					c.Shares = &sh
				}
			}
			c.SlowTraces = SlowTraces(b, n, g.Incident, opt.SlowTraces)
			if n.Facet == tcg.FacetPattern {
				for i := range b.Patterns {
					if p := &b.Patterns[i]; p.Service == n.Entity.Service && p.Callee == "" && p.Z > 0 {
						c.Pattern = p
					}
				}
			}
			if n.Entity.Kind == ingest.KindGPU {
				c.Kernels = Kernels(b, n.Entity.Name, g.Incident, opt.Kernels)
				for _, pl := range b.Placements {
					if pl.GPU == n.Entity.Name {
						c.Placements = append(c.Placements, pl)
					}
				}
			}
		}
		s.Causes = append(s.Causes, c)
	}
	s.Shape = shapeOf(opt)
	return s
}

// SlowTraces returns up to k trace IDs of the slowest spans of the node's
// service (an edge's caller) in the window (deterministic: by duration,
// then ID).
func SlowTraces(b *ingest.Bundle, n *tcg.Node, inc tcg.Incident, k int) []string {
	svc := n.Entity.Service
	if n.Entity.Kind == ingest.KindEdge {
		svc = n.Entity.Caller
	}
	if svc == "" || len(b.Spans) == 0 {
		return nil
	}
	want, ok := ingest.LookupSym(svc)
	if !ok {
		return nil // no span names it
	}
	type cand struct {
		d  time.Duration
		id string
	}
	var cs []cand
	// Finalize sorts spans by start: only the window's range is scanned.
	lo := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= inc.WindowStart })
	for i := lo; i < len(b.Spans) && b.Spans[i].Start <= inc.WindowEnd; i++ {
		s := &b.Spans[i]
		if s.Service != want {
			continue
		}
		cs = append(cs, cand{s.Duration, s.TraceID.String()})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d > cs[j].d
		}
		return cs[i].id < cs[j].id
	})
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		if !seen[c.id] {
			seen[c.id] = true
			out = append(out, c.id)
		}
		if len(out) == k {
			break
		}
	}
	return out
}

// OperationShares says which operations of service changed their share of
// the service's spans between the baseline and the incident window: the
// evidence behind an operation-mix shift (what requests stopped or started
// doing). It keeps up to max operations, largest change first; ok is false
// when either period has no span of the service.
func OperationShares(b *ingest.Bundle, service string, inc tcg.Incident, max int) (Shares, bool) {
	want, ok := ingest.LookupSym(service)
	if !ok {
		return Shares{}, false // no span names it
	}
	baseOps, winOps := map[ingest.Sym]float64{}, map[ingest.Sym]float64{}
	var nb, nw float64
	// Finalize sorts spans by start: scan from the baseline to the window's end.
	lo := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= inc.BaselineStart })
	for i := lo; i < len(b.Spans) && b.Spans[i].Start <= inc.WindowEnd; i++ {
		s := &b.Spans[i]
		if s.Service != want {
			continue
		}
		if s.Start < inc.WindowStart {
			baseOps[s.Operation]++
			nb++
		} else {
			winOps[s.Operation]++
			nw++
		}
	}
	if nb == 0 || nw == 0 {
		return Shares{}, false
	}
	base, win := make(map[string]float64, len(baseOps)), make(map[string]float64, len(winOps))
	for op, x := range baseOps {
		base[op.String()] = x
	}
	for op, x := range winOps {
		win[op.String()] = x
	}
	type change struct {
		ShareChange
		magnitude float64
	}
	var cs []change
	for op, x := range base {
		cs = append(cs, change{ShareChange{op, x / nb, win[op] / nw}, math.Abs(win[op]/nw - x/nb)})
	}
	for op, x := range win {
		if base[op] == 0 {
			cs = append(cs, change{ShareChange{op, 0, x / nw}, x / nw})
		}
	}
	slices.SortFunc(cs, func(x, y change) int {
		return cmp.Or(cmp.Compare(y.magnitude, x.magnitude), cmp.Compare(x.Operation, y.Operation))
	})
	sh := Shares{Service: service, BaselineSpans: nb, WindowSpans: nw}
	for _, c := range cs[:min(max, len(cs))] {
		sh.Changes = append(sh.Changes, c.ShareChange)
	}
	return sh, true
}

// Kernels summarises the profiler timelines (Nsight Systems, Kineto) of
// one GPU: which kernels got slower and how busy/idle time changed between
// the baseline and the incident window. Profiles keep their own sub-second
// timeline (they are not on the bundle's grid); a profile that covers only
// the window is summarised as it is (Baseline NaN). At most max items, the
// largest relative changes first; deterministic.
func Kernels(b *ingest.Bundle, gpu string, inc tcg.Incident, max int) []Kernel {
	type item struct {
		k     Kernel
		ratio float64
		key   string
	}
	var items []item
	for _, s := range b.Series {
		if s.Aligned || s.Entity.Kind != ingest.KindGPU || (s.Entity.Name != gpu && s.Entity.GPU != gpu) {
			continue
		}
		var base, win []float64
		for i, t := range s.T {
			v := s.V[i]
			if math.IsNaN(v) {
				continue
			}
			switch {
			case t >= inc.BaselineStart && t < inc.WindowStart:
				base = append(base, v)
			case t >= inc.WindowStart && t <= inc.WindowEnd:
				win = append(win, v)
			}
		}
		switch {
		case len(base) > 0 && len(win) > 0:
			mb, mw := mean(base), mean(win)
			r := math.Inf(1)
			if mb != 0 {
				r = mw / mb
			}
			items = append(items, item{Kernel{Series: s, Baseline: mb, Incident: mw, Ratio: r}, math.Abs(math.Log(math.Max(r, 1e-9))), s.Key()})
		case len(win) > 0:
			items = append(items, item{Kernel{Series: s, Baseline: math.NaN(), Incident: mean(win), Ratio: math.NaN()}, 0, s.Key()})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].ratio != items[j].ratio {
			return items[i].ratio > items[j].ratio
		}
		return items[i].key < items[j].key
	})
	var out []Kernel
	for i := 0; i < len(items) && i < max; i++ {
		out = append(out, items[i].k)
	}
	return out
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}
