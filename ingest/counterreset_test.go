package ingest

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCounterResets: raw _total/_count counters that drop are warned once
// per file with their counts; values are kept; gauges, sub-second profile
// timelines and monotone counters are not warned.
func TestCounterResets(t *testing.T) {
	const t0 = Time(1_700_000_000_000_000_000)
	nan := math.NaN()
	ser := func(name, src string, step time.Duration, v ...float64) *Series {
		s := &Series{Name: name, Source: src, V: v}
		for i := range v {
			s.T = append(s.T, t0+Time(int64(i)*int64(step)))
		}
		return s
	}
	tests := []struct {
		name   string
		series []*Series
		want   []string // "source: count: message substring", in order
	}{
		{"one reset", []*Series{ser("http_requests_total", "a.json", 15*time.Second, 100, 200, 5, 90)},
			[]string{"a.json: 1: 1 counter resets in 1 _total/_count series (e.g. http_requests_total)"}},
		{"histogram _count, reset across a NaN", []*Series{ser("latency_seconds_count", "a.json", 15*time.Second, 10, nan, 3, 4, 1)},
			[]string{"a.json: 2: 2 counter resets in 1 _total/_count series"}},
		{"counts per file", []*Series{
			ser("x_total", "b.json", 15*time.Second, 3, 2, 1),
			ser("y_total", "a.json", 15*time.Second, 3, 4, 1),
			ser("z_total", "a.json", 15*time.Second, 5, 1, 2),
		}, []string{"a.json: 2: 2 counter resets in 2 _total/_count series (e.g. y_total)", "b.json: 2: 2 counter resets in 1"}},
		{"monotone counter", []*Series{ser("x_total", "a.json", 15*time.Second, 1, 1, 2, 9)}, nil},
		{"gauge that drops", []*Series{ser("kv_cache_usage_perc", "a.json", 15*time.Second, 0.9, 0.1)}, nil},
		{"sub-second profile bin count", []*Series{ser("kernel_count", "n.sqlite", 10*time.Millisecond, 5, 1, 7)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Bundle{Series: tc.series, Inputs: []Input{{Path: "a.json"}}}
			before := make([][]float64, len(tc.series))
			for i, s := range tc.series {
				before[i] = slices.Clone(s.V)
			}
			cleanSeries(b)
			checkCounterResets(b)
			var got []string
			for _, w := range b.Warnings {
				if errors.Is(w, ErrCounterReset) {
					got = append(got, w.Source+": "+strconv.Itoa(w.Count)+": "+w.Message)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("warning %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
			for _, s := range b.Series {
				for i, orig := range tc.series {
					if s == orig && !slices.EqualFunc(s.V, before[i], func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }) {
						t.Errorf("%s values changed: %v → %v", s.Name, before[i], s.V)
					}
				}
			}
		})
	}
}
