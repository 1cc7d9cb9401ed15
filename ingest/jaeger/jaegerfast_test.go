package jaeger

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// fastEnvelope is a small envelope in the simulator's and /api/traces' shape.
const fastEnvelope = `{"data":[{"traceID":"00000000000000ab","spans":[
{"traceID":"00000000000000ab","spanID":"0000000000000001","flags":1,"operationName":"GET /chat","references":[],"startTime":1700000000000000,"duration":5000,"tags":[{"key":"span.kind","type":"string","value":"server"},{"key":"http.status_code","type":"int64","value":503},{"key":"x","type":"float64","value":1.5e3}],"logs":[{"timestamp":1,"fields":[]}],"processID":"p1","warnings":null},
{"traceID":"00000000000000ab","spanID":"0000000000000002","operationName":"call \"llm\" \u00e9","references":[{"refType":"CHILD_OF","traceID":"00000000000000ab","spanID":"0000000000000001"}],"startTime":1700000000001000,"duration":3000,"tags":[{"key":"peer.service","type":"string","value":"vllm"},{"key":"error","type":"bool","value":true},{"key":"k8s.pod.name","type":"string","value":"gw-1"}],"processID":"p2","warnings":["clock skew adjusted"]},
{"traceID":"00000000000000ab","spanID":"0000000000000003","operationName":"orphan","references":[{"refType":"CHILD_OF","traceID":"00000000000000cd","spanID":"0000000000000009"}],"startTime":1700000000002000,"duration":1,"tags":[],"processID":"p9"}
],"processes":{"p1":{"serviceName":"gateway","tags":[{"key":"hostname","type":"string","value":"node-a"}]},"p2":{"serviceName":"gateway","tags":[{"key":"k8s.node.name","type":"string","value":"n2"}]}},"warnings":["trace warn"]}
],"total":0,"limit":0,"offset":0,"errors":null}
`

// TestJaegerFastMatchesGeneral checks the fast path against the general
// reader: wherever the fast path accepts an input, the bundles are equal;
// shapes it must hand over are handed over.
func TestJaegerFastMatchesGeneral(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		lim      ingest.Limits
		wantFast bool
	}{
		{"envelope", fastEnvelope, ingest.Limits{}, true},
		{"span limit", fastEnvelope, ingest.Limits{MaxSpans: 2}, true},
		{"string truncation", fastEnvelope, ingest.Limits{MaxStringBytes: 4}, true},
		{"bare trace object", `{"traceID":"ab","spans":[{"spanID":"1","startTime":1,"duration":1,"processID":"p1"}],"processes":{"p1":{"serviceName":"s"}}}`, ingest.Limits{}, false},
		{"bare span array", `[{"traceID":"ab","spanID":"1","startTime":1,"duration":1,"process":{"serviceName":"s"}}]`, ingest.Limits{}, false},
		{"string start time", strings.Replace(fastEnvelope, `"startTime":1700000000000000`, `"startTime":"1700000000000000"`, 1), ingest.Limits{}, false},
		{"float duration", strings.Replace(fastEnvelope, `"duration":5000`, `"duration":5e3`, 1), ingest.Limits{}, false},
		{"case-folded key", strings.Replace(fastEnvelope, `"operationName":"GET /chat"`, `"OperationName":"GET /chat"`, 1), ingest.Limits{}, false},
		{"duplicate key", strings.Replace(fastEnvelope, `"duration":5000`, `"duration":5000,"duration":6000`, 1), ingest.Limits{}, false},
		{"embedded process", strings.Replace(fastEnvelope, `"processID":"p9"`, `"process":{"serviceName":"x"}`, 1), ingest.Limits{}, false},
		{"bad span ID", strings.Replace(fastEnvelope, `"spanID":"0000000000000003"`, `"spanID":"zz"`, 1), ingest.Limits{}, false},
		{"syntax error", strings.Replace(fastEnvelope, `"duration":3000,`, `"duration":3000,,`, 1), ingest.Limits{}, false},
		{"truncated", fastEnvelope[:len(fastEnvelope)/2], ingest.Limits{}, false},
		{"trailing value", fastEnvelope + `{"data":[]}`, ingest.Limits{}, false},
		{"api errors", strings.Replace(fastEnvelope, `"errors":null`, `"errors":[{"code":1,"msg":"x"}]`, 1), ingest.Limits{}, false},
		{"invalid utf-8", strings.Replace(fastEnvelope, "GET /chat", "GET \xff", 1), ingest.Limits{}, false},
		{"deep unknown value", strings.Replace(fastEnvelope, `"flags":1`, `"flags":`+strings.Repeat("[", 300)+strings.Repeat("]", 300), 1), ingest.Limits{}, false},
		{"leading zero", strings.Replace(fastEnvelope, `"duration":5000`, `"duration":05000`, 1), ingest.Limits{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fast := compareFast(t, []byte(tc.in), tc.lim)
			if fast != tc.wantFast {
				t.Errorf("fast path taken = %v, want %v", fast, tc.wantFast)
			}
		})
	}
}

