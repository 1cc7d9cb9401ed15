package jaeger

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// splitFile reads raw with decodeSplit in n chunks; ErrSlowPath when it
// declines.
func splitFile(t testing.TB, raw []byte, n int) (*ingest.Bundle, error) {
	t.Helper()
	return decodeSplit("traces.json", bytes.NewReader(raw), int64(len(raw)), ingest.Limits{}, n)
}

// TestSplitMatchesWhole: the real 62,065-span nezha file read in 2, 3 and
// 8 parallel chunks is the bundle the fast path reads from the whole
// file, field for field (spans in order, processes, pod versions,
// warnings).
func TestSplitMatchesWhole(t *testing.T) {
	raw := readNezha(t)
	whole, err := decodeJaegerFast("traces.json", bytes.NewReader(raw), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cpus := range []int{2, 3, 8} {
		got, err := splitFile(t, raw, cpus)
		if err != nil {
			t.Fatalf("%d chunks: %v", cpus, err)
		}
		if len(got.Spans) != len(whole.Spans) {
			t.Fatalf("%d chunks: %d spans, whole %d", cpus, len(got.Spans), len(whole.Spans))
		}
		got.Spans = got.Spans[:len(got.Spans):len(got.Spans)]
		whole.Spans = whole.Spans[:len(whole.Spans):len(whole.Spans)]
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("%d chunks: the bundle differs from the whole file's", cpus)
		}
	}
}

// TestSplitProcessesOnce: a process (with a PID) and a pod version that
// traces in several chunks name are recorded once, where the whole file
// first names them.
func TestSplitProcessesOnce(t *testing.T) {
	tr := func(id, pod string) string {
		return `{"traceID":"` + id + `","spans":[{"traceID":"` + id + `","spanID":"0000000000000001","operationName":"op","references":[],"startTime":1700000000000000,"duration":5,"tags":[],"processID":"p1"}],` +
			`"processes":{"p1":{"serviceName":"s","tags":[{"key":"k8s.pod.name","type":"string","value":"` + pod + `"},{"key":"process.pid","type":"int64","value":42},{"key":"hostname","type":"string","value":"h"},{"key":"service.version","type":"string","value":"v1"}]}}}`
	}
	raw := `{"data":[` + tr("a1", "s-1") + `,` + tr("a2", "s-2") + `,` + tr("a3", "s-1") + `,` + tr("a4", "s-2") + `,` + tr("a5", "s-3") + `]}`
	whole, err := decodeJaegerFast("traces.json", strings.NewReader(raw), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Processes) != 3 || len(whole.PodVersions) != 3 {
		t.Fatalf("whole: %d processes, %d pod versions, want 3 and 3", len(whole.Processes), len(whole.PodVersions))
	}
	got, err := splitFile(t, []byte(raw), 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Processes, whole.Processes) || !reflect.DeepEqual(got.PodVersions, whole.PodVersions) || len(got.Spans) != 5 {
		t.Errorf("split: processes %v, versions %v, %d spans; whole: %v, %v", got.Processes, got.PodVersions, len(got.Spans), whole.Processes, whole.PodVersions)
	}
}

// TestSplitDeclines: a file not of the split shape, a cut inside a nested
// value and a chunk the fast scanner declines all decline the split
// (ErrSlowPath), so the file is read as before.
func TestSplitDeclines(t *testing.T) {
	tr := func(id, extra string) string {
		return `{"traceID":"` + id + `","spans":[{"traceID":"` + id + `","spanID":"0000000000000001","operationName":"op","references":[],"startTime":1700000000000000,"duration":5,"tags":[` + extra + `],"processID":"p1"}],"processes":{"p1":{"serviceName":"s"}}}`
	}
	nested := `{"key":"x","type":"string","value":[{"a":1},` + tr("ab", "") + `]}`
	for name, raw := range map[string]string{
		"bare array":       `[` + tr("aa", "") + `,` + tr("ab", "") + `]`,
		"key before data":  `{"total":2,"data":[` + tr("aa", "") + `,` + tr("ab", "") + `]}`,
		"no boundary":      `{"data":[` + strings.Repeat(" ", 100) + tr("aa", "") + `]}`,
		"cut inside value": `{"data":[` + tr("aa", nested) + `]}`,
		"bad chunk":        `{"data":[` + tr("aa", "") + `,` + `{"traceID":"ab","spans":[{"spanID":5}]}]}`,
	} {
		if _, err := splitFile(t, []byte(raw), 4); !errors.Is(err, ingest.ErrSlowPath) {
			t.Errorf("%s: %v, want ErrSlowPath", name, err)
		}
	}
}

// FuzzSplitMatchesWhole: whatever the input, the split either declines or
// gives the bundle of the fast path over the whole input.
func FuzzSplitMatchesWhole(f *testing.F) {
	tr := func(id, op string) string {
		return `{"traceID":"` + id + `","spans":[{"traceID":"` + id + `","spanID":"0000000000000001","operationName":"` + op + `","references":[],"startTime":1700000000000000,"duration":5,"tags":[],"processID":"p1","warnings":["w"]}],"processes":{"p1":{"serviceName":"s","tags":[{"key":"k8s.pod.name","type":"string","value":"s-1"},{"key":"service.version","type":"string","value":"v1"}]}}}`
	}
	f.Add(`{"data":[` + tr("aa", "a") + `,` + tr("ab", "b") + `,` + tr("ac", "c") + `],"total":0,"limit":0,"offset":0,"errors":null}`)
	f.Add(`{"data":[` + tr("aa", "a") + ` , ` + "\n" + tr("ab", "}, {\\\"traceID\\\":\\\"ff\\\",\\\"spans\\\":[") + `]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := splitFile(t, []byte(raw), 4)
		if err != nil {
			return // declined: read as before
		}
		whole, werr := decodeJaegerFast("traces.json", strings.NewReader(raw), ingest.Limits{})
		if werr != nil {
			t.Fatalf("split read what the whole-file fast path declines (%v)", werr)
		}
		got.Spans = got.Spans[:len(got.Spans):len(got.Spans)]
		whole.Spans = whole.Spans[:len(whole.Spans):len(whole.Spans)]
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("split %+v\nwhole %+v", got, whole)
		}
	})
}
