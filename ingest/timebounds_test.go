package ingest

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

// writeNsight writes an Nsight SQLite export: a session start, kernels and
// memsets on device 0 every 10 ms for 2 s, cudaDeviceSynchronize calls, and
// extra statements (a hostile row).
func writeNsight(t *testing.T, path string, extra ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range append([]string{
		`CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER)`,
		`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1800000000000000000)`,
		`CREATE TABLE StringIds (id INTEGER, value TEXT)`,
		`INSERT INTO StringIds VALUES (1, 'saxpy'), (2, 'cudaDeviceSynchronize_v3020')`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, shortName INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 199) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000000000+i*10000000, 1000000000+i*10000000+4000000, 0, 1 FROM n`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 19) INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT 1005000000+i*100000000, 1006000000+i*100000000, 0 FROM n`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, nameId INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 19) INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1007000000+i*100000000, 1009000000+i*100000000, 2 FROM n`,
	}, extra...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// nsightExtremes are Nsight rows whose start or end spans almost the whole
// int64 range (issue 28: a makeslice panic, out of memory, or 24 GB).
var nsightExtremes = []struct{ name, row string }{
	{"kernel from 0 to max", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-1800000000000000000, 7423372036854775807, 0, 1)`},
	{"kernel ending at max", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1500000000, 7423372036854775806, 0, 1)`},
	{"kernel starting near 1970", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-1799999999999999999, 1500000000, 0, 1)`},
	{"sync call over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-1800000000000000000, 7423372036854775807, 2)`},
	{"memset over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (-1700000000000000000, 7000000000000000000, 0)`},
}

// TestNsightExtremeTimelines: one row spanning centuries is dropped with a
// warning; the timeline keeps the bulk's 20 ms step and ~100 buckets, in
// bounded memory.
func TestNsightExtremeTimelines(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range nsightExtremes {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("x%d.sqlite", i))
			writeNsight(t, path, tc.row)
			var b *Bundle
			var err error
			_, alloc := measureCost(func() { b, err = ReadFile(path, nil, Limits{}) })
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(warningsOf(b, ErrBadValue), "far outside the rest of the trace") {
				t.Errorf("no warning: %v", b.Warnings)
			}
			busy := findSeries(t, b, "nsys_gpu_busy_ratio", "", "")
			if n := len(busy.T); n < 50 || n > 500 || busy.T[1]-busy.T[0] != Time(20*time.Millisecond) {
				t.Errorf("%d buckets of %v", n, busy.T[1].Sub(busy.T[0]))
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestTimelineStepExtremes: the step of a span near the int64 range does not
// overflow into a 1 µs step (a makeslice panic in derive).
func TestTimelineStepExtremes(t *testing.T) {
	for _, span := range []int64{math.MaxInt64, math.MaxInt64 - 1000, math.MaxInt64 / 2} {
		st := int64(timelineStep(span))
		if n := span/st + 1; n > 2000 || n < 1 {
			t.Errorf("span %d: step %d gives %d buckets", span, st, n)
		}
	}
}

// TestBadNsightBesideGood: a directory with an extreme Nsight export beside
// a good one and a trace analyses them all.
func TestBadNsightBesideGood(t *testing.T) {
	dir := t.TempDir()
	writeNsight(t, filepath.Join(dir, "a-bad.sqlite"), nsightExtremes[0].row)
	writeNsight(t, filepath.Join(dir, "b-good.sqlite"))
	tr := jaegerTrace(jaegerSpan("1", "", "p1", 1800000001000000, 100), jaegerSpan("2", "1", "p2", 1800000001000010, 50))
	if err := os.WriteFile(filepath.Join(dir, "c-trace.json"), []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Read([]string{dir}, nil, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, in := range b.Inputs {
		if !in.Skipped && in.Error == "" {
			read++
		}
	}
	if read != 3 || len(b.Spans) != 2 {
		t.Errorf("%d of 3 inputs read, %d spans: %+v", read, len(b.Spans), b.Inputs)
	}
	if span := b.End.Sub(b.Start); span > time.Hour {
		t.Errorf("data range %v → %v", b.Start, b.End)
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
		if err := b.Finalize(Options{}); err != nil {
			t.Fatal(err)
		}
		if b.Step != 15*time.Second || len(b.Grid) != 240 || len(b.Logs) != 1 {
			t.Errorf("stray %v: step %v, %d cells, %d logs", stray, b.Step, len(b.Grid), len(b.Logs))
		}
		if !strings.Contains(warningsOf(b, ErrBadValue), "1 log records timed far outside") {
			t.Errorf("stray %v: warnings %v", stray, b.Warnings)
		}
	}
}

// TestKinetoExtremeEvent: a Kineto kernel lasting centuries among normal
// ones is dropped with a warning; the timeline keeps the bulk's buckets.
func TestKinetoExtremeEvent(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"schemaVersion":1,"baseTimeNanoseconds":1800000000000000000,"traceEvents":[`)
	for i := range 200 {
		fmt.Fprintf(&sb, `{"ph":"X","cat":"kernel","name":"k","ts":%d,"dur":4000,"args":{"device":0}},`, 1000000+i*10000)
	}
	sb.WriteString(`{"ph":"X","cat":"kernel","name":"k","ts":1500000,"dur":7000000000000000,"args":{"device":0}}]}`)
	b, err := decodeKineto("k.json", strings.NewReader(sb.String()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warningsOf(b, ErrBadValue), "far outside the rest of the trace") {
		t.Errorf("no warning: %v", b.Warnings)
	}
	busy := findSeries(t, b, "kineto_gpu_busy_ratio", "", "")
	if n := len(busy.T); n < 50 || n > 500 || busy.T[1].Sub(busy.T[0]) > 100*time.Millisecond {
		t.Errorf("%d buckets of %v", n, busy.T[1].Sub(busy.T[0]))
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
		bd.dropTimeOutliers()
		if len(bd.Spans) != len(spans)-1 || len(bd.Logs) != len(logs)-1 {
			b.Fatalf("%d spans, %d logs kept", len(bd.Spans), len(bd.Logs))
		}
	}
}
