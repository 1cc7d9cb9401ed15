package jaeger

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

// TestLLMRequestsSample reads the real GenAI trace of jaeger-ui: its five
// LLM spans carry gen_ai.usage.input_tokens and output_tokens (counted
// with python3's json module), and no other span gets a record.
func TestLLMRequestsSample(t *testing.T) {
	b, err := ingest.ReadFile(filepath.Join(testkit.SharedDir(t), "samples/jaeger-ui/genaiTestTrace.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[ingest.SpanID][2]int64{0x5: {1840, 260}, 0x14: {1840, 260}, 0x23: {1840, 260}, 0x36: {920, 140}, 0x38: {1840, 260}}
	if len(b.LLM) != len(want) {
		t.Fatalf("%d LLM requests, want %d: %+v", len(b.LLM), len(want), b.LLM)
	}
	for _, r := range b.LLM {
		w, ok := want[r.Key.Span]
		if !ok || r.InputTokens != w[0] || r.OutputTokens != w[1] || r.TTFT != -1 || r.E2E != -1 {
			t.Errorf("span %v: %+v, want tokens %v and no latencies", r.Key.Span, r, w)
		}
	}
}

// TestLLMRequestTags covers the spellings and the coercions: vLLM's own
// request span (prompt/completion tokens, latencies in float seconds, TPOT
// from the decode time), OpenLLMetry's llm.usage.*, numbers as strings, and
// values no request has (negative, NaN, a bool) ignored. Both readers
// agree (compareFast).
func TestLLMRequestTags(t *testing.T) {
	span := func(id, tags string) string {
		return `{"traceID":"a1","spanID":"` + id + `","operationName":"op","startTime":1700000000000000,"duration":2000000,"processID":"p1","tags":[` + tags + `]}`
	}
	in := `{"data":[{"traceID":"a1","spans":[` + strings.Join([]string{
		span("01", `{"key":"gen_ai.usage.prompt_tokens","type":"int64","value":3506},{"key":"gen_ai.usage.completion_tokens","type":"int64","value":433},`+
			`{"key":"gen_ai.latency.time_to_first_token","type":"float64","value":0.205975},{"key":"gen_ai.latency.e2e","type":"float64","value":11.995648},`+
			`{"key":"gen_ai.latency.time_in_model_decode","type":"float64","value":11.789672}`),
		span("02", `{"key":"llm.usage.prompt_tokens","type":"string","value":"12"},{"key":"gen_ai.server.time_per_output_token","type":"float64","value":0.027}`),
		span("03", `{"key":"gen_ai.usage.input_tokens","type":"int64","value":-5},{"key":"gen_ai.usage.output_tokens","type":"bool","value":true},{"key":"gen_ai.latency.e2e","type":"string","value":"NaN"}`),
		span("04", `{"key":"http.method","type":"string","value":"GET"}`),
	}, ",") + `],"processes":{"p1":{"serviceName":"vllm","tags":[]}}}]}`
	b, err := decodeJaeger("t.json", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.LLM) != 2 {
		t.Fatalf("want records for spans 01 and 02 only, got %+v", b.LLM)
	}
	r := b.LLM[0]
	if r.Key.Span != 1 || r.InputTokens != 3506 || r.OutputTokens != 433 || r.TTFT != 205975*time.Microsecond || r.E2E != 11995648*time.Microsecond {
		t.Errorf("vLLM span: %+v", r)
	}
	if got, want := r.TimePerOutputToken(), 11789672*time.Microsecond/432; got != want {
		t.Errorf("TPOT from decode time: %v, want %v", got, want)
	}
	r = b.LLM[1]
	if r.Key.Span != 2 || r.InputTokens != 12 || r.OutputTokens != -1 || r.TimePerOutputToken() != 27*time.Millisecond {
		t.Errorf("OpenLLMetry span: %+v", r)
	}
	if !compareFast(t, []byte(in), ingest.Limits{}) {
		t.Fatal("the fast path declined a plain envelope")
	}
}
