package model

import (
	"math"
	"strings"
	"time"
)

// LLMRequest is what one span's attributes say about the LLM request it
// served: its shape (prompt and generated tokens) and its token latencies.
// The trace readers keep one per committed span that names a token count
// or a token latency (OpenTelemetry GenAI's gen_ai.usage.input_tokens and
// gen_ai.usage.output_tokens, the older gen_ai.usage.prompt_tokens and
// gen_ai.usage.completion_tokens, OpenLLMetry's llm.usage.*, vLLM's own
// gen_ai.latency.* span attributes); a span without any of them costs
// nothing. Key is the span's identity: the record follows its span through
// merging and sorting by that key, and one whose span was dropped (a limit,
// a duplicate) is simply not found.
//
// Unknown numbers are -1 (a zero-token or zero-latency answer is a value).
type LLMRequest struct {
	Key          SpanKey
	InputTokens  int64
	OutputTokens int64
	// TTFT is the time to the first token; TPOT the time per output token
	// after it; E2E the request's latency as the serving engine measured it
	// (gen_ai.latency.e2e), -1 when the span's own duration is all there is.
	TTFT, TPOT, E2E time.Duration
	// Decode is the time the engine spent generating after the first token
	// (vLLM's gen_ai.latency.time_in_model_decode): with OutputTokens it
	// gives TPOT where no attribute states it.
	Decode time.Duration
}

// NewLLMRequest returns a record with every number unknown.
func NewLLMRequest() LLMRequest {
	return LLMRequest{InputTokens: -1, OutputTokens: -1, TTFT: -1, TPOT: -1, E2E: -1, Decode: -1}
}

// LLMAttr names the field of an LLMRequest a span attribute sets.
type LLMAttr uint8

// The attributes an LLMRequest is built from (LLMAttrNone: not one of them).
const (
	LLMAttrNone LLMAttr = iota
	LLMAttrInputTokens
	LLMAttrOutputTokens
	LLMAttrTTFT   // seconds
	LLMAttrTPOT   // seconds
	LLMAttrE2E    // seconds
	LLMAttrDecode // seconds
)

// llmAttrs maps attribute keys to fields. The GenAI semantic conventions
// (gen_ai.usage.*, and gen_ai.server.* used as span attributes by gateways
// that record the metric's value per request), their earlier spellings, and
// vLLM's request span (vllm/tracing.py: gen_ai.latency.*).
var llmAttrs = map[string]LLMAttr{
	"gen_ai.usage.input_tokens":           LLMAttrInputTokens,
	"gen_ai.usage.prompt_tokens":          LLMAttrInputTokens,
	"llm.usage.prompt_tokens":             LLMAttrInputTokens,
	"gen_ai.usage.output_tokens":          LLMAttrOutputTokens,
	"gen_ai.usage.completion_tokens":      LLMAttrOutputTokens,
	"llm.usage.completion_tokens":         LLMAttrOutputTokens,
	"gen_ai.server.time_to_first_token":   LLMAttrTTFT,
	"gen_ai.latency.time_to_first_token":  LLMAttrTTFT,
	"gen_ai.server.time_per_output_token": LLMAttrTPOT,
	"gen_ai.latency.e2e":                  LLMAttrE2E,
	"gen_ai.latency.time_in_model_decode": LLMAttrDecode,
}

// LLMAttrOf returns the field an attribute key sets (LLMAttrNone for every
// other key; O(1), and a key that starts with neither "gen_ai." nor "llm."
// costs one prefix test).
func LLMAttrOf(key string) LLMAttr {
	if !strings.HasPrefix(key, "gen_ai.") && !strings.HasPrefix(key, "llm.") {
		return LLMAttrNone
	}
	return llmAttrs[key]
}

// maxTokens bounds a token count taken from input (a larger value, a
// negative one or a non-number is ignored: no request has 2^40 tokens).
const maxTokens = 1 << 40

// Set stores v (tokens, or seconds for the latencies) in the field a names;
// a value that is not finite, is negative or beyond any request is ignored.
// It reports whether it stored v.
func (r *LLMRequest) Set(a LLMAttr, v float64) bool {
	if math.IsNaN(v) || v < 0 || math.IsInf(v, 0) {
		return false
	}
	sec := func(dst *time.Duration) bool {
		if v > float64(math.MaxInt64)/1e9 {
			return false
		}
		*dst = time.Duration(math.Round(v * 1e9))
		return true
	}
	switch a {
	case LLMAttrInputTokens, LLMAttrOutputTokens:
		if v > maxTokens {
			return false
		}
		if a == LLMAttrInputTokens {
			r.InputTokens = int64(v)
		} else {
			r.OutputTokens = int64(v)
		}
		return true
	case LLMAttrTTFT:
		return sec(&r.TTFT)
	case LLMAttrTPOT:
		return sec(&r.TPOT)
	case LLMAttrE2E:
		return sec(&r.E2E)
	case LLMAttrDecode:
		return sec(&r.Decode)
	}
	return false
}

// Known reports whether the record holds anything: a token count or a
// token latency.
func (r *LLMRequest) Known() bool {
	return r.InputTokens >= 0 || r.OutputTokens >= 0 || r.TTFT >= 0 || r.TPOT >= 0 || r.E2E >= 0
}

// TimePerOutputToken is TPOT as stated, else the decode time over the
// tokens after the first (-1 when neither is known, or one token or fewer
// was generated).
func (r *LLMRequest) TimePerOutputToken() time.Duration {
	if r.TPOT >= 0 {
		return r.TPOT
	}
	if r.Decode >= 0 && r.OutputTokens > 1 {
		return r.Decode / time.Duration(r.OutputTokens-1)
	}
	return -1
}
