package peers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// peerSpreadQuadratic is peerSpread as it was before the cells were
// sorted (each peer against a fresh median of the others, O(B · p²)): the
// reference the faster one must match bit for bit.
func peerSpreadQuadratic(peers []*ingest.Series, c Cells, n int) float64 {
	var dev []float64
	buf := make([]float64, 0, len(peers))
	for t := c.B0; t < c.B1 && t < n; t++ {
		for i, s := range peers {
			if t >= len(s.V) || math.IsNaN(s.V[t]) {
				continue
			}
			buf = buf[:0]
			for j, o := range peers {
				if j != i && t < len(o.V) && !math.IsNaN(o.V[t]) {
					buf = append(buf, o.V[t])
				}
			}
			if len(buf) > 0 {
				dev = append(dev, s.V[t]-measure.QuantileInPlace(buf, 0.5))
			}
		}
	}
	if len(dev) < 2 {
		return 0
	}
	_, spread := robustSpread(dev)
	return spread
}

// randomMembers is a group of p members on a grid of n cells, each with
// one to three series (two when multi), some one-point, some short, some
// starting late (no baseline), values drawn from few levels so that cells
// hold ties, and NaN gaps.
func randomMembers(rng *rand.Rand, p, n int, multi bool) [][]*ingest.Series {
	levels := []float64{1, 2, 2.5, 3, 7, 100, -4, 0}
	out := make([][]*ingest.Series, p)
	for i := range out {
		k := 1
		if multi && rng.IntN(3) == 0 {
			k = 2 + rng.IntN(2)
		}
		for range k {
			l := n
			if rng.IntN(6) == 0 {
				l = n - 1 - rng.IntN(n/2) // a shorter series
			}
			v := make([]float64, l)
			start := 0
			switch rng.IntN(5) {
			case 0:
				start = l / 2 // starts late: little or no baseline
			case 1:
				start = -1 // one point
			}
			for t := range v {
				switch {
				case start < 0:
					v[t] = math.NaN()
				case t < start || rng.IntN(8) == 0:
					v[t] = math.NaN()
				case rng.IntN(2) == 0:
					v[t] = levels[rng.IntN(len(levels))]
				default:
					v[t] = levels[rng.IntN(len(levels))] + rng.NormFloat64()
				}
			}
			if start < 0 && l > 0 {
				v[rng.IntN(l)] = levels[rng.IntN(len(levels))]
			}
			out[i] = append(out[i], &ingest.Series{V: v, Aligned: true})
		}
	}
	return out
}

// sameContrast reports the first difference between two contrasts, bit
// for bit (NaN equal to NaN), or "".
func sameContrast(a, b Contrast) string {
	eq := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	}
	sl := func(name string, x, y []float64) string {
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d cells against %d", name, len(x), len(y))
		}
		for t := range x {
			if !eq(x[t], y[t]) {
				return fmt.Sprintf("%s[%d]: %v against %v", name, t, x[t], y[t])
			}
		}
		return ""
	}
	for _, d := range []string{sl("Diff", a.Diff, b.Diff), sl("Member", a.Member, b.Member), sl("Peers", a.Peers, b.Peers)} {
		if d != "" {
			return d
		}
	}
	switch {
	case !eq(a.Offset, b.Offset):
		return fmt.Sprintf("Offset %v against %v", a.Offset, b.Offset)
	case !eq(a.Scale, b.Scale):
		return fmt.Sprintf("Scale %v against %v", a.Scale, b.Scale)
	case a.Cells != b.Cells || a.ScaleFrom != b.ScaleFrom:
		return fmt.Sprintf("Cells %d %q against %d %q", a.Cells, a.ScaleFrom, b.Cells, b.ScaleFrom)
	}
	return ""
}

// others is every series of members but member i's, in member order.
func others(members [][]*ingest.Series, i int) []*ingest.Series {
	var out []*ingest.Series
	for j, ms := range members {
		if j != i {
			out = append(out, ms...)
		}
	}
	return out
}

