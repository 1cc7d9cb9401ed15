package ingest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestTokenGuard: the guard passes JSON whose tokens fit, byte for byte and
// whatever the read sizes (escapes and quotes split across reads), fails at
// the first string, bare token or whitespace run over the limit, and leaves
// non-JSON input alone.
func TestTokenGuard(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"small document", `{"a":"b","c":[1,2.5e3,true,null]}`, true},
		{"escapes", `{"a":"q\"u\\o\\\"te` + strings.Repeat(`\\`, 10) + `","b":"\u0041"}`, true},
		{"string at the limit", `["` + long[:64] + `"]`, true},
		{"string over", `["` + long + `"]`, false},
		{"escaped quotes do not end a long string", `["` + strings.Repeat(`\"`, 40) + `"]`, false},
		{"whitespace run over", `{"a":` + strings.Repeat(" ", 100) + `1}`, false},
		{"newlines between JSON lines", "{\"a\":1}\n\n\n{\"a\":2}\n", true},
		{"number over", `[` + strings.Repeat("1", 100) + `]`, false},
		{"leading whitespace over", strings.Repeat("\n", 100) + `{}`, false},
		{"BOM", "\xef\xbb\xbf{\"a\":\"b\"}", true},
		{"not JSON: passed through", "timestamp, index\n" + long + long, true},
	}
	for _, tc := range tests {
		for _, rd := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"one byte", iotest.OneByteReader}, {"half", iotest.HalfReader}} {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				got, err := io.ReadAll(newTokenGuard(rd.wrap(strings.NewReader(tc.in)), 64))
				if tc.ok {
					if err != nil || string(got) != tc.in {
						t.Fatalf("err %v, passed %d of %d bytes", err, len(got), len(tc.in))
					}
					return
				}
				if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "--max-token") {
					t.Fatalf("err = %v, want ErrLimit naming --max-token", err)
				}
				if len(got) > len(tc.in)-10 {
					t.Errorf("passed %d of %d bytes before failing", len(got), len(tc.in))
				}
			})
		}
	}
}

// TestTokenGuardInReadFile: a gzip member that expands to a huge string or
// whitespace run behind a header of each JSON format is rejected with a
// one-line ErrLimit InputError after reading about the limit, not the
// member; allocation stays a small multiple of the limit.
func TestTokenGuardInReadFile(t *testing.T) {
	heads := map[string]string{
		"jaeger":     `{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"1","operationName":"`,
		"prometheus": `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"`,
		"otlp":       `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"`,
		"kineto":     `{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"`,
		"alert":      `{"receiver":"x","status":"firing","alerts":[{"labels":{"alertname":"`,
	}
	const lim = 4 << 20
	for name, head := range heads {
		for _, fill := range []byte{'x', ' '} {
			t.Run(name+"/"+string(fill), func(t *testing.T) {
				h := head
				if fill == ' ' {
					h += `x"`
				}
				// A head member, then one 1 MiB member written 64 times
				// (cheap to build, even under -race).
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				zw.Write([]byte(h))
				zw.Close()
				var member bytes.Buffer
				zw = gzip.NewWriter(&member)
				zw.Write(bytes.Repeat([]byte{fill}, 1<<20))
				zw.Close()
				for i := 0; i < 64; i++ {
					buf.Write(member.Bytes())
				}
				var err error
				_, alloc := testkit.MeasureCost(func() { _, err = ReadFile("-", &buf, Limits{MaxTokenBytes: lim}) })
				var ie *InputError
				if !errors.Is(err, ErrLimit) || !errors.As(err, &ie) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want a one-line ErrLimit InputError", err)
				}
				if alloc > 16*lim {
					t.Errorf("allocated %d MiB for a %d MiB token limit", alloc>>20, lim>>20)
				}
			})
		}
	}
}

