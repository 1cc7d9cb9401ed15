package ingest

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSatArithmetic(t *testing.T) {
	tests := []struct {
		name     string
		a, b     int64
		add, sub int64
	}{
		{"plain", 5, 3, 8, 2},
		{"add overflows", math.MaxInt64 - 1, 5, math.MaxInt64, math.MaxInt64 - 6},
		{"sub overflows", math.MinInt64 + 1, 5, math.MinInt64 + 6, math.MinInt64},
		{"negative b", math.MaxInt64, -1, math.MaxInt64 - 1, math.MaxInt64},
		{"min minus max", math.MinInt64, math.MaxInt64, -1, math.MinInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SatAdd(tc.a, tc.b); got != tc.add {
				t.Errorf("SatAdd = %d, want %d", got, tc.add)
			}
			if got := SatSub(tc.a, tc.b); got != tc.sub {
				t.Errorf("SatSub = %d, want %d", got, tc.sub)
			}
		})
	}
	if got := Time(math.MaxInt64 - 10).Add(time.Hour); got != math.MaxInt64 {
		t.Errorf("Time.Add wrapped: %d", got)
	}
	if got := Time(math.MinInt64 + 10).Sub(Time(math.MaxInt64)); got != time.Duration(math.MinInt64) {
		t.Errorf("Time.Sub wrapped: %d", got)
	}
}

func TestRobustRange(t *testing.T) {
	hour := int64(time.Hour)
	t0 := int64(1_800_000_000) * int64(time.Second)
	bulk := func(n int) []int64 {
		var ts []int64
		for i := range n {
			ts = append(ts, t0+int64(i)*hour/int64(n))
		}
		return ts
	}
	tests := []struct {
		name    string
		ts      []int64
		in, out []int64 // times that must be kept / dropped
	}{
		{"one stray 1970 time among 1000", append([]int64{0}, bulk(1000)...), []int64{t0, t0 + hour}, []int64{0}},
		{"zone +99:99 among 100", append(bulk(100), t0+hour+100*hour), []int64{t0 + hour}, []int64{t0 + 101*hour}},
		{"quiet day between baseline and incident kept", append(bulk(100), t0+hour+23*hour), []int64{t0 + 24*hour}, nil},
		{"a 2% tail is data, not an outlier", append(bulk(98), 0, 1), []int64{0, t0}, nil},
		{"too few to judge", []int64{0, t0}, []int64{0, t0, math.MaxInt64}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := append([]int64(nil), tc.ts...)
			slicesSort(ts)
			lo, hi := RobustRange(ts, OutlierMinMargin)
			for _, x := range tc.in {
				if x < lo || x > hi {
					t.Errorf("%d dropped: range [%d, %d]", x, lo, hi)
				}
			}
			for _, x := range tc.out {
				if x >= lo && x <= hi {
					t.Errorf("%d kept: range [%d, %d]", x, lo, hi)
				}
			}
		})
	}
}

func slicesSort(ts []int64) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j] < ts[j-1]; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// TestStrayLogTimeDoesNotStretchGrid: one log record dated 1970 (or shifted
// by a zone of +99:99) among an hour of metrics is dropped with a warning,
// and the grid keeps the metrics' step and length.
func TestStrayLogTimeDoesNotStretchGrid(t *testing.T) {
	t0 := Time(1_800_000_000 * int64(time.Second))
	for _, stray := range []Time{Time(time.Second), t0.Add(100 * time.Hour)} {
		b := &Bundle{}
		s := &Series{Name: "cpu", Entity: Entity{Kind: KindService, Name: "api"}, Signal: SignalCPU}
		for i := range 240 {
			s.T = append(s.T, t0.Add(time.Duration(i)*15*time.Second))
			s.V = append(s.V, 1)
		}
		b.Series = append(b.Series, s)
		b.Logs = []LogRecord{{Time: t0.Add(time.Minute)}, {Time: stray}}
		b.LogStreams = []LogStream{{}}
		b.LogTemplates = []LogTemplate{{}}
		Finalize(b, Options{})
		if b.Step != 15*time.Second || len(b.Grid) != 240 || len(b.Logs) != 1 {
			t.Errorf("stray %v: step %v, %d cells, %d logs", stray, b.Step, len(b.Grid), len(b.Logs))
		}
		if !strings.Contains(warningsOf(b, ErrBadValue), "1 log records timed far outside") {
			t.Errorf("stray %v: warnings %v", stray, b.Warnings)
		}
	}
}

// TestRecoverInput: a panic while reading one input becomes that input's
// error, naming the file; the caller goes on.
func TestRecoverInput(t *testing.T) {
	read := func() (b *Bundle, err error) {
		defer recoverInput("bad.sqlite", &b, &err)
		var s []int
		_ = s[3] // index out of range
		return &Bundle{}, nil
	}
	b, err := read()
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "bad.sqlite" || !strings.Contains(err.Error(), "internal error reading this input") ||
		!strings.Contains(err.Error(), "index out of range") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	if b == nil || len(b.Inputs) != 1 || b.Inputs[0].Path != "bad.sqlite" {
		t.Errorf("bundle %+v", b)
	}
}

// BenchmarkDropTimeOutliers: the robust-range pass over 1M spans and 1M log
// records (one stray each): a strided sample of at most 65,536 times, then
// one filtering pass. go test ./ingest -run x -bench DropTimeOutliers -benchmem
func BenchmarkDropTimeOutliers(b *testing.B) {
	t0 := Time(1_800_000_000 * int64(time.Second))
	spans := make([]Span, 1_000_000)
	logs := make([]LogRecord, 1_000_000)
	for i := range spans {
		spans[i].Start = t0.Add(time.Duration(i) * time.Millisecond)
		logs[i].Time = t0.Add(time.Duration(i) * time.Millisecond)
	}
	spans[500].Start, logs[500].Time = 1, 1
	bd := &Bundle{}
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		bd.Spans, bd.Logs, bd.Warnings = append(bd.Spans[:0], spans...), append(bd.Logs[:0], logs...), bd.Warnings[:0]
		b.StartTimer()
		dropTimeOutliers(bd, nil)
		if len(bd.Spans) != len(spans)-1 || len(bd.Logs) != len(logs)-1 {
			b.Fatalf("%d spans, %d logs kept", len(bd.Spans), len(bd.Logs))
		}
	}
}
