package shape

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/internal/radix"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// request is one LLM request: its shape and its latencies in seconds (NaN
// where unknown).
type request struct {
	in, out float64
	v       [numMetrics]float64
}

// obs is one histogram observation: an entity's step, at its mean request
// shape, with the requests it counted and each metric's quantile in that
// step (v, from a quantile series) or its latency histogram (h, bucket
// counts of the step).
type obs struct {
	in, out float64
	n       float64
	v       [numMetrics]float64
	h       [numMetrics]*histo
}

// Sample is one period's requests of one service: from spans (one value
// per request) or from histograms (one observation per entity and step).
type Sample struct {
	reqs []request
	obs  []obs
	// Hist is set when the sample comes from histograms.
	Hist bool
	// byValue, where set (indexed), is reqs ordered by each metric's value,
	// NaN values left out: group then filters in order instead of sorting.
	byValue [numMetrics][]ranked
	// byInput, where set (splitInputs), is the positions in byValue of the
	// entries of each input bucket, ascending: a cell's group scans only
	// its row's (four bytes an entry, not a copy: the map is made beside
	// the graph, and its memory adds to the graph's at the run's peak).
	byInput map[Bucket]*[numMetrics][]int32
}

// ranked is one request's value of one metric, with its shape.
type ranked struct{ v, in, out float64 }

// indexed returns a copy of s (s is not changed) whose requests are also
// ordered by each metric's value, so that every group of it is a filter
// of one sorted list rather than a sort of its own (a map takes hundreds
// of groups of one sample). The filtered values are the ones group would
// sort, in the order slices.Sort puts them: float64s other than NaN (left
// out) are totally ordered except -0 and +0, which compare equal and
// differ; a metric holding a -0 is not indexed (its groups are sorted).
func (s *Sample) indexed() *Sample {
	out := *s
	if s.Hist {
		return &out
	}
	var scratch []ranked // sortRanked's, shared by the metrics
	for m := range numMetrics {
		rs := make([]ranked, 0, len(s.reqs))
		negZero := false
		for i := range s.reqs {
			r := &s.reqs[i]
			v := r.v[m]
			if math.IsNaN(v) {
				continue
			}
			if v == 0 && math.Signbit(v) {
				negZero = true
				break
			}
			rs = append(rs, ranked{v, r.in, r.out})
		}
		if negZero {
			continue
		}
		if cap(scratch) < len(rs) {
			scratch = make([]ranked, len(rs))
		}
		out.byValue[m] = sortRanked(rs, scratch[:len(rs)])
	}
	return &out
}

// sortRanked orders rs by value in place (rs holds no NaN and no -0, so
// values that compare equal are the same bits and their order does not
// show in any group) and returns it: radix.Sort, eight bits a pass, of
// each value's bits made to order as unsigned integers. scratch, as long
// as rs, is overwritten.
func sortRanked(rs, scratch []ranked) []ranked {
	if len(rs) < 256 {
		slices.SortFunc(rs, func(a, b ranked) int { return cmp.Compare(a.v, b.v) })
		return rs
	}
	radix.Sort(rs, scratch, func(r *ranked) uint64 {
		b := math.Float64bits(r.v)
		if b>>63 != 0 {
			return ^b // negative: larger magnitudes first
		}
		return b | 1<<63
	}, 64, 8)
	return rs
}

// splitInputs sets byInput for the buckets ins of an indexed sample (s is
// Build's own copy): for each bucket and indexed metric, the values whose
// input count the bucket contains, in byValue's order.
func (s *Sample) splitInputs(ins []Bucket) {
	if s.Hist {
		return
	}
	s.byInput = make(map[Bucket]*[numMetrics][]int32, len(ins))
	for _, b := range ins {
		var per [numMetrics][]int32
		for m, rs := range s.byValue {
			if rs == nil {
				continue // not indexed: its groups are sorted
			}
			at := make([]int32, 0)
			for i := range rs {
				if b.contains(rs[i].in) {
					at = append(at, int32(i))
				}
			}
			per[m] = at
		}
		s.byInput[b] = &per
	}
}

// groupIn is group(sel, m) for a selector that picks only requests whose
// input count in contains: with byInput, it filters in's entries only,
// which hold every request sel picks, in the same order.
func (s *Sample) groupIn(in Bucket, sel selector, m Metric) group {
	if per := s.byInput[in]; per != nil && per[m] != nil {
		var vs []float64
		rs := s.byValue[m]
		for _, i := range per[m] {
			if r := &rs[i]; sel(r.in, r.out) {
				vs = append(vs, r.v)
			}
		}
		return reqGroup(vs)
	}
	return s.group(sel, m)
}