// TestJaegerFastSamples runs the comparison on the shared real samples and
// on reads through a one-byte reader (every refill boundary).
func TestJaegerFastSamples(t *testing.T) {
	t.Run("one-byte reads", func(t *testing.T) {
		want, err := decodeJaeger("x", strings.NewReader(fastEnvelope), ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeJaegerFast("x", iotest.OneByteReader(strings.NewReader(fastEnvelope)), ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("one-byte reads differ from the general reader")
		}
	})
	dir := testkit.SharedDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "samples", "jaeger*", "*.json"))
	files = append(files, filepath.Join(dir, nezhaTraces))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Skip(err)
			}
			if strings.HasSuffix(f, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if data, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			compareFast(t, data, ingest.Limits{})
		})
	}
}

// compareFast decodes in with both readers and reports whether the fast path
// accepted it; when it did, both bundles must be equal.
func compareFast(t *testing.T, in []byte, lim ingest.Limits) bool {
	t.Helper()
	got, err := decodeJaegerFast("f.json", bytes.NewReader(in), lim)
	if errors.Is(err, ingest.ErrSlowPath) {
		return false
	}
	if err != nil {
		t.Fatalf("fast path returned an error other than ErrSlowPath: %v", err)
	}
	want, werr := decodeJaeger("f.json", bytes.NewReader(in), lim)
	if werr != nil {
		t.Fatalf("fast path accepted what the general reader rejects: %v", werr)
	}
	if !reflect.DeepEqual(got.Spans, want.Spans) {
		n := min(len(got.Spans), len(want.Spans))
		for i := 0; i < n; i++ {
			if !reflect.DeepEqual(got.Spans[i], want.Spans[i]) {
				t.Fatalf("span %d: fast %+v, general %+v", i, got.Spans[i], want.Spans[i])
			}
		}
		t.Fatalf("spans: fast %d, general %d", len(got.Spans), len(want.Spans))
	}
	if !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Fatalf("warnings:\nfast    %v\ngeneral %v", got.Warnings, want.Warnings)
	}
	if !reflect.DeepEqual(got.Processes, want.Processes) {
		t.Fatalf("processes:\nfast    %v\ngeneral %v", got.Processes, want.Processes)
	}
	if !reflect.DeepEqual(got.LLM, want.LLM) {
		t.Fatalf("LLM requests:\nfast    %v\ngeneral %v", got.LLM, want.LLM)
	}
	return true
}

