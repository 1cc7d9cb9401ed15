// Package nsighttest writes Nsight Systems SQLite exports for tests: a
// small well-formed session and the hostile rows of issue 28. Shared by the
// GPU decoder's tests and the cross-format tests; only tests import it.
package nsighttest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // registered as "sqlite"
)

// Write writes an Nsight SQLite export: a session start, kernels and
// memsets on device 0 every 10 ms for 2 s, cudaDeviceSynchronize calls, and
// extra statements (a hostile row).
func Write(t *testing.T, path string, extra ...string) {
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

// Extremes are Nsight rows whose start or end spans almost the whole
// int64 range (issue 28: a makeslice panic, out of memory, or 24 GB).
var Extremes = []struct{ Name, Row string }{
	{"kernel from 0 to max", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-1800000000000000000, 7423372036854775807, 0, 1)`},
	{"kernel ending at max", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1500000000, 7423372036854775806, 0, 1)`},
	{"kernel starting near 1970", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-1799999999999999999, 1500000000, 0, 1)`},
	{"sync call over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-1800000000000000000, 7423372036854775807, 2)`},
	{"memset over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (-1700000000000000000, 7000000000000000000, 0)`},
}
