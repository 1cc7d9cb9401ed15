package peers

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// Cells are the grid ranges a comparison reads: the baseline [B0, B1) and
// the incident window [W0, W1).
type Cells struct{ B0, B1, W0, W1 int }

// MaxShareFloor floors a contrast's scale as a share of the largest
// magnitude either side shows (the same floor the graph's anomaly test
// uses): a member that departs from peers that never differ reads as at
// most 1/MaxShareFloor scales, not millions.
const MaxShareFloor = 0.01

// RelativeFloor floors a contrast's scale as a share of the peers'
// baseline level (the graph's 5%-of-median floor).
const RelativeFloor = 0.05

// Contrast is a member's difference from its peers, cell by cell on the
// common grid.
type Contrast struct {
	// Diff is the member's value minus its peers' (per-cell medians over
	// each side's series) net of Offset; NaN where either side is missing.
	Diff []float64
	// Offset is the member's usual difference from its peers: the baseline
	// median of the raw difference (0 when the member has too little
	// baseline beside them).
	Offset float64
	// Scale is how far the member normally strays from its peers: the
	// robust spread of the baseline difference, else of each peer around
	// the peers' median in the baseline, floored.
	Scale float64
	// Member and Peers are the per-cell medians of each side.
	Member, Peers []float64
	// Cells counts the window cells where both sides report.
	Cells int
	// ScaleFrom says where Scale came from: "baseline difference", "peer
	// spread" or "floor".
	ScaleFrom string
}

// Compare contrasts member series with peer series (aligned on the same
// grid). The member's baseline difference from its peers is its normal
// relation to them; what remains in the window is its own change.
// O(cells · (members + peers)).
func Compare(member, peers []*ingest.Series, c Cells, p Params) Contrast {
	n := gridLen(member, peers)
	return compareWith(member, cellMedians(peers, n), len(peers), func() float64 { return peerSpread(peers, c, n) }, n, c, p)
}

// compareWith is Compare given the peers' per-cell medians (peerMed, of
// length n), how many peer series there are (npeers) and their peer
// spread (spread, called only when the scale needs it): what Compare and
// Cohort.Compare share.
func compareWith(member []*ingest.Series, peerMed []float64, npeers int, spreadOf func() float64, n int, c Cells, p Params) Contrast {
	p = p.WithDefaults()
	ct := Contrast{Diff: make([]float64, n), Member: cellMedians(member, n), Peers: peerMed}
	raw := make([]float64, n)
	for t := range raw {
		raw[t] = ct.Member[t] - ct.Peers[t] // NaN when either is
	}
	var base []float64
	for t := c.B0; t < c.B1 && t < n; t++ {
		if !math.IsNaN(raw[t]) {
			base = append(base, raw[t])
		}
	}
	spread := 0.0
	switch {
	case len(base) >= p.MinBaselineCells:
		ct.Offset, spread = robustSpread(base)
		ct.ScaleFrom = "baseline difference"
	case npeers >= 2:
		spread = spreadOf()
		ct.ScaleFrom = "peer spread"
	}
	// Floors: a share of the peers' baseline level and of the largest
	// magnitude either side shows.
	var lvl []float64
	mx := 0.0
	for t := c.B0; t < c.W1 && t < n; t++ {
		if v := ct.Peers[t]; !math.IsNaN(v) {
			if t < c.B1 {
				lvl = append(lvl, v)
			}
			mx = math.Max(mx, math.Abs(v))
		}
		if v := ct.Member[t]; !math.IsNaN(v) {
			mx = math.Max(mx, math.Abs(v))
		}
	}
	floor := MaxShareFloor * mx
	if len(lvl) > 0 {
		floor = math.Max(floor, RelativeFloor*math.Abs(measure.Quantile(lvl, 0.5)))
	}
	// Nor less than the member's own variation over the baseline: a
	// member whose value jumps about by itself shows no change in a jump
	// of that size away from its peers.
	var own []float64
	for t := c.B0; t < c.B1 && t < n; t++ {
		if v := ct.Member[t]; !math.IsNaN(v) {
			own = append(own, v)
		}
	}
	if len(own) >= p.MinBaselineCells {
		_, sp := robustSpread(own)
		if sp > floor {
			floor = sp
		}
	}
	if !(spread > floor) {
		spread = floor
		ct.ScaleFrom = "floor"
	}
	if spread == 0 {
		spread = 1e-9
	}
	ct.Scale = spread
	for t := range ct.Diff {
		ct.Diff[t] = raw[t] - ct.Offset
		if t >= c.W0 && t < c.W1 && !math.IsNaN(raw[t]) {
			ct.Cells++
		}
	}
	return ct
}

// gridLen is the longest value slice of the series.
func gridLen(sets ...[]*ingest.Series) int {
	n := 0
	for _, ss := range sets {
		for _, s := range ss {
			n = max(n, len(s.V))
		}
	}
	return n
}

