package shape

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Options are the stage's parameters (the table in doc.go); a zero field
// takes its default.
type Options struct {
	InputEdges  []int64 // input-token bucket edges, ascending (default 64, 256, 1k, 4k, 16k, 64k: powers of 4)
	OutputEdges []int64 // output-token bucket edges (default 16, 64, 256, 1k, 4k)
	Quantile    float64 // the tail quantile mapped (default 0.99)
	MinCell     int     // fewest requests a side for a cell's ratio (default 10)
	MinGroup    int     // fewest requests a side for a group of the reading (default 20)
	MinRatio    float64 // the least material change of the reading (default 0.25)
	Level       float64 // confidence of the intervals (default 0.95)
	Bootstrap   int     // replicates per interval (default 2000)
	Seed        uint64  // bootstrap seed (printed on the card)
	// MinRequests is the fewest requests with a token count a service needs,
	// baseline and window together, to be mapped (default 20).
	MinRequests int
}

// DefaultOptions are the parameters of doc.go's table.
func DefaultOptions() Options {
	return Options{
		InputEdges:  []int64{64, 256, 1024, 4096, 16384, 65536},
		OutputEdges: []int64{16, 64, 256, 1024, 4096},
		Quantile:    0.99, MinCell: 10, MinGroup: 20, MinRatio: 0.25, Level: 0.95, Bootstrap: 2000, Seed: 1, MinRequests: 20,
	}
}

// WithDefaults fills the zero fields.
func (o Options) WithDefaults() Options {
	d := DefaultOptions()
	if len(o.InputEdges) == 0 {
		o.InputEdges = d.InputEdges
	}
	if len(o.OutputEdges) == 0 {
		o.OutputEdges = d.OutputEdges
	}
	if o.Quantile <= 0 || o.Quantile >= 1 {
		o.Quantile = d.Quantile
	}
	if o.MinCell <= 0 {
		o.MinCell = d.MinCell
	}
	if o.MinGroup <= 0 {
		o.MinGroup = d.MinGroup
	}
	if o.MinRatio <= 0 {
		o.MinRatio = d.MinRatio
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = d.Level
	}
	if o.Bootstrap <= 0 {
		o.Bootstrap = d.Bootstrap
	}
	if o.MinRequests <= 0 {
		o.MinRequests = d.MinRequests
	}
	return o
}