// TestPeerSpreadMatchesQuadratic: the sorted-cell peer spread is the
// pairwise one's, bit for bit, on groups with ties, gaps, one-point and
// short series.
func TestPeerSpreadMatchesQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 44))
	for trial := range 300 {
		n := 4 + rng.IntN(30)
		var ss []*ingest.Series
		for _, ms := range randomMembers(rng, 1+rng.IntN(12), n, true) {
			ss = append(ss, ms...)
		}
		c := Cells{B0: rng.IntN(2), B1: n/2 + rng.IntN(n/2), W0: n / 2, W1: n}
		if got, want := peerSpread(ss, c, n), peerSpreadQuadratic(ss, c, n); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: peerSpread %v, pairwise %v", trial, got, want)
		}
	}
}

// TestCohortMatchesCompare: each member's contrast from the cohort is
// Compare's of its series against every other member's, bit for bit,
// whatever the group's shape (one to 40 members, several series per
// member, gaps, ties, late starts, one-point and short series).
func TestCohortMatchesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 44))
	p := DefaultParams()
	for trial := range 200 {
		n := 4 + rng.IntN(40)
		members := randomMembers(rng, 1+rng.IntN(40), n, trial%2 == 0)
		c := Cells{B0: rng.IntN(3), B1: n / 2, W0: n / 2, W1: n - rng.IntN(3)}
		h := NewCohort(members, c, p)
		if h.Sampled() != 0 {
			t.Fatalf("trial %d: a %d-member cohort sampled its spread", trial, len(members))
		}
		for i := range members {
			ps := others(members, i)
			if len(members[i]) == 0 || len(ps) == 0 {
				continue
			}
			want := Compare(members[i], ps, c, p)
			if d := sameContrast(h.Compare(i), want); d != "" {
				t.Fatalf("trial %d (%d members, %d cells), member %d: %s", trial, len(members), n, i, d)
			}
		}
	}
}

// TestCohortSpreadBudget: past MaxSpreadWork the members without baseline
// share the peer spread of an evenly spaced sample of SpreadSample
// members — the sample's own peerSpread — and the rest of each contrast
// is still Compare's.
func TestCohortSpreadBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 44))
	n := 20
	members := make([][]*ingest.Series, 300)
	for i := range members {
		v := make([]float64, n)
		for t := range v {
			v[t] = 10 + rng.NormFloat64()
			if i%2 == 0 && t < n/2 {
				v[t] = math.NaN() // half the members have no baseline
			}
		}
		members[i] = []*ingest.Series{{V: v, Aligned: true}}
	}
	c := Cells{B0: 0, B1: n / 2, W0: n / 2, W1: n}
	p := DefaultParams()
	p.MaxSpreadWork, p.SpreadSample = 1000, 30
	h := NewCohort(members, c, p)
	if h.Sampled() != 0 {
		t.Fatalf("sampled %d before any contrast took the sample's spread", h.Sampled())
	}
	h.Compare(0) // no baseline: takes the sample's spread
	if h.Sampled() != 30 {
		t.Fatalf("sampled %d, want 30", h.Sampled())
	}
	var sample []*ingest.Series
	for j := range 30 {
		sample = append(sample, members[j*10]...)
	}
	shared := peerSpread(sample, c, n)
	for _, i := range []int{0, 1, 2, 151, 298, 299} {
		got, want := h.Compare(i), Compare(members[i], others(members, i), c, p)
		if want.ScaleFrom == "peer spread" {
			// The spread is the sample's; the floors still apply.
			if got.ScaleFrom == "peer spread" && got.Scale != shared {
				t.Errorf("member %d: scale %v, want the sample's spread %v", i, got.Scale, shared)
			}
			got.Scale, got.ScaleFrom = want.Scale, want.ScaleFrom
			for t := range got.Diff {
				got.Diff[t] = want.Diff[t] // Diff does not depend on the scale; checked below
			}
		}
		if d := sameContrast(got, want); d != "" {
			t.Errorf("member %d: %s", i, d)
		}
		if d := sameContrast(Contrast{Diff: h.Compare(i).Diff}, Contrast{Diff: want.Diff}); d != "" {
			t.Errorf("member %d: %s", i, d)
		}
	}
	// Under the budget, no sample.
	p.MaxSpreadWork = 1 << 40
	if h := NewCohort(members, c, p); h.Compare(0).ScaleFrom == "" || h.Sampled() != 0 {
		t.Errorf("sampled %d under the budget", h.Sampled())
	}
}