// FuzzJaegerFast checks that the fast path never disagrees with the general
// reader on an input it accepts.
func FuzzJaegerFast(f *testing.F) {
	f.Add([]byte(fastEnvelope))
	f.Add([]byte(`{"data":[{"traceID":"1","spans":[{"spanID":"2","startTime":3,"duration":4,"processID":"p"}],"processes":{"p":{"serviceName":"s"}}}]}`))
	// Jaeger's own key order (ObjectHinted's hints), then the same keys
	// reordered and respelled.
	f.Add([]byte(`{"data":[{"traceID":"a1","spans":[{"traceID":"a1","spanID":"2","flags":1,"operationName":"op","references":[{"refType":"CHILD_OF","traceID":"a1","spanID":"3"}],"startTime":5,"duration":4,"tags":[{"key":"span.kind","type":"string","value":"client"},{"key":"peer.service","type":"string","value":"db"}],"logs":[],"processID":"p1","warnings":null}],"processes":{"p1":{"serviceName":"s","tags":[{"key":"hostname","type":"string","value":"h"}]}},"warnings":null}]}`))
	f.Add([]byte(`{"data":[{"spans":[{"spanID":"2","traceID":"a1","operationName":"op","startTime":5,"duration":4,"tags":[{"type":"string","value":"client","key":"span.kind"},{"ke\u0079":"error","value":true}],"processID":"p1"}],"traceID":"a1","processes":{"p1":{"tags":[],"serviceName":"s"}}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		compareFast(t, in, ingest.Limits{MaxSpans: 1000})
	})
}

// TestGrownFor: without a size it doubles; with one it jumps to the
// estimate (within 8n), and never below doubling.
func TestGrownFor(t *testing.T) {
	for _, c := range []struct {
		n, floor   int
		read, size int64
		want       int
	}{
		{0, 4096, 0, 0, 4096},
		{5000, 4096, 0, 0, 5000},
		{4096, 4096, 1 << 20, 0, 4096},
		{4096, 4096, 1 << 20, 100 << 20, 8 * 4096},   // estimate 409,600: capped at 9n
		{100000, 4096, 50 << 20, 100 << 20, 112500},  // 200,000 + a sixteenth, less n
		{100000, 4096, 100 << 20, 100 << 20, 100000}, // all read: doubling
		{100000, 4096, 90 << 20, 100 << 20, 100000},  // the estimate is below doubling
		{100000, 4096, 200 << 20, 100 << 20, 100000}, // longer than said: doubling
	} {
		if got := grownFor(c.n, c.floor, c.read, c.size); got != c.want {
			t.Errorf("grownFor(%d, %d, %d, %d) = %d, want %d", c.n, c.floor, c.read, c.size, got, c.want)
		}
	}
}

// TestFastRecentProcesses reads a few megabytes of traces whose process
// IDs name recentProcN+8 different process texts each (more than
// recentProcs keeps, so texts are evicted and met again), some with escapes, so that
// process objects straddle the scanner's 1 MiB refills: the fast path
// accepts it and gives the general reader's bundle.
func TestFastRecentProcesses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	proc := func(id, v int) string {
		host := fmt.Sprintf("node-%d", v)
		if v%5 == 4 {
			host = fmt.Sprintf(`node\u002d%d`, v) // the same name, escaped
		}
		return fmt.Sprintf(`{"serviceName":"svc%d","tags":[{"key":"hostname","type":"string","value":"%s"},{"key":"k8s.pod.name","type":"string","value":"svc%d-pod-%d"}]}`, id, host, id, v)
	}
	var in strings.Builder
	in.WriteString(`{"data":[`)
	for tr := 0; in.Len() < 3<<20; tr++ {
		if tr > 0 {
			in.WriteString(",")
		}
		tid := fmt.Sprintf("%032x", tr+1)
		fmt.Fprintf(&in, `{"traceID":"%s","spans":[`, tid)
		for sp := 0; sp < 4; sp++ {
			if sp > 0 {
				in.WriteString(",")
			}
			fmt.Fprintf(&in, `{"traceID":"%s","spanID":"%016x","flags":1,"operationName":"op%d","references":[],"startTime":%d,"duration":%d,"tags":[],"logs":[],"processID":"p%d","warnings":null}`,
				tid, tr*8+sp+1, sp, 1700000000000000+tr*1000+sp, 100+sp, sp+1)
		}
		in.WriteString(`],"processes":{`)
		for id := 1; id <= 4; id++ {
			if id > 1 {
				in.WriteString(",")
			}
			v := rng.IntN(recentProcN + 8)
			if id == 1 {
				v = 0 // one text throughout
			}
			fmt.Fprintf(&in, `"p%d":%s`, id, proc(id, v))
		}
		in.WriteString(`},"warnings":null}`)
	}
	in.WriteString(`]}`)
	if !compareFast(t, []byte(in.String()), ingest.Limits{}) {
		t.Fatal("the fast path declined the input")
	}
}

// TestCommonPrefix checks commonPrefix against a byte-by-byte count.
func TestCommonPrefix(t *testing.T) {
	words := []string{"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefgX", "abcdefghijklmnopq", "abcdefghijklmnoX", "Xbcdefgh", "abcdefghijklmnopqrstuvwxyz"}
	for _, a := range words {
		for _, b := range words {
			want := 0
			for want < len(a) && want < len(b) && a[want] == b[want] {
				want++
			}
			if got := commonPrefix(a, b); got != want {
				t.Errorf("commonPrefix(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestRecentProcsMatchesSkipPrefix: match takes a text where SkipPrefix
// with the texts in turn would take it, the same one, and nothing where
// none would, whatever texts were added and evicted before.
func TestRecentProcsMatchesSkipPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	text := func(v int) string {
		return fmt.Sprintf(`{"serviceName":"s","tags":[{"key":"k","value":"%d"}]}`, v)
	}
	var p recentProcs
	for i := range 400 {
		v := rng.IntN(recentProcN * 2)
		if i%50 == 7 {
			v = 1000 + i // a text of another prefix
		}
		in := "  " + text(v) + ","
		if i%31 == 3 {
			in = in[:len(in)/2] // the buffer ends inside it
		}
		var want procInfo
		wantOK, wantPos := false, 0
		ref := &fastjson.Scanner{Buf: []byte(in), EOF: true, Keep: -1}
		for k := 0; k < p.n; k++ {
			if ref.SkipPrefix(p.texts[k]) {
				want, wantOK, wantPos = p.infos[k], true, ref.Pos()
				break
			}
		}
		s := &fastjson.Scanner{Buf: []byte(in), EOF: true, Keep: -1}
		got, ok := p.match(s)
		if ok != wantOK || ok && (got != want || s.Pos() != wantPos) {
			t.Fatalf("step %d, %q: match %v %v at %d; SkipPrefix %v %v at %d", i, in, got, ok, s.Pos(), want, wantOK, wantPos)
		}
		if !ok {
			p.add(text(v), procInfo{service: ingest.Intern(text(v))}, 0)
		}
	}
}
