package otlplogs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

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
		compareOTLPLogsFast(t, in, bundletest.FuzzLimits)
	})
}

// compareOTLPLogsFast decodes in with both OTLP log readers and reports
// whether the fast path accepted it; when it did, the bundles must be equal.
func compareOTLPLogsFast(t *testing.T, in []byte, lim ingest.Limits) bool {
	t.Helper()
	return bundletest.CompareLogFastPath(t, decodeOTLPLogsFast, decodeOTLPLogs, "o.json", in, lim)
}