// TestLeaveOneOutMedian checks the O(1) median without one element
// against measure.QuantileInPlace on the copy without it.
func TestLeaveOneOutMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 44))
	for range 2000 {
		s := make([]float64, 2+rng.IntN(9))
		for i := range s {
			s[i] = float64(rng.IntN(5)) + 0.25*float64(rng.IntN(3))
		}
		slices.Sort(s)
		r := rng.IntN(len(s))
		rest := slices.Delete(slices.Clone(s), r, r+1)
		if got, want := leaveOneOutMedian(s, r), measure.QuantileInPlace(rest, 0.5); got != want {
			t.Fatalf("%v without %d: %v, want %v", s, r, got, want)
		}
	}
}

// TestCohortMaxCells: MaxCells is never below Compare's Cells, and equal
// to it when no median is NaN beside values.
func TestCohortMaxCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 44))
	for trial := range 100 {
		n := 4 + rng.IntN(30)
		members := randomMembers(rng, 2+rng.IntN(20), n, trial%2 == 0)
		c := Cells{B0: 0, B1: n / 2, W0: n / 2, W1: n - rng.IntN(3)}
		h := NewCohort(members, c, DefaultParams())
		for i := range members {
			if len(members[i]) == 0 || !h.HasPeers(i) {
				continue
			}
			if got, want := h.MaxCells(i), h.Compare(i).Cells; got != want {
				t.Fatalf("trial %d member %d: MaxCells %d, Cells %d", trial, i, got, want)
			}
		}
	}
}

// wideMembers is a group of p members with one full series each of n
// cells (a DaemonSet's pods through the incident) for the benchmarks.
func wideMembers(p, n int) [][]*ingest.Series {
	rng := rand.New(rand.NewPCG(uint64(p), 44))
	out := make([][]*ingest.Series, p)
	for i := range out {
		v := make([]float64, n)
		for t := range v {
			v[t] = 100 + rng.NormFloat64()
		}
		out[i] = []*ingest.Series{{V: v, Aligned: true}}
	}
	return out
}

// BenchmarkCohort is one family of a peer group of 1k, 10k and 100k
// members (a full series of 60 cells each): the index, and every member's
// contrast with all the others (issue 44: linear-logarithmic in members;
// each member's Compare against the others' series was O(members · cells),
// the group's O(members² · cells)). ns/member should stay flat.
func BenchmarkCohort(b *testing.B) {
	for _, p := range []int{1_000, 10_000, 100_000} {
		members := wideMembers(p, 60)
		c := Cells{B0: 0, B1: 40, W0: 40, W1: 60}
		b.Run(fmt.Sprintf("members=%d", p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h := NewCohort(members, c, DefaultParams())
				for i := range members {
					if h.MaxCells(i) >= 2 {
						h.Compare(i)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(p), "ns/member")
		})
	}
}

// BenchmarkPeerSpread is the peer spread of 1k, 10k and 100k peers over
// 40 baseline cells (each cell's values sorted once: O(cells · p log p);
// it was O(cells · p²)). ns/peer should grow no faster than log p.
func BenchmarkPeerSpread(b *testing.B) {
	for _, p := range []int{1_000, 10_000, 100_000} {
		var ss []*ingest.Series
		for _, ms := range wideMembers(p, 60) {
			ss = append(ss, ms...)
		}
		c := Cells{B0: 0, B1: 40, W0: 40, W1: 60}
		b.Run(fmt.Sprintf("peers=%d", p), func(b *testing.B) {
			for b.Loop() {
				peerSpread(ss, c, 60)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(p), "ns/peer")
		})
	}
}
