package features

import (
	"math"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// opMixBundle: service "ad" does "get" and "random" half and half for 40
// steps of 15 s, 20 spans a step, then only "get" for the last 8 steps;
// "solo" has one operation. Step 10 has only 3 spans.
func opMixBundle(t *testing.T) *ingest.Bundle {
	t.Helper()
	b := &ingest.Bundle{}
	id := ingest.SpanID(1)
	add := func(svc, op string, at ingest.Time) {
		b.Spans = append(b.Spans, ingest.Span{TraceID: ingest.TraceID{Low: uint64(id)}, SpanID: id, Service: ingest.Intern(svc), Operation: ingest.Intern(op),
			Start: at, Duration: time.Millisecond, Source: ingest.Intern("t")})
		id++
	}
	for c := 0; c < 48; c++ {
		n := 20
		if c == 10 {
			n = 3
		}
		for k := 0; k < n; k++ {
			at := ingest.Time(1_700_000_000e9) + ingest.Time(c)*ingest.Time(15*time.Second) + ingest.Time(k)*ingest.Time(100*time.Millisecond)
			op := "get"
			if k%2 == 1 && c < 40 {
				op = "random"
			}
			add("ad", op, at)
			add("solo", "only", at)
		}
	}
	Finalize(b, ingest.Options{Step: 15 * time.Second}, Options{})
	return b
}

func TestDeriveOperationMix(t *testing.T) {
	b := opMixBundle(t)
	var mix *ingest.Series
	for _, s := range b.Series {
		if s.Name == ingest.TraceOpMix {
			if s.Entity.Name != "ad" {
				t.Fatalf("a mix series for %q, which has one operation", s.Entity.Name)
			}
			mix = s
		}
	}
	if mix == nil {
		t.Fatal("no operation-mix series for ad")
	}
	if mix.Signal != ingest.SignalTraffic || mix.Stat != "mix" {
		t.Errorf("signal %v stat %q", mix.Signal, mix.Stat)
	}
	// Cells are (g-step, g]: find each cell by its spans' time.
	cell := func(c int) float64 {
		at := ingest.Time(1_700_000_000e9) + ingest.Time(c)*ingest.Time(15*time.Second) + ingest.Time(time.Second)
		for i, g := range mix.T {
			if g >= at {
				return mix.V[i]
			}
		}
		return math.NaN()
	}
	maxBase := math.Inf(-1)
	for c := 0; c < 40; c++ {
		if c == 10 {
			if !math.IsNaN(cell(c)) {
				t.Errorf("cell with 3 spans = %v, want NaN", cell(c))
			}
			continue
		}
		maxBase = math.Max(maxBase, cell(c))
	}
	for c := 40; c < 47; c++ { // the last step may fall past the grid's end
		if v := cell(c); !(v > maxBase+3) {
			t.Errorf("cell %d after the shift = %.2f, baseline max %.2f: want clearly above", c, v, maxBase)
		}
	}
}

// TestOptionsSetTheParameters: the zero Options are DefaultOptions, and a
// field changes what the stage derives (MinMixSpans above every step's
// spans leaves no operation mix scored).
func TestOptionsSetTheParameters(t *testing.T) {
	if got, want := (Options{}).withDefaults(), DefaultOptions(); got != want {
		t.Fatalf("zero Options = %+v, want the defaults %+v", got, want)
	}
	if d := DefaultOptions(); d.MaxMixOps != 20 || d.MinMixSpans != 5 || d.MaxMixTemplates != 20 || d.ReferenceShare != 0.6 ||
		d.SteadyShare != 0.5 || d.MinSteadySteps != 3 || d.MinPatternBaseline != 5 || d.MinPatternWindow != 3 {
		t.Errorf("DefaultOptions = %+v, not the table of doc.go", d)
	}
	b := opMixBundle(t)
	raw := &ingest.Bundle{Spans: b.Spans[:0:0]}
	for i := range b.Spans {
		raw.Spans = append(raw.Spans, b.Spans[i])
	}
	Finalize(raw, ingest.Options{Step: 15 * time.Second}, Options{MinMixSpans: 1000})
	for _, s := range raw.Series {
		if s.Name != ingest.TraceOpMix {
			continue
		}
		for i, v := range s.V {
			if !math.IsNaN(v) {
				t.Fatalf("MinMixSpans 1000: mix cell %d = %v, want NaN (no step has 1000 spans)", i, v)
			}
		}
	}
}
