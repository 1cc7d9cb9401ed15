package otlplogs

import (
	"bytes"
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// compareOTLPLogsFast decodes in with both OTLP log readers and reports
// whether the fast path accepted it; when it did, the bundles must be equal.
func compareOTLPLogsFast(t *testing.T, in []byte, lim ingest.Limits) bool {
	t.Helper()
	got, err := decodeOTLPLogsFast("o.json", bytes.NewReader(in), lim)
	if errors.Is(err, ingest.ErrSlowPath) {
		return false
	}
	if err != nil {
		t.Fatalf("fast path returned an error other than ErrSlowPath: %v", err)
	}
	want, werr := decodeOTLPLogs("o.json", bytes.NewReader(in), lim)
	if werr != nil {
		t.Fatalf("fast path accepted what the general reader rejects: %v", werr)
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"records", got.Logs, want.Logs}, {"streams", got.LogStreams, want.LogStreams},
		{"templates", got.LogTemplates, want.LogTemplates}, {"warnings", got.Warnings, want.Warnings}} {
		if !reflect.DeepEqual(c.a, c.b) {
			t.Fatalf("%s differ:\nfast    %+v\ngeneral %+v", c.name, c.a, c.b)
		}
	}
	return true
}

func TestOTLPLogsFastMatchesGeneral(t *testing.T) {
	for in, accept := range map[string]bool{
		`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1753292536","body":{"stringValue":"x"}}]}]}]}` + "\n" +
			`{"resourceLogs":[]}`: true,
		`{"resourceLogs":[]} x`:                 false,
		`{"resourceLogs":[{"scopeLogs":"no"}]}`: false,
		``:                                      false,
	} {
		if got := compareOTLPLogsFast(t, []byte(in), ingest.Limits{}); got != accept {
			t.Errorf("fast path accepted=%v, want %v: %.60s", got, accept, in)
		}
	}
	dir := filepath.Join(testkit.SharedDir(t), "samples", "logs")
	for _, f := range []string{"otlp/logs.json", "otlp/events.json", "otlp/collector-sink.log", "captured/victorialogs-v1.52.2/otlp-logs.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !compareOTLPLogsFast(t, raw, ingest.Limits{}) {
			t.Errorf("%s: fast path declined", f)
		}
	}
}

func FuzzOTLPLogsFast(f *testing.F) {
	f.Add([]byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1","severityNumber":17,"body":{"stringValue":"boom"},"traceId":"5B8EFFF798038103D269B633813FC60C"}]}]}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		compareOTLPLogsFast(t, in, fuzzLimits)
	})
}