// cellMedians is the median over the series at each cell (NaN skipped; NaN
// where none reports).
func cellMedians(ss []*ingest.Series, n int) []float64 {
	out := make([]float64, n)
	buf := make([]float64, 0, len(ss))
	for t := range out {
		buf = buf[:0]
		for _, s := range ss {
			if t < len(s.V) && !math.IsNaN(s.V[t]) {
				buf = append(buf, s.V[t])
			}
		}
		if len(buf) == 0 {
			out[t] = math.NaN()
			continue
		}
		out[t] = measure.QuantileInPlace(buf, 0.5)
	}
	return out
}

// peerSpread is how far one peer strays from the peers' median in the
// baseline: the robust spread of every peer's deviation from the per-cell
// median of the others. Each cell's values are sorted once, and each
// peer's median of the others is read off them (leaveOneOutMedian):
// O(B · p log p) for B baseline cells and p peers, not O(B · p²).
func peerSpread(peers []*ingest.Series, c Cells, n int) float64 {
	var dev, buf []float64
	for t := c.B0; t < c.B1 && t < n; t++ {
		buf = buf[:0]
		for _, s := range peers {
			if t < len(s.V) && !math.IsNaN(s.V[t]) {
				buf = append(buf, s.V[t])
			}
		}
		slices.Sort(buf)
		dev = appendPeerDeviations(dev, buf)
	}
	if len(dev) < 2 {
		return 0
	}
	_, spread := robustSpread(dev)
	return spread
}

// appendPeerDeviations appends, for each value x of one cell's sorted
// values, x minus the median of the others (none when x is alone): the
// cell's part of peerSpread. O(len(sorted)).
func appendPeerDeviations(dev, sorted []float64) []float64 {
	if len(sorted) < 2 {
		return dev
	}
	for r, x := range sorted {
		dev = append(dev, x-leaveOneOutMedian(sorted, r))
	}
	return dev
}

// leaveOneOutMedian is the median (measure.QuantileInPlace's, R type 7)
// of sorted without its element r, read in O(1): the values at and after
// r move down one place. len(sorted) must be at least 2.
func leaveOneOutMedian(sorted []float64, r int) float64 {
	m := len(sorted) - 1 // the others
	at := func(j int) float64 {
		if j >= r {
			j++
		}
		return sorted[j]
	}
	h := 0.5 * float64(m-1)
	lo := int(math.Floor(h))
	if lo >= m-1 {
		return at(m - 1)
	}
	a := at(lo)
	return a + (h-float64(lo))*(at(lo+1)-a)
}

// robustSpread returns the median of xs and its spread: MAD scaled to σ,
// or the IQR scaled to σ when larger.
func robustSpread(xs []float64) (med, spread float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	med, mad := measure.MedianMAD(s, nil)
	iqr := (measure.QuantileSorted(s, 0.75) - measure.QuantileSorted(s, 0.25)) / 1.349
	return med, math.Max(measure.MADToSigma*mad, iqr)
}

// Family is the per-pod series of one measurement: the same metric, signal
// and labels but those naming the instance (ingest.IdentityLabel).
type Family struct {
	Key    string
	Signal ingest.SignalKind
	// ByPod are the family's series of each pod (several when the pod has
	// more than one, e.g. two containers).
	ByPod map[string][]*ingest.Series
}

// familyKey is a series' family: its name, signal and non-identity labels.
func familyKey(s *ingest.Series) string {
	var sb strings.Builder
	sb.WriteString(s.Name)
	sb.WriteByte('|')
	sb.WriteString(s.Signal.String())
	for _, l := range s.Labels {
		if ingest.IdentityLabel(l.Name) {
			continue
		}
		sb.WriteByte('|')
		sb.WriteString(l.Name)
		sb.WriteByte('=')
		sb.WriteString(l.Value)
	}
	return sb.String()
}

// Families returns the families of the aligned per-pod series of the
// given pods, sorted by key. A span-derived series of a pod is masked
// (NaN) where the pod served no request: its counts are 0 there whether
// the pod existed or not. O(series · (labels + cells)).
func (m *Model) Families(b *ingest.Bundle, pods map[string]bool) []Family {
	return m.FamiliesOf(b, ingest.PodOf, pods)
}

