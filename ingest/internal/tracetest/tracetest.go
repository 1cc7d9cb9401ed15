// Package tracetest holds what the trace decoders' tests assert about a
// read input (Summary, Summarize, Check), shared by the Jaeger and OTLP
// decoder packages' tests. Only tests import it.
package tracetest

import (
	"errors"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Summary is what the sample tests assert about one read input.
type Summary struct {
	Format                           ingest.Format
	Spans, Traces, Services          int
	Errors, Roots, SourceWarnings    int
	Kinds                            map[ingest.SpanKind]int // nil: not checked
	Partial, OrphanWarns, LimitWarns int
}

// Summarize counts a bundle's spans, traces, services, error spans, roots,
// span kinds and warnings by kind.
func Summarize(b *ingest.Bundle) Summary {
	var in ingest.Input
	if len(b.Inputs) > 0 {
		in = b.Inputs[0]
	} else {
		b.CountInto(&in)
	}
	s := Summary{Format: in.Format, Spans: in.Counts.Spans, Traces: in.Counts.Traces, Services: in.Counts.Services,
		Kinds: map[ingest.SpanKind]int{}}
	for i := range b.Spans {
		if b.Spans[i].Error {
			s.Errors++
		}
		if b.Spans[i].ParentID == 0 {
			s.Roots++
		}
		s.Kinds[b.Spans[i].Kind]++
	}
	for _, w := range b.Warnings {
		switch {
		case errors.Is(w, ingest.ErrSourceWarning):
			s.SourceWarnings += w.Count
		case errors.Is(w, ingest.ErrPartialInput):
			s.Partial += w.Count
		case errors.Is(w, ingest.ErrOrphanSpan):
			s.OrphanWarns += w.Count
		case errors.Is(w, ingest.ErrLimit):
			s.LimitWarns += w.Count
		}
	}
	return s
}

// Check compares the fields of want that the table sets.
func Check(t *testing.T, got, want Summary) {
	t.Helper()
	if got.Format != want.Format {
		t.Errorf("format = %v, want %v", got.Format, want.Format)
	}
	if got.Spans != want.Spans || got.Traces != want.Traces || got.Services != want.Services {
		t.Errorf("spans/traces/services = %d/%d/%d, want %d/%d/%d", got.Spans, got.Traces, got.Services, want.Spans, want.Traces, want.Services)
	}
	if got.Errors != want.Errors || got.Roots != want.Roots {
		t.Errorf("error spans/roots = %d/%d, want %d/%d", got.Errors, got.Roots, want.Errors, want.Roots)
	}
	if got.SourceWarnings != want.SourceWarnings || got.Partial != want.Partial || got.OrphanWarns != want.OrphanWarns {
		t.Errorf("source/partial/orphan warnings = %d/%d/%d, want %d/%d/%d", got.SourceWarnings, got.Partial, got.OrphanWarns,
			want.SourceWarnings, want.Partial, want.OrphanWarns)
	}
	if want.Kinds != nil {
		for k := ingest.SpanUnspecified; k <= ingest.SpanConsumer; k++ {
			if got.Kinds[k] != want.Kinds[k] {
				t.Errorf("kind %v: %d spans, want %d", k, got.Kinds[k], want.Kinds[k])
			}
		}
	}
}
