package nsight

import (
	"database/sql"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/nsighttest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
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
	if !strings.Contains(bundletest.WarningsOf(b, ingest.ErrBadValue), "CUPTI_ACTIVITY_KIND_KERNEL: a view") {
		t.Errorf("the view is not named: %v", b.Warnings)
	}
	if !strings.Contains(bundletest.WarningsOf(b, ingest.ErrLimit), "stopped after 500 activity rows") {
		t.Errorf("no row-limit warning: %v", b.Warnings)
	}
	if d > 10*time.Second || alloc > 40<<20 {
		t.Errorf("took %v and allocated %d MiB", d, alloc>>20)
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
			if !strings.Contains(bundletest.WarningsOf(b, ingest.ErrBadValue), "far outside the rest of the trace") {
				t.Errorf("no warning: %v", b.Warnings)
			}
			busy := bundletest.FindSeries(t, b, "nsys_gpu_busy_ratio", "", "")
			if n := len(busy.T); n < 50 || n > 500 || busy.T[1]-busy.T[0] != ingest.Time(20*time.Millisecond) {
				t.Errorf("%d buckets of %v", n, busy.T[1].Sub(busy.T[0]))
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}