// FamiliesOf is Families for any kind of member: member names the
// member a series measures ("" for none), e.g. DeviceOf for GPUs.
func (m *Model) FamiliesOf(b *ingest.Bundle, member func(*ingest.Series) string, members map[string]bool) []Family {
	byKey := map[string]*Family{}
	for _, s := range b.Series {
		if !s.Aligned {
			continue
		}
		pod := member(s)
		if pod == "" || !members[pod] {
			continue
		}
		k := familyKey(s)
		f := byKey[k]
		if f == nil {
			f = &Family{Key: k, Signal: s.Signal, ByPod: map[string][]*ingest.Series{}}
			byKey[k] = f
		}
		if s.Source == ingest.DerivedSource {
			s = m.masked(s, pod)
		}
		f.ByPod[pod] = append(f.ByPod[pod], s)
	}
	out := make([]Family, 0, len(byKey))
	for _, f := range byKey {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b Family) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Series returns the family's series of the given pods, in pod order.
func (f Family) Series(pods []string) []*ingest.Series {
	var out []*ingest.Series
	for _, p := range pods {
		out = append(out, f.ByPod[p]...)
	}
	return out
}

// Members returns the family's series of each of the given members, in
// their order (a Cohort's members).
func (f Family) Members(members []string) [][]*ingest.Series {
	out := make([][]*ingest.Series, len(members))
	for i, m := range members {
		out[i] = f.ByPod[m]
	}
	return out
}

// DeviceOf names the GPU a series measures ("" for other series).
func DeviceOf(s *ingest.Series) string {
	if s.Entity.Kind == ingest.KindGPU {
		return s.Entity.Name
	}
	return ""
}

// masked returns a copy of s with NaN where the pod does not report.
func (m *Model) masked(s *ingest.Series, pod string) *ingest.Series {
	c := *s
	c.V = slices.Clone(s.V)
	pr := m.present[pod]
	for t := range c.V {
		if t >= len(pr) || !pr[t] {
			c.V[t] = math.NaN()
		}
	}
	return &c
}

// Between contrasts two groups over the same minutes without an offset: a
// canary's pods against its baseline pods, whose usual difference is not
// known (the canary is new) and must not be learned from minutes in which
// the canary may already have been the defective version. The scale is how
// far one baseline pod strays from the other baseline pods over [B0, W1)
// (peer spread), else, with one baseline pod, the baseline group's
// cell-to-cell noise (the spread of its first differences over √2),
// floored as Compare floors it. Diff is Member − Peers. O(cells · (members
// + peers)).
func Between(member, peers []*ingest.Series, c Cells) Contrast {
	n := gridLen(member, peers)
	ct := Contrast{Diff: make([]float64, n), Member: cellMedians(member, n), Peers: cellMedians(peers, n)}
	for t := range ct.Diff {
		ct.Diff[t] = ct.Member[t] - ct.Peers[t]
		if t >= c.W0 && t < c.W1 && !math.IsNaN(ct.Diff[t]) {
			ct.Cells++
		}
	}
	all := Cells{B0: c.B0, B1: c.W1}
	spread := 0.0
	if len(peers) >= 2 {
		spread = peerSpread(peers, all, n)
		ct.ScaleFrom = "peer spread"
	}
	if spread == 0 {
		var d []float64
		for t := max(c.B0, 1); t < c.W1 && t < n; t++ {
			if a, b := ct.Peers[t], ct.Peers[t-1]; !math.IsNaN(a) && !math.IsNaN(b) {
				d = append(d, (a-b)/math.Sqrt2)
			}
		}
		if len(d) >= 2 {
			_, spread = robustSpread(d)
			ct.ScaleFrom = "baseline noise"
		}
	}
	var lvl []float64
	mx := 0.0
	for t := c.B0; t < c.W1 && t < n; t++ {
		if v := ct.Peers[t]; !math.IsNaN(v) {
			lvl = append(lvl, v)
			mx = math.Max(mx, math.Abs(v))
		}
		if v := ct.Member[t]; !math.IsNaN(v) && t >= c.W0 {
			mx = math.Max(mx, math.Abs(v))
		}
	}
	floor := MaxShareFloor * mx
	if len(lvl) > 0 {
		floor = math.Max(floor, RelativeFloor*math.Abs(measure.Quantile(lvl, 0.5)))
	}
	if !(spread > floor) {
		spread = floor
		ct.ScaleFrom = "floor"
	}
	ct.Scale = math.Max(spread, 1e-9)
	return ct
}

// AvailabilityContrast is a rollout's availability (Model.Availability)
// against its old version's, which is 1 by construction: the difference,
// on the scale of a ratio that normally stays at 1 (RelativeFloor of it).
func AvailabilityContrast(av []float64, c Cells) Contrast {
	ct := Contrast{Diff: make([]float64, len(av)), Member: av, Peers: make([]float64, len(av)), Scale: RelativeFloor, ScaleFrom: "floor"}
	for t, v := range av {
		ct.Diff[t], ct.Peers[t] = v-1, 1
		if math.IsNaN(v) {
			ct.Peers[t] = math.NaN()
		} else if t >= c.W0 && t < c.W1 {
			ct.Cells++
		}
	}
	return ct
}