// rng is the bootstrap source of one item: the seed and the item's name,
// so that an interval does not depend on which others were computed.
func rng(seed uint64, item string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(item))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Build compares the window's requests with the baseline's, shape by
// shape: the grid, the margins and the reading. The caller names the
// service (and operation) and the source; Build fills the rest. It is a
// pure function of its inputs. O(C·B) for C cells and groups and B
// replicates (each replicate O(1) for requests from spans, O(k) for k
// histogram observations), plus sorting the values.
func Build(base, win *Sample, opt Options) *Map {
	opt = opt.WithDefaults()
	base, win = base.indexed(), win.indexed()
	m := &Map{Quantile: opt.Quantile, Level: opt.Level, Bootstrap: opt.Bootstrap, Seed: opt.Seed, MinCell: opt.MinCell, MinRatio: opt.MinRatio,
		FromHistograms: base.Hist || win.Hist}
	for _, k := range Metrics() {
		all := func(float64, float64) bool { return true }
		m.Known[k] = base.count(all, k)+win.count(all, k) > 0
	}
	ins, outs := buckets(opt.InputEdges), buckets(opt.OutputEdges)
	count := func(s *Sample, in, out Bucket) int {
		return s.count(func(i, o float64) bool { return in.contains(i) && out.contains(o) }, anyMetric(m))
	}
	any := Bucket{0, -1}
	ins = trim(ins, func(b Bucket) bool { return count(base, b, any)+count(win, b, any) > 0 })
	outs = trim(outs, func(b Bucket) bool { return count(base, any, b)+count(win, any, b) > 0 })
	m.Inputs, m.Outputs = ins, outs
	base.splitInputs(ins)
	win.splitInputs(ins)
	cell := func(name string, in, out Bucket, minN int) Cell {
		c := Cell{Input: in, Output: out}
		sel := func(i, o float64) bool { return in.contains(i) && out.contains(o) }
		for _, k := range Metrics() {
			if !m.Known[k] {
				c.Metrics[k] = Change{Base: math.NaN(), Win: math.NaN(), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
				continue
			}
			r := rng(opt.Seed, name+"/"+k.String())
			c.Metrics[k] = change(base.groupIn(in, sel, k), win.groupIn(in, sel, k), opt.Quantile, minN, opt.Bootstrap, opt.Level, r)
		}
		return c
	}
	for _, in := range ins {
		row := make([]Cell, 0, len(outs))
		for _, out := range outs {
			row = append(row, cell("cell "+in.String()+" × "+out.String(), in, out, opt.MinCell))
		}
		m.Cells = append(m.Cells, row)
	}
	mergedIn := merge(ins, func(b Bucket) int { return min(count(base, b, any), count(win, b, any)) }, opt.MinCell)
	mergedOut := merge(outs, func(b Bucket) int { return min(count(base, any, b), count(win, any, b)) }, opt.MinCell)
	for _, b := range mergedIn {
		m.InputMargin = append(m.InputMargin, cell("input "+b.String(), b, any, opt.MinCell))
	}
	for _, b := range mergedOut {
		m.OutputMargin = append(m.OutputMargin, cell("output "+b.String(), any, b, opt.MinCell))
	}
	m.All = cell("all", any, any, opt.MinCell)
	if len(mergedIn) < len(ins) {
		m.Notes = append(m.Notes, fmt.Sprintf("input buckets with fewer than %d requests a side merged into their neighbours: %d of %d rows", opt.MinCell, len(ins)-len(mergedIn), len(ins)))
	}
	if len(mergedOut) < len(outs) {
		m.Notes = append(m.Notes, fmt.Sprintf("output buckets with fewer than %d requests a side merged into their neighbours: %d of %d columns", opt.MinCell, len(outs)-len(mergedOut), len(outs)))
	}
	if few, used := m.Sparse(); few > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("few requests: %d of %d cells have fewer than %d a side (shown, not judged: ~)", few, used, opt.MinCell))
	}
	if m.FromHistograms {
		m.Notes = append(m.Notes, "from histograms: each pod's step counts at its mean request shape, not each request; shapes separate only as far as the mix varies across pods and steps")
	}
	m.Reading = read(m, base, win, opt, mergedIn, mergedOut)
	return m
}

// anyMetric is a metric the map knows (for counting requests).
func anyMetric(m *Map) Metric {
	for _, k := range []Metric{E2E, TTFT, TPOT} {
		if m.Known[k] {
			return k
		}
	}
	return E2E
}

// trim drops the buckets at either end for which keep is false.
func trim(bs []Bucket, keep func(Bucket) bool) []Bucket {
	lo, hi := 0, len(bs)
	for lo < hi && !keep(bs[lo]) {
		lo++
	}
	for hi > lo && !keep(bs[hi-1]) {
		hi--
	}
	return bs[lo:hi]
}

// merge joins buckets with fewer than minN requests (n: the smaller
// side's) into a neighbour: from the ends inwards, an interior one into
// its smaller neighbour, until every merged bucket has minN or one is left.
func merge(bs []Bucket, n func(Bucket) int, minN int) []Bucket {
	out := append([]Bucket(nil), bs...)
	join := func(i, j int) { // j = i±1; keep the union at min(i, j)
		a, b := min(i, j), max(i, j)
		out[a] = Bucket{out[a].Lo, out[b].Hi}
		out = append(out[:b], out[b+1:]...)
	}
	for len(out) > 1 {
		worst, wn := -1, minN
		for i, b := range out {
			if c := n(b); c < wn {
				worst, wn = i, c
			}
		}
		if worst < 0 {
			break
		}
		switch {
		case worst == 0:
			join(0, 1)
		case worst == len(out)-1:
			join(worst, worst-1)
		case n(out[worst-1]) <= n(out[worst+1]):
			join(worst, worst-1)
		default:
			join(worst, worst+1)
		}
	}
	return out
}
