package otlp

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"os"
	"path/filepath"
	"testing"
)

// Trace test helpers shared by the OTLP tests (a copy of the Jaeger tests' own).
func traceSharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared material not available: %v", err)
	}
	return dir
}

// nezhaTraces is the real OnlineBoutique incident trace file used below.
const nezhaTraces = "data/nezha-ob/ob-20220822-035354/traces.json.gz"

// traceSummary is what the sample tests assert about one read input.
type traceSummary struct {
	format                           ingest.Format
	spans, traces, services          int
	errors, roots, sourceWarnings    int
	kinds                            map[ingest.SpanKind]int // nil: not checked
	partial, orphanWarns, limitWarns int
}

func summarize(b *ingest.Bundle) traceSummary {
	var in ingest.Input
	if len(b.Inputs) > 0 {
		in = b.Inputs[0]
	} else {
		b.CountInto(&in)
	}
	s := traceSummary{format: in.Format, spans: in.Counts.Spans, traces: in.Counts.Traces, services: in.Counts.Services,
		kinds: map[ingest.SpanKind]int{}}
	for i := range b.Spans {
		if b.Spans[i].Error {
			s.errors++
		}
		if b.Spans[i].ParentID == 0 {
			s.roots++
		}
		s.kinds[b.Spans[i].Kind]++
	}
	for _, w := range b.Warnings {
		switch {
		case errors.Is(w, ingest.ErrSourceWarning):
			s.sourceWarnings += w.Count
		case errors.Is(w, ingest.ErrPartialInput):
			s.partial += w.Count
		case errors.Is(w, ingest.ErrOrphanSpan):
			s.orphanWarns += w.Count
		case errors.Is(w, ingest.ErrLimit):
			s.limitWarns += w.Count
		}
	}
	return s
}

// checkSummary compares the fields of want that the table sets.
func checkSummary(t *testing.T, got, want traceSummary) {
	t.Helper()
	if got.format != want.format {
		t.Errorf("format = %v, want %v", got.format, want.format)
	}
	if got.spans != want.spans || got.traces != want.traces || got.services != want.services {
		t.Errorf("spans/traces/services = %d/%d/%d, want %d/%d/%d", got.spans, got.traces, got.services, want.spans, want.traces, want.services)
	}
	if got.errors != want.errors || got.roots != want.roots {
		t.Errorf("error spans/roots = %d/%d, want %d/%d", got.errors, got.roots, want.errors, want.roots)
	}
	if got.sourceWarnings != want.sourceWarnings || got.partial != want.partial || got.orphanWarns != want.orphanWarns {
		t.Errorf("source/partial/orphan warnings = %d/%d/%d, want %d/%d/%d", got.sourceWarnings, got.partial, got.orphanWarns,
			want.sourceWarnings, want.partial, want.orphanWarns)
	}
	if want.kinds != nil {
		for k := ingest.SpanUnspecified; k <= ingest.SpanConsumer; k++ {
			if got.kinds[k] != want.kinds[k] {
				t.Errorf("kind %v: %d spans, want %d", k, got.kinds[k], want.kinds[k])
			}
		}
	}
}

// TestJaegerSamples reads every real Jaeger JSON sample through ReadFile.
// Expected counts were computed independently with python3's json module.
