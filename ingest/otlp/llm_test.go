package otlp

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestOTLPLLMRequests: GenAI attributes of OTLP spans become LLM request
// records keyed by the span — int64 values as OTLP/JSON writes them
// (strings), doubles, and a span without them gets none.
func TestOTLPLLMRequests(t *testing.T) {
	in := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gateway"}}]},"scopeSpans":[{"spans":[
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"chat","kind":2,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000002000000000",
 "attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"4096"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"128"}},
 {"key":"gen_ai.server.time_to_first_token","value":{"doubleValue":0.25}},{"key":"gen_ai.server.time_per_output_token","value":{"stringValue":"0.02"}}]},
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","parentSpanId":"0102030405060708","name":"db","kind":3,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000",
 "attributes":[{"key":"db.system","value":{"stringValue":"qdrant"}}]}]}]}]}`
	b, err := decodeOTLP("t.json", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Spans) != 2 || len(b.LLM) != 1 {
		t.Fatalf("%d spans, %d LLM requests: %+v", len(b.Spans), len(b.LLM), b.LLM)
	}
	r := b.LLM[0]
	if r.Key != (ingest.SpanKey{Trace: b.Spans[0].TraceID, Span: b.Spans[0].SpanID}) || r.InputTokens != 4096 || r.OutputTokens != 128 ||
		r.TTFT != 250*time.Millisecond || r.TPOT != 20*time.Millisecond || r.E2E != -1 {
		t.Errorf("record %+v", r)
	}
}