// count is group(sel, m).size() without building the group.
func (s *Sample) count(sel selector, m Metric) int {
	if s.Hist {
		return s.group(sel, m).size()
	}
	n := 0
	for i := range s.reqs {
		r := &s.reqs[i]
		if sel(r.in, r.out) && !math.IsNaN(r.v[m]) {
			n++
		}
	}
	return n
}

// Add appends one request of in input and out output tokens (negative:
// unknown) with its latencies in seconds (NaN: unknown), as a span gives
// them: for tests and callers that hold requests of their own.
func (s *Sample) Add(in, out int64, ttft, tpot, e2e float64) {
	r := request{in: float64(in), out: float64(out), v: [numMetrics]float64{ttft, tpot, e2e}}
	if in < 0 {
		r.in = math.NaN()
	}
	if out < 0 {
		r.out = math.NaN()
	}
	s.reqs = append(s.reqs, r)
}

// Len is the number of requests (from histograms: requests counted).
func (s *Sample) Len() int {
	if s.Hist {
		n := 0.0
		for _, o := range s.obs {
			n += o.n
		}
		return int(math.Round(n))
	}
	return len(s.reqs)
}

// group is the requests of a sample in some shapes, for one metric.
type group interface {
	size() int                                         // requests
	stat(q float64) float64                            // the q-quantile
	boot(q float64, r *rand.Rand, s []float64) float64 // one bootstrap replicate (s: scratch)
}

// selector picks shapes: input and output tokens.
type selector func(in, out float64) bool

// group returns the requests of s in the shapes sel picks, for metric m.
func (s *Sample) group(sel selector, m Metric) group {
	if s.Hist {
		g := &obsGroup{m: m}
		for i := range s.obs {
			o := &s.obs[i]
			if sel(o.in, o.out) && (o.h[m] != nil || !math.IsNaN(o.v[m])) {
				g.obs = append(g.obs, o)
			}
		}
		return g
	}
	var vs []float64
	if rs := s.byValue[m]; rs != nil {
		for i := range rs {
			if r := &rs[i]; sel(r.in, r.out) {
				vs = append(vs, r.v)
			}
		}
		return reqGroup(vs)
	}
	for i := range s.reqs {
		r := &s.reqs[i]
		if sel(r.in, r.out) && !math.IsNaN(r.v[m]) {
			vs = append(vs, r.v[m])
		}
	}
	slices.Sort(vs)
	return reqGroup(vs)
}

// reqGroup is the sorted values of requests.
type reqGroup []float64

func (g reqGroup) size() int              { return len(g) }
func (g reqGroup) stat(q float64) float64 { return measure.QuantileSorted([]float64(g), q) }
func (g reqGroup) boot(q float64, r *rand.Rand, _ []float64) float64 {
	return measure.BootQuantile(g, q, r)
}

// obsGroup is histogram observations; its quantile is that of the merged
// latency histograms when every observation has one (rows: each
// observation's counts on the union of the bounds, so a bootstrap replicate
// is a sum of rows), else the request-weighted mean of the observations'
// quantiles (an approximation the map's notes state).
type obsGroup struct {
	m    Metric
	obs  []*obs
	les  []float64   // union of the bounds, when every observation has a histogram
	rows [][]float64 // per observation, counts on les
	sum  []float64   // scratch of a replicate
}

func (g *obsGroup) size() int {
	n := 0.0
	for _, o := range g.obs {
		n += o.n
	}
	return int(math.Round(n))
}

// prepare lays the observations' histograms on one set of bounds (once).
func (g *obsGroup) prepare() bool {
	if g.rows != nil {
		return true
	}
	for _, o := range g.obs {
		if o.h[g.m] == nil {
			return false
		}
	}
	var all histo
	for _, o := range g.obs {
		all.add(o.h[g.m])
	}
	g.les = all.le
	for _, o := range g.obs {
		row := make([]float64, len(g.les))
		h := o.h[g.m]
		for i, le := range h.le {
			k, _ := slices.BinarySearch(g.les, le)
			row[k] += h.c[i]
		}
		g.rows = append(g.rows, row)
	}
	g.sum = make([]float64, len(g.les))
	return true
}

