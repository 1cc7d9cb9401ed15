package model

import "testing"

// TestCountIntoDistinct checks the trace and service counts of CountInto
// whether a trace's spans come together (a reader's order) or interleaved
// (after a sort by start).
func TestCountIntoDistinct(t *testing.T) {
	a, c := Intern("count-a"), Intern("count-c")
	span := func(trace uint64, svc Sym) Span {
		return Span{TraceID: TraceID{Low: trace}, Service: svc, Start: Time(1e9 + trace), Duration: 1}
	}
	for name, spans := range map[string][]Span{
		"together":    {span(1, a), span(1, a), span(1, c), span(2, c), span(2, c), span(3, a)},
		"interleaved": {span(1, a), span(2, c), span(1, c), span(3, a), span(2, c), span(1, a)},
	} {
		var in Input
		(&Bundle{Spans: spans}).CountInto(&in)
		if in.Counts.Spans != 6 || in.Counts.Traces != 3 || in.Counts.Services != 2 {
			t.Errorf("%s: %d spans, %d traces, %d services; want 6, 3, 2", name, in.Counts.Spans, in.Counts.Traces, in.Counts.Services)
		}
	}
}
