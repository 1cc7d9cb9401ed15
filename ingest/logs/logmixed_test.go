package logs

import (
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestVictoriaLogsAfterPrometheus(t *testing.T) {
	prom := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up","job":"cart"},"values":[[1796008320,"1"],[1796008335,"1"]]}]}}`
	vl := `{"_time":"2026-11-30T03:12:00Z","_stream":"{app=\"cart\"}","_msg":"ERROR boom"}` + "\n" +
		`{"_time":"2026-11-30T03:12:01Z","_stream":"{app=\"cart\"}","_msg":"INFO ok"}` + "\n"
	dir := t.TempDir()
	p := bundletest.WriteTemp(t, dir, "mixed.json", prom+"\n"+vl)
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Series) != 1 || len(b.Logs) != 2 {
		t.Errorf("%d series and %d log records, want 1 and 2", len(b.Series), len(b.Logs))
	}
	if !bundletest.HasWarning(b, ingest.ErrSourceWarning, "2 VictoriaLogs records after the Prometheus response read as logs") {
		t.Errorf("no mixed-format warning: %v", b.Warnings)
	}
	// Anything else after the response is dropped with its size.
	q := bundletest.WriteTemp(t, dir, "garbage.json", prom+"\nnot json at all\n")
	b, err = ingest.ReadFile(q, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bundletest.HasWarning(b, ingest.ErrPartialInput, "17 bytes after the Prometheus response dropped") {
		t.Errorf("no trailing-data warning: %v", b.Warnings)
	}
	// A response alone: no warning.
	r := bundletest.WriteTemp(t, dir, "alone.json", prom+"\n\n")
	if b, err = ingest.ReadFile(r, nil, ingest.Limits{}); err != nil || len(b.Warnings) != 0 {
		t.Errorf("a lone response: %v %v", err, b.Warnings)
	}
}

const otlpSpanDoc = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"GET","kind":2,"startTimeUnixNano":"1796008320000000000","endTimeUnixNano":"1796008320100000000"}]}]}]}`

const otlpLogDoc = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1796008320050000000","body":{"stringValue":"ERROR boom"}}]}]}]}`

func TestOTLPLogsAmongSpans(t *testing.T) {
	p := bundletest.WriteTemp(t, t.TempDir(), "otlp.jsonl", otlpSpanDoc+"\n"+otlpLogDoc+"\n"+otlpSpanDoc+"\n")
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Spans) != 2 || len(b.Logs) != 1 {
		t.Errorf("%d spans and %d log records, want 2 and 1", len(b.Spans), len(b.Logs))
	}
	if !bundletest.HasWarning(b, ingest.ErrSourceWarning, "1 OTLP logs documents among the span documents read as logs (1 records") {
		t.Errorf("no mixed-format warning: %v", b.Warnings)
	}
}