// dense is the quantile of the sum of as many rows as there are, each
// picked by pick (every row once when pick is nil).
func (g *obsGroup) dense(q float64, pick func() int) float64 {
	clear(g.sum)
	n := len(g.rows)
	for k := 0; k < n; k++ {
		row := g.rows[k]
		if pick != nil {
			row = g.rows[pick()]
		}
		for j, c := range row {
			g.sum[j] += c
		}
	}
	h := histo{le: g.les, c: g.sum}
	return h.quantile(q)
}

func (g *obsGroup) stat(q float64) float64 {
	if len(g.obs) == 0 {
		return math.NaN()
	}
	if g.prepare() {
		return g.dense(q, nil)
	}
	return meanQuantile(g.obs, g.m)
}

func (g *obsGroup) boot(q float64, r *rand.Rand, _ []float64) float64 {
	if len(g.obs) == 0 {
		return math.NaN()
	}
	if g.prepare() {
		return g.dense(q, func() int { return r.IntN(len(g.rows)) })
	}
	pick := make([]*obs, len(g.obs))
	for i := range pick {
		pick[i] = g.obs[r.IntN(len(g.obs))]
	}
	return meanQuantile(pick, g.m)
}

// meanQuantile is the request-weighted mean of the observations' own
// quantiles of metric m.
func meanQuantile(os []*obs, m Metric) float64 {
	var num, den float64
	for _, o := range os {
		if v := o.v[m]; !math.IsNaN(v) && o.n > 0 {
			num += o.n * v
			den += o.n
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// histo is a latency histogram: counts per upper bound (le, seconds),
// ascending; the last bound may be +Inf.
type histo struct {
	le []float64
	c  []float64
}

// add adds o's counts, bound by bound (bounds missing on one side are
// added as new bounds).
func (h *histo) add(o *histo) {
	for i, le := range o.le {
		k, found := slices.BinarySearch(h.le, le)
		if !found {
			h.le = slices.Insert(h.le, k, le)
			h.c = slices.Insert(h.c, k, 0)
		}
		h.c[k] += o.c[i]
	}
}

// quantile is Prometheus' histogram_quantile: linear within the bucket
// that holds the rank, the lower bound of the first bucket 0, the upper
// bound of the +Inf bucket the largest finite bound. NaN when empty.
func (h *histo) quantile(q float64) float64 {
	total := 0.0
	for _, c := range h.c {
		total += c
	}
	if total <= 0 || len(h.le) == 0 {
		return math.NaN()
	}
	rank := q * total
	cum, lo := 0.0, 0.0
	for i, le := range h.le {
		if cum+h.c[i] >= rank && h.c[i] > 0 {
			if math.IsInf(le, 1) {
				return lo
			}
			return lo + (le-lo)*(rank-cum)/h.c[i]
		}
		cum += h.c[i]
		if !math.IsInf(le, 1) {
			lo = le
		}
	}
	return lo
}

// change compares metric values of two groups: the quantile on each side,
// their ratio and its bootstrap percentile interval (B replicates drawn
// from r). A side with fewer than minN requests gives a Few change.
func change(base, win group, q float64, minN, B int, level float64, r *rand.Rand) Change {
	c := Change{BaseN: base.size(), WinN: win.size(), Base: base.stat(q), Win: win.stat(q), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if c.BaseN < minN || c.WinN < minN || !(c.Base > 0) || math.IsNaN(c.Win) {
		c.Few = c.BaseN < minN || c.WinN < minN
		return c
	}
	c.Ratio = c.Win / c.Base
	reps := make([]float64, B)
	for i := range reps {
		b, w := base.boot(q, r, nil), win.boot(q, r, nil)
		reps[i] = math.NaN()
		if b > 0 {
			reps[i] = w / b
		}
	}
	c.Lo, c.Hi = measure.PercentileInterval(reps, level)
	return c
}

// contrastCI is the bootstrap percentile interval of
// (winLong/baseLong)/(winShort/baseShort): how much more the long shapes
// slowed than the short ones.
func contrastCI(bl, wl, bs, ws group, q float64, B int, level float64, r *rand.Rand) (lo, hi float64) {
	reps := make([]float64, B)
	for i := range reps {
		a, b, c, d := bl.boot(q, r, nil), wl.boot(q, r, nil), bs.boot(q, r, nil), ws.boot(q, r, nil)
		reps[i] = math.NaN()
		if a > 0 && c > 0 && d > 0 {
			reps[i] = (b / a) / (d / c)
		}
	}
	return measure.PercentileInterval(reps, level)
}
