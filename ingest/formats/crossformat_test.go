package formats_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Tests that read several formats at once: they need every decoder
// registered, so they live here, outside the decoder packages.

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
	b, err := ingest.Read([]string{dir}, nil, ingest.Options{TempDir: t.TempDir()})
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

func jaegerSpan(id, parent, proc string, startUs, durUs int64) string {
	refs := ""
	if parent != "" {
		refs = fmt.Sprintf(`,"references":[{"refType":"CHILD_OF","traceID":"1","spanID":"%s"}]`, parent)
	}
	return fmt.Sprintf(`{"traceID":"1","spanID":"%s","operationName":"op","startTime":%d,"duration":%d,"processID":"%s"%s}`, id, startUs, durUs, proc, refs)
}

func jaegerTrace(spans ...string) string {
	return `{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"front","tags":[{"key":"hostname","type":"string","value":"h1"}]},` +
		`"p2":{"serviceName":"back","tags":[{"key":"hostname","type":"string","value":"h2"}]}},"spans":[` + strings.Join(spans, ",") + `]}]}`
}
