package profdiff

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Hostile captures: every reader stays within its bounds and fails with a
// one-line positioned error, or keeps what fits and warns.

// kinetoOf is a Kineto trace of the given events.
func kinetoOf(events ...string) string {
	return `{"traceEvents":[` + strings.Join(events, ",") + `]}`
}

const (
	goodKernel = `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"correlation":1}}`
	goodLaunch = `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":9,"dur":1,"args":{"correlation":1}}`
)

// readString reads s as a capture file (written to a temporary file).
func readString(t *testing.T, s string, lim ingest.Limits) (*capture, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return readFile(p, lim.WithDefaults(), "")
}

// TestHostileKineto: broken and oversized Kineto input.
func TestHostileKineto(t *testing.T) {
	small := ingest.Limits{MaxTokenBytes: 1 << 10, MaxDepth: 16, MaxStringBytes: 64, MaxSpans: 3}
	for _, tc := range []struct {
		name, in, want string
		lim            ingest.Limits
	}{
		{"empty", "", "empty input", ingest.Limits{}},
		{"not json", "hello", "not a profiler capture", ingest.Limits{}},
		{"array", "[1,2]", "not a profiler capture", ingest.Limits{}},
		{"truncated", kinetoOf(goodKernel)[:60], "malformed JSON", ingest.Limits{}},
		{"no events", `{"schemaVersion":1}`, "no traceEvents", ingest.Limits{}},
		{"long string", kinetoOf(`{"ph":"X","cat":"kernel","name":"` + strings.Repeat("a", 4<<10) + `"}`), "malformed JSON", small},
		{"deep", kinetoOf(`{"ph":"X","args":` + strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat("}", 40) + `}`), "malformed JSON", small},
		{"bad value", kinetoOf(`{"ph":"X","cat":"kernel","ts":tru}`), "malformed JSON", ingest.Limits{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readString(t, tc.in, tc.lim)
			var ie *ingest.InputError
			if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want a one-line input error with %q", err, tc.want)
			}
			if tc.name == "truncated" && ie.Offset <= 0 {
				t.Errorf("no position: %v", err)
			}
		})
	}
	t.Run("budget", func(t *testing.T) {
		c, err := readString(t, kinetoOf(goodLaunch, goodKernel, goodKernel, goodKernel, goodKernel), small)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.kernels)+len(c.launches) != 3 || c.dropped != 2 || len(c.warnings) != 1 {
			t.Errorf("%d kernels, %d launches, %d dropped, warnings %q", len(c.kernels), len(c.launches), c.dropped, c.warnings)
		}
	})
	t.Run("long name cut", func(t *testing.T) {
		c, err := readString(t, kinetoOf(`{"ph":"X","cat":"kernel","name":"`+strings.Repeat("k", 500)+`","pid":0,"tid":7,"ts":1,"dur":1}`), small)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.names.list[c.kernels[0].name]) > 64 {
			t.Errorf("a %d-byte name kept", len(c.names.list[c.kernels[0].name]))
		}
	})
	t.Run("bad times skipped", func(t *testing.T) {
		c, err := readString(t, kinetoOf(`{"ph":"X","cat":"kernel","name":"k","ts":"x","dur":1}`, `{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":-5}`,
			`{"ph":"X","cat":"kernel","name":"k","ts":9223372036854775,"dur":9223372036854775}`, goodKernel), ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.kernels) != 1 || len(c.warnings) != 1 {
			t.Errorf("%d kernels, warnings %q", len(c.kernels), c.warnings)
		}
	})
}

// TestHostileGzip: a gzip bomb stops at --max-file-size once inflated.
func TestHostileGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(`{"traceEvents":[` + goodKernel + `,{"ph":"X","name":"` + strings.Repeat(" ", 8<<20)))
	zw.Close()
	p := filepath.Join(t.TempDir(), "bomb.json.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	_, err := readFile(p, ingest.Limits{MaxFileBytes: 1 << 20}.WithDefaults(), "")
	if err == nil || !errors.Is(err, ingest.ErrLimit) {
		t.Fatalf("error %v, want ErrLimit", err)
	}
}

// TestHostileFiles: a FIFO is refused at once (no hang), a missing file is
// named, a directory of nothing is said so.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := readFile(fifo, ingest.DefaultLimits(), ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("fifo: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := Compare([]string{empty}, []string{empty}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "no capture files") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Compare([]string{filepath.Join(dir, "missing")}, []string{empty}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

// TestHostileNsight: an export whose kernel table is a view is refused; a
// blob where a name belongs is no name; rows beyond the budget are not
// read; times that do not parse are skipped.
func TestHostileNsight(t *testing.T) {
	write := func(t *testing.T, stmts ...string) string {
		p := filepath.Join(t.TempDir(), "x.sqlite")
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return p
	}
	kernels := `CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, correlationId INTEGER, shortName)`
	t.Run("view", func(t *testing.T) {
		p := write(t, `CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n) SELECT i AS start, i AS end, 0 AS deviceId FROM n`)
		if _, err := readFile(p, ingest.DefaultLimits(), ""); err == nil || !strings.Contains(err.Error(), "a view") {
			t.Errorf("%v", err)
		}
	})
	t.Run("no kernels", func(t *testing.T) {
		p := write(t, `CREATE TABLE StringIds (id INTEGER, value TEXT)`)
		if _, err := readFile(p, ingest.DefaultLimits(), ""); err == nil || !strings.Contains(err.Error(), "no CUPTI_ACTIVITY_KIND_KERNEL") {
			t.Errorf("%v", err)
		}
	})
	t.Run("cells and budget", func(t *testing.T) {
		p := write(t, kernels,
			`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 1, zeroblob(1000000)), ('x', 5, 0, 2, 'k'), (5, 3, 0, 3, 'k'), (10, 20, 0, 4, 'k')`,
			`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 99) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 100+i, 101+i, 0, 10+i, 'k' FROM n`)
		c, err := readFile(p, ingest.Limits{MaxSpans: 50, MaxStringBytes: 100}.WithDefaults(), "")
		if err != nil {
			t.Fatal(err)
		}
		// Row 1 (a blob name) is kept without a name; rows 2 and 3 (a text
		// time, an end before the start) are skipped; 50 rows are read.
		if len(c.kernels) != 48 || c.dropped == 0 || len(c.warnings) != 1 || c.names.list[c.kernels[0].name] != "" {
			t.Errorf("%d kernels, %d dropped, warnings %q, first name %q", len(c.kernels), c.dropped, c.warnings, c.names.list[c.kernels[0].name])
		}
	})
}

// FuzzKineto: the Kineto reader never panics, and fails only with an
// input error.
func FuzzKineto(f *testing.F) {
	f.Add(kinetoOf(goodLaunch, goodKernel))
	f.Add(kinetoOf(`{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100}`, goodLaunch, goodKernel))
	f.Add(`{"traceEvents":[{"ph":"X","cat":"gpu_user_annotation","name":"a","pid":0,"tid":7,"ts":1e3,"dur":1.5}],"distributedInfo":{"rank":3}}`)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := readKineto("f.json", strings.NewReader(in), ingest.Limits{MaxSpans: 1000, MaxDepth: 32, MaxTokenBytes: 1 << 16, MaxStringBytes: 256}.WithDefaults())
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an input error: %v", err)
			}
			return
		}
		c.attribute()
	})
}
