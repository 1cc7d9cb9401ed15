package gpu

import (
	"database/sql"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/nsighttest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Hostile and extreme GPU inputs (moved from the core's sanity and time-bound tests).

// TestNsightHostile: a kernel "table" that is a view over an endless
// recursive CTE is not read; blob cells are never loaded; rows are capped.
func TestNsightHostile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(start, end, deviceId, shortName) AS (SELECT 1, 2, 0, 'k' UNION ALL SELECT start+1, end+1, deviceId, shortName FROM r) SELECT * FROM r`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER)`,
		`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1000, 2000, zeroblob(50000000))`,
		`INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (zeroblob(50000000), 2000, 0)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 999) INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT 3000+i, 4000+i, 0 FROM n`,
		`CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER)`,
		`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000)`,
		`CREATE TABLE TARGET_INFO_GPU (id INTEGER, uuid TEXT)`,
		`INSERT INTO TARGET_INFO_GPU VALUES (0, CAST(zeroblob(50000000) AS TEXT))`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	var b *ingest.Bundle
	d, alloc := testkit.MeasureCost(func() { b, err = decodeNsightSQLite("h.sqlite", path, ingest.Limits{MaxSpans: 500}) })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warningsOf(b, ingest.ErrBadValue), "CUPTI_ACTIVITY_KIND_KERNEL: a view") {
		t.Errorf("the view is not named: %v", b.Warnings)
	}
	if !strings.Contains(warningsOf(b, ingest.ErrLimit), "stopped after 500 activity rows") {
		t.Errorf("no row-limit warning: %v", b.Warnings)
	}
	if d > 10*time.Second || alloc > 40<<20 {
		t.Errorf("took %v and allocated %d MiB", d, alloc>>20)
	}
}

// TestGPUDeviceAndCellLimits: a Kineto trace naming 100k devices keeps the
// devices whose series fit --max-series; a flood of one-point series beside
// a real one is cut to --max-cells, the real series kept.
func TestGPUDeviceAndCellLimits(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"schemaVersion":1,"baseTimeNanoseconds":1700000000000000000,"traceEvents":[`)
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"ph":"X","cat":"kernel","name":"k","ts":%d,"dur":5,"args":{"device":%d}}`, i*10, i)
	}
	sb.WriteString(`]}`)
	var b *ingest.Bundle
	var err error
	_, alloc := testkit.MeasureCost(func() {
		b, err = decodeKineto("k.json", strings.NewReader(sb.String()), ingest.Limits{MaxSeries: 1000})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Series) > 1000 || !strings.Contains(warningsOf(b, ingest.ErrLimit), "GPUs dropped") {
		t.Errorf("%d series; warnings %v", len(b.Series), b.Warnings)
	}
	if alloc > 400<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}

	fb := &ingest.Bundle{Inputs: []ingest.Input{{Path: "m"}}}
	real := &ingest.Series{Name: "real", Source: "m"}
	for i := 0; i < 240; i++ {
		real.T = append(real.T, ingest.Time(1700000000e9+int64(i)*15e9))
		real.V = append(real.V, float64(i))
	}
	fb.Series = append(fb.Series, real)
	for i := 0; i < 5000; i++ {
		fb.Series = append(fb.Series, &ingest.Series{Name: fmt.Sprintf("flood%05d", i), Source: "m", T: []ingest.Time{ingest.Time(1700000000e9 + int64(i%240)*15e9)}, V: []float64{1}})
	}
	if err := ingest.Finalize(fb, ingest.Options{Limits: ingest.Limits{MaxCells: 240 * 100}, NoFeatures: true}); err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, s := range fb.Series {
		kept = kept || s.Name == "real"
	}
	if len(fb.Series) > 100 || !kept || !strings.Contains(warningsOf(fb, ingest.ErrLimit), "--max-cells") {
		t.Errorf("%d series kept (real: %v); warnings %v", len(fb.Series), kept, fb.Warnings)
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
	b, err := decodeKineto("k.json", strings.NewReader(sb.String()), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warningsOf(b, ingest.ErrBadValue), "far outside the rest of the trace") {
		t.Errorf("no warning: %v", b.Warnings)
	}
	busy := findSeries(t, b, "kineto_gpu_busy_ratio", "", "")
	if n := len(busy.T); n < 50 || n > 500 || busy.T[1].Sub(busy.T[0]) > 100*time.Millisecond {
		t.Errorf("%d buckets of %v", n, busy.T[1].Sub(busy.T[0]))
	}
}

// TestNsightExtremeTimelines: one row spanning centuries is dropped with a
// warning; the timeline keeps the bulk's 20 ms step and ~100 buckets, in
// bounded memory.
func TestNsightExtremeTimelines(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range nsighttest.Extremes {
		t.Run(tc.Name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("x%d.sqlite", i))
			nsighttest.Write(t, path, tc.Row)
			var b *ingest.Bundle
			var err error
			_, alloc := testkit.MeasureCost(func() { b, err = ingest.ReadFile(path, nil, ingest.Limits{}) })
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(warningsOf(b, ingest.ErrBadValue), "far outside the rest of the trace") {
				t.Errorf("no warning: %v", b.Warnings)
			}
			busy := findSeries(t, b, "nsys_gpu_busy_ratio", "", "")
			if n := len(busy.T); n < 50 || n > 500 || busy.T[1]-busy.T[0] != ingest.Time(20*time.Millisecond) {
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
