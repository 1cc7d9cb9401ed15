package shape

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestIndexedGroupsMatch: every group of an indexed sample holds the values
// a sort of its own gives, bit for bit, and count is the group's size —
// with NaN values, ties, and a -0 beside +0 (that metric is not indexed).
func TestIndexedGroupsMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		s := &Sample{}
		n := r.IntN(300)
		for range n {
			v := func() float64 {
				switch r.IntN(10) {
				case 0:
					return math.NaN()
				case 1:
					return float64(r.IntN(4)) // ties
				}
				return r.Float64() * 10
			}
			s.Add(int64(r.IntN(5000))-10, int64(r.IntN(500))-10, v(), v(), v())
		}
		if trial%5 == 0 && n > 1 {
			s.reqs[0].v[TTFT] = math.Copysign(0, -1)
			s.reqs[1].v[TTFT] = 0
		}
		ix := s.indexed()
		if trial%5 == 0 && n > 1 && ix.byValue[TTFT] != nil {
			t.Fatal("a metric with -0 was indexed")
		}
		for _, rs := range s.byValue {
			if rs != nil {
				t.Fatal("indexed changed its receiver")
			}
		}
		sels := []selector{
			func(float64, float64) bool { return true },
			func(in, _ float64) bool { return in >= 1024 },
			func(_, out float64) bool { return out < 64 },
			func(in, out float64) bool { return in >= 256 && in < 4096 && out >= 16 },
		}
		for _, sel := range sels {
			for _, m := range Metrics() {
				want := s.group(sel, m).(reqGroup)
				got := ix.group(sel, m).(reqGroup)
				if len(want) != len(got) {
					t.Fatalf("trial %d metric %s: %d values, want %d", trial, m, len(got), len(want))
				}
				for i := range want {
					if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
						t.Fatalf("trial %d metric %s: value %d is %v, want %v", trial, m, i, got[i], want[i])
					}
				}
				if !slices.IsSorted(got) {
					t.Fatalf("trial %d: group not sorted", trial)
				}
				if c := ix.count(sel, m); c != len(want) {
					t.Fatalf("trial %d metric %s: count %d, want %d", trial, m, c, len(want))
				}
			}
		}
	}
}

// TestSpanIDSet: every ID added is found (no false negative, whatever the
// set's size), and most IDs never added are not.
func TestSpanIDSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 64, 1000, 100000} {
		var f spanIDSet
		f.init(n)
		ids := make([]ingest.SpanID, n)
		for i := range ids {
			ids[i] = ingest.SpanID(r.Uint64())
			if i%3 == 0 {
				ids[i] = ingest.SpanID(i) // small, sequential IDs too
			}
			f.add(ids[i])
		}
		for _, id := range ids {
			if !f.has(id) {
				t.Fatalf("n %d: added %v not found", n, id)
			}
		}
		if n >= 1000 {
			found := 0
			for range 10000 {
				if f.has(ingest.SpanID(r.Uint64())) {
					found++
				}
			}
			if found > 2000 {
				t.Errorf("n %d: %d of 10000 absent IDs pass the filter", n, found)
			}
		}
	}
}

// TestSortRanked: the radix order is the comparison order of the values
// (negative, zero, subnormal, huge and infinite ones, many ties), on
// both sides of the size from which it is used.
func TestSortRanked(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	special := []float64{0, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), 1, -1}
	for _, n := range []int{0, 1, 100, 255, 256, 5000} {
		for trial := range 5 {
			rs := make([]ranked, n)
			for i := range rs {
				switch r.IntN(4) {
				case 0:
					rs[i].v = special[r.IntN(len(special))]
				case 1:
					rs[i].v = float64(r.IntN(10)) // ties
				default:
					rs[i].v = (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(12)-6))
				}
				if trial == 0 {
					rs[i].v = math.Abs(rs[i].v) + 0.5 // one sign and exponent range: passes skipped
				}
				rs[i].in = float64(i)
			}
			want := make([]float64, n)
			for i := range rs {
				want[i] = rs[i].v
			}
			slices.Sort(want)
			got := sortRanked(rs, make([]ranked, len(rs)))
			if n > 0 && &got[0] != &rs[0] {
				t.Fatalf("n %d: not sorted in place", n)
			}
			for i := range got {
				if got[i].v != want[i] {
					t.Fatalf("n %d trial %d: value %d is %v, want %v", n, trial, i, got[i].v, want[i])
				}
			}
		}
	}
}

// TestGroupInMatches: with the sample split by input buckets, a cell's
// group (a selector within one bucket) is the group of the whole sample,
// for the split buckets and for others (merged ones, the unbounded one).
func TestGroupInMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ins := []Bucket{{0, 64}, {64, 256}, {256, 1024}, {1024, -1}}
	probe := append(slices.Clone(ins), Bucket{0, 256}, Bucket{0, -1}, Bucket{100, 200})
	outs := []Bucket{{0, 16}, {16, 64}, {64, -1}, {0, -1}}
	for trial := range 50 {
		s := &Sample{}
		for range r.IntN(400) {
			v := r.Float64()
			if r.IntN(8) == 0 {
				v = math.NaN()
			}
			s.Add(int64(r.IntN(3000))-5, int64(r.IntN(200))-5, v, float64(r.IntN(5)), r.Float64())
		}
		ix := s.indexed()
		ix.splitInputs(ins)
		for _, in := range probe {
			for _, out := range outs {
				sel := func(i, o float64) bool { return in.contains(i) && out.contains(o) }
				for _, m := range Metrics() {
					want := ix.group(sel, m).(reqGroup)
					got := ix.groupIn(in, sel, m).(reqGroup)
					if !slices.Equal(want, got) {
						t.Fatalf("trial %d, cell %v × %v, %s: %v, want %v", trial, in, out, m, got, want)
					}
				}
			}
		}
	}
}