// BenchmarkTokenGuard measures the guard's cost per byte of a span file.
func BenchmarkTokenGuard(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"data":[{"traceID":"1","spans":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"traceID":"00000000000000000000000000000001","spanID":"0000000000000002","operationName":"GET /api/v1/items","startTime":1700000000000000,"duration":1234,"processID":"p1","tags":[{"key":"span.kind","type":"string","value":"server"}]}`)
	}
	sb.WriteString(`]}]}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, newTokenGuard(bytes.NewReader(data), 16<<20)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFastPathTokenBound: on a regular file the Jaeger and Prometheus fast
// paths run without the guard (fastjson.Scanner.MaxTok bounds tokens instead);
// a string, number or whitespace run over the limit still gives the
// guard's error, the same as the guarded read of the same bytes from a
// stream, with allocation a small multiple of the limit.
func TestFastPathTokenBound(t *testing.T) {
	heads := map[string]string{
		"jaeger":     `{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"1","operationName":"`,
		"prometheus": `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"`,
	}
	const lim = 1 << 20
	for name, head := range heads {
		for _, kind := range []string{"string", "space", "number"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				var data []byte
				switch kind {
				case "string":
					data = append([]byte(head), bytes.Repeat([]byte{'x'}, 3*lim)...)
				case "space":
					data = append([]byte(head+`x"`), bytes.Repeat([]byte{' '}, 3*lim)...)
				case "number":
					data = append([]byte(head+`x","v":`), bytes.Repeat([]byte{'7'}, 3*lim)...)
				}
				path := filepath.Join(t.TempDir(), name+".json")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				var fileErr error
				_, alloc := testkit.MeasureCost(func() { _, fileErr = ReadFile(path, nil, Limits{MaxTokenBytes: lim}) })
				_, streamErr := ReadFile("-", bytes.NewReader(data), Limits{MaxTokenBytes: lim})
				if !errors.Is(fileErr, ErrLimit) || !strings.Contains(fileErr.Error(), "--max-token") {
					t.Fatalf("file: err = %v, want the token limit", fileErr)
				}
				// The same limit message (a file's position is line:column,
				// a stream's a byte offset).
				msg := func(err error) string {
					if err == nil {
						return ""
					}
					_, m, _ := strings.Cut(err.Error(), ": limit exceeded")
					return m
				}
				if msg(streamErr) == "" || msg(fileErr) != msg(streamErr) {
					t.Errorf("file and stream errors differ:\n file   %v\n stream %v", fileErr, streamErr)
				}
				if alloc > 16*lim {
					t.Errorf("allocated %d MiB for a %d MiB token limit", alloc>>20, lim>>20)
				}
			})
		}
	}
	// A run of whitespace after a complete document: the guarded general
	// reader stops at the document's end (the rest is drained), so the
	// fast path, which meets the run at a buffer's end, must read the same.
	doc := `{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"1","operationName":"a","startTime":1700000000000000,"duration":5,"processID":"p1"}],"processes":{"p1":{"serviceName":"a"}}}]}`
	tail := filepath.Join(t.TempDir(), "tail.json")
	if err := os.WriteFile(tail, append([]byte(doc), bytes.Repeat([]byte{' '}, 3<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	fb, ferr := ReadFile(tail, nil, Limits{MaxTokenBytes: lim})
	tailData, _ := os.ReadFile(tail)
	sb, serr := ReadFile("-", bytes.NewReader(tailData), Limits{MaxTokenBytes: lim})
	if ferr != nil || serr != nil || len(fb.Spans) != 1 || len(sb.Spans) != 1 {
		t.Errorf("trailing whitespace run: file %v, stream %v; want both to read the one span", ferr, serr)
	}

	// Within the bound, the fast path reads a long string as it is.
	long := strings.Repeat("y", lim-1)
	data := `{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"1","operationName":"` + long +
		`","startTime":1700000000000000,"duration":5,"processID":"p1"}],"processes":{"p1":{"serviceName":"a"}}}]}`
	path := filepath.Join(t.TempDir(), "ok.json")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(path, nil, Limits{MaxTokenBytes: lim, MaxStringBytes: 2 * lim})
	if err != nil || len(b.Spans) != 1 || b.Spans[0].Operation.String() != long {
		t.Fatalf("a string under the bound: err %v", err)
	}
}
