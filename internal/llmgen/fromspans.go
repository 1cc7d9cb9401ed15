package llmgen

import (
	"math"
	"slices"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// FromSpans is the requests of one service's spans that carry LLM request
// records with a token count and a time to the first token (an LLM
// server's own request spans), by pod: what the server's histograms would
// have counted. It returns them with the config (Server, PodNames, Start,
// Pods; Baseline spanning the data) that WriteHistograms needs to write
// them as the server's request-size and latency histograms — a case whose
// traces are replaced by the histograms of the same requests.
func FromSpans(b *ingest.Bundle, service string, step time.Duration) (Config, []Request) {
	recs := map[ingest.SpanKey]*ingest.LLMRequest{}
	for i := range b.LLM {
		if r := &b.LLM[i]; r.InputTokens >= 0 && r.OutputTokens >= 0 && r.TTFT >= 0 {
			recs[r.Key] = r
		}
	}
	c := Config{Server: service, Step: step}
	pods := map[string]int{}
	var reqs []Request
	for i := range b.Spans {
		s := &b.Spans[i]
		r, ok := recs[ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID}]
		if !ok || s.Service.String() != service {
			continue
		}
		pod := s.Pod.String()
		p, ok := pods[pod]
		if !ok {
			p = len(c.PodNames)
			pods[pod] = p
			c.PodNames = append(c.PodNames, pod)
		}
		e2e := s.Duration.Seconds()
		if r.E2E >= 0 {
			e2e = r.E2E.Seconds()
		}
		tpot := math.NaN()
		if d := r.TimePerOutputToken(); d >= 0 {
			tpot = d.Seconds()
		}
		reqs = append(reqs, Request{Start: s.Start.Std(), Pod: p, In: int(r.InputTokens), Out: int(r.OutputTokens), TTFT: r.TTFT.Seconds(), TPOT: tpot, E2E: e2e})
	}
	slices.SortStableFunc(reqs, func(a, b Request) int { return a.Start.Compare(b.Start) })
	c.Pods = len(c.PodNames)
	if len(reqs) > 0 {
		c.Start = reqs[0].Start.Truncate(step)
		c.Baseline = reqs[len(reqs)-1].Start.Sub(c.Start) + time.Minute
		c.Window = time.Nanosecond
	}
	return c, reqs
}
