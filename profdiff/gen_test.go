package profdiff

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

// The test generators: copies of the real captures in ../shared/samples
// with chosen kernels and ranges slowed or sped by known factors, or every
// kernel jittered, and multi-rank directories — written by the tests that
// use them, so the expected answer is known.

// sample is the path of a shared sample capture (skips without them).
func sample(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(testkit.SharedDir(t), "samples", name)
}

// kinetoDoc is a Kineto trace decoded with its numbers kept as written.
type kinetoDoc map[string]any

// loadKineto reads a (gzipped) Kineto trace.
func loadKineto(t *testing.T, path string) kinetoDoc {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var d kinetoDoc
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// events are the document's traceEvents.
func (d kinetoDoc) events() []map[string]any {
	var out []map[string]any
	for _, e := range d["traceEvents"].([]any) {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// write writes the document gzipped.
func (d kinetoDoc) write(t *testing.T, path string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(d); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// num reads a JSON number field as float64 (NaN-free: 0 when absent).
func num(m map[string]any, k string) float64 {
	if n, ok := m[k].(json.Number); ok {
		f, _ := n.Float64()
		return f
	}
	if f, ok := m[k].(float64); ok {
		return f
	}
	return 0
}

// argInt reads args[k] as an integer (-1 when absent).
func argInt(m map[string]any, k string) int64 {
	args, _ := m["args"].(map[string]any)
	if n, ok := args[k].(json.Number); ok {
		v, err := n.Int64()
		if err == nil {
			return v
		}
	}
	return -1
}

// isKernel reports a kernel event.
func isKernel(m map[string]any) bool { return m["cat"] == "kernel" && m["ph"] == "X" }

// scale multiplies the duration of the kernels pick chooses by f(kernel)
// (their start stays; µs with nanosecond decimals, as Kineto writes).
func (d kinetoDoc) scale(pick func(m map[string]any) bool, f func(m map[string]any) float64) int {
	n := 0
	for _, m := range d.events() {
		if isKernel(m) && pick(m) {
			m["dur"] = json.Number(strconv.FormatFloat(num(m, "dur")*f(m), 'f', 3, 64))
			n++
		}
	}
	return n
}

// kernelsIn returns the correlations of the kernels launched inside a
// host range (user_annotation) named name, on the range's thread.
func (d kinetoDoc) kernelsIn(name string) map[int64]bool {
	type rng struct {
		pid, tid any
		s, e     float64
	}
	var ranges []rng
	for _, m := range d.events() {
		if m["cat"] == "user_annotation" && m["name"] == name {
			ranges = append(ranges, rng{m["pid"], m["tid"], num(m, "ts"), num(m, "ts") + num(m, "dur")})
		}
	}
	out := map[int64]bool{}
	for _, m := range d.events() {
		if m["cat"] != "cuda_runtime" && m["cat"] != "cuda_driver" {
			continue
		}
		ts := num(m, "ts")
		for _, r := range ranges {
			if jsonEq(m["pid"], r.pid) && jsonEq(m["tid"], r.tid) && ts >= r.s && ts <= r.e {
				out[argInt(m, "correlation")] = true
			}
		}
	}
	return out
}

func jsonEq(a, b any) bool { return a == b || a != nil && b != nil && jsonString(a) == jsonString(b) }

func jsonString(a any) string { b, _ := json.Marshal(a); return string(b) }

// jitter multiplies every kernel's duration by 1+U(−0.05, 0.05).
func (d kinetoDoc) jitter(seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	d.scale(func(map[string]any) bool { return true }, func(map[string]any) float64 { return 1 + 0.1*(r.Float64()-0.5) })
}

// setRank sets distributedInfo.rank.
func (d kinetoDoc) setRank(rank int) {
	di, _ := d["distributedInfo"].(map[string]any)
	if di == nil {
		di = map[string]any{}
		d["distributedInfo"] = di
	}
	di["rank"] = json.Number(strconv.Itoa(rank))
}

// copyNsight copies an Nsight export to dst and runs stmts on the copy.
func copyNsight(t *testing.T, src, dst string, stmts ...string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// nsightScaleKernels is the statement that multiplies the duration of the
// kernels named name (StringIds value) by f.
func nsightScaleKernels(name string, f float64) string {
	return `UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start + CAST(("end" - start) * ` + strconv.FormatFloat(f, 'g', -1, 64) +
		` AS INTEGER) WHERE shortName IN (SELECT id FROM StringIds WHERE value = '` + name + `')`
}

// nsightScaleMemcpy multiplies the duration of the copies of copyKind kind.
func nsightScaleMemcpy(kind int, f float64) string {
	return `UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET "end" = start + CAST(("end" - start) * ` + strconv.FormatFloat(f, 'g', -1, 64) +
		` AS INTEGER) WHERE copyKind = ` + strconv.Itoa(kind)
}

// nsightJitter multiplies every activity's duration by 1+U(−0.05, 0.05)
// (SQLite's random(), seeded by nothing: the statements carry the factors).
func nsightJitter(t *testing.T, path string, seed uint64) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(seed, 9))
	for _, table := range []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"} {
		rows, err := db.Query(`SELECT rowid FROM ` + table)
		if err != nil {
			continue
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			f := 1 + 0.1*(r.Float64()-0.5)
			if _, err := db.Exec(`UPDATE `+table+` SET "end" = start + CAST(("end" - start) * ? AS INTEGER) WHERE rowid = ?`, f, id); err != nil {
				t.Fatal(err)
			}
		}
	}
}
