package ingest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadHashesInputs checks the sha256 and size of every input against
// the bytes on disk (regular files are hashed after parsing), of a gzip
// file (its compressed bytes), of stdin (hashed while read), and that an
// unknown file and a file that fails to parse get no hash.
func TestReadHashesInputs(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(placementTrace))
	zw.Close()
	files := map[string][]byte{
		"a-traces.json":    []byte(placementTrace),
		"b-traces.json.gz": gz.Bytes(),
		"c-gpu.jsonl":      []byte(nvmlRecording("host-b", "4242")),
		"d-notes.txt":      []byte("not a format we read\n"),
		"e-broken.jsonl":   []byte(`{"pipeline_analyze_nvml":1}` + "\n" + `{"t_ns":1,`),
		"label.json":       []byte(`{"fault":"x","root_cause":{"service":"vllm"}}`),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdin := []byte(nvmlRecording("host-c", "1"))
	b, err := Read([]string{dir, "-"}, bytes.NewReader(stdin), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := func(p []byte) string { h := sha256.Sum256(p); return hex.EncodeToString(h[:]) }
	for _, in := range b.Inputs {
		name := filepath.Base(in.Path)
		body, ok := files[name]
		if in.Path == "<stdin>" {
			body, ok = stdin, true
		}
		if !ok {
			t.Fatalf("unexpected input %q", in.Path)
		}
		want, wantSize := sum(body), int64(len(body))
		if in.Format == FormatUnknown || strings.HasPrefix(name, "e-") {
			want, wantSize = "", in.Size
		}
		if in.SHA256 != want || in.Size != wantSize {
			t.Errorf("%s: sha256 %q size %d, want %q size %d", name, in.SHA256, in.Size, want, wantSize)
		}
	}
	if len(b.Inputs) != len(files)+1 {
		t.Errorf("%d inputs, want %d", len(b.Inputs), len(files)+1)
	}
}

// TestReadOrder checks the order readAll starts files in: regular files
// largest first, equal sizes in file order, then files that cannot be
// stat'ed and streams, in file order.
func TestReadOrder(t *testing.T) {
	dir := t.TempDir()
	sizes := map[string]int{"a": 10, "b": 300, "c": 10, "d": 5000}
	var files []string
	for _, n := range []string{"a", "b", "c", "d"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, sizes[n]), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	files = append(files, "-", filepath.Join(dir, "missing"))
	streams := []bool{false, false, false, false, true, false}
	got := readOrder(files, streams)
	want := []int{3, 1, 0, 2, 4, 5}
	if !slices.Equal(got, want) {
		t.Errorf("readOrder = %v, want %v", got, want)
	}
}

// placementTrace is a Jaeger trace from two processes with PIDs: the
// gateway on host-a and the vLLM server on host-b, PID 4242.
const placementTrace = `{"data":[{"traceID":"a1","spans":[
 {"traceID":"a1","spanID":"01","operationName":"POST /v1/chat","startTime":1700000000000000,"duration":900000,"processID":"p1","references":[]},
 {"traceID":"a1","spanID":"02","operationName":"generate","startTime":1700000000001000,"duration":800000,"processID":"p2",
  "references":[{"refType":"CHILD_OF","traceID":"a1","spanID":"01"}]}],
 "processes":{
  "p1":{"serviceName":"gateway","tags":[{"key":"hostname","type":"string","value":"host-a"},{"key":"process.pid","type":"int64","value":4242}]},
  "p2":{"serviceName":"vllm","tags":[{"key":"hostname","type":"string","value":"HOST-B.example.com"},{"key":"process.pid","type":"int64","value":4242}]}}}]}`

// nvmlRecording returns a record-gpu file of host with GPU 0 used by pids.
func nvmlRecording(host string, pids ...string) string {
	var procs []string
	for _, p := range pids {
		procs = append(procs, `{"pid":`+p+`,"used_memory_bytes":1e9}`)
	}
	return `{"pipeline_analyze_nvml":1,"host":"` + host + `","devices":[]}
{"t_ns":1700000000000000000,"gpu":0,"uuid":"GPU-1111","util_gpu_pct":50,"processes":[` + strings.Join(procs, ",") + `]}
{"t_ns":1700000001000000000,"gpu":0,"uuid":"GPU-1111","util_gpu_pct":55,"processes":[` + strings.Join(procs, ",") + `]}
`
}

// TestHashFileSizes: hashFile's sum and size are sha256.Sum256's and the
// file's length for files empty, shorter than its read size, and spanning
// several reads with a partial last one.
func TestHashFileSizes(t *testing.T) {
	for _, n := range []int{0, 1, hashBuf - 1, hashBuf, 3*hashBuf + 17} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i/hashBuf)
		}
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum, size, err := hashFile(path, new([]byte))
		want := sha256.Sum256(data)
		if err != nil || size != int64(n) || sum != hex.EncodeToString(want[:]) {
			t.Fatalf("%d bytes: hashFile = %s, %d, %v; want %x, %d", n, sum, size, err, want, n)
		}
	}
}
