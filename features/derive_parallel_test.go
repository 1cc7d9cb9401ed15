package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestDeriveParallelMatchesSequential finalizes the same spans (with
// repeated IDs, orphans and clock skew) with the span index, parent links,
// clock-skew walk and trace series computed on one goroutine and on two,
// and requires identical spans, parents, warnings and bit-identical series.
func TestDeriveParallelMatchesSequential(t *testing.T) {
	build := func() *ingest.Bundle {
		rng := rand.New(rand.NewPCG(7, 8))
		b := &ingest.Bundle{}
		t0 := ingest.Time(1_700_000_000e9)
		id := uint64(1)
		for tr := 0; tr < 3000; tr++ {
			root := ingest.Span{TraceID: ingest.TraceID{Low: uint64(tr + 1)}, SpanID: ingest.SpanID(id), Service: ingest.Intern("gw"), Operation: ingest.Intern("GET /"),
				Kind: ingest.SpanServer, Start: t0 + ingest.Time(rng.Int64N(int64(30*time.Minute))), Duration: time.Duration(1+rng.IntN(900)) * time.Millisecond,
				Error: rng.IntN(50) == 0, Pod: ingest.Intern(fmt.Sprintf("gw-%d", rng.IntN(3))), Node: ingest.Intern(fmt.Sprintf("n%d", rng.IntN(2))), Source: ingest.Intern("t")}
			id++
			b.Spans = append(b.Spans, root)
			for k := 0; k < 2+rng.IntN(4); k++ {
				svc := []string{"cart", "db", "vllm"}[rng.IntN(3)]
				cl := ingest.Span{TraceID: root.TraceID, SpanID: ingest.SpanID(id), ParentID: root.SpanID, Service: ingest.Intern("gw"), Operation: ingest.Intern("call " + svc),
					Kind: ingest.SpanClient, Start: root.Start + ingest.Time(rng.IntN(1000))*ingest.Time(time.Microsecond), Duration: root.Duration / 2, Pod: root.Pod, Source: ingest.Intern("t")}
				id++
				sv := ingest.Span{TraceID: root.TraceID, SpanID: ingest.SpanID(id), ParentID: cl.SpanID, Service: ingest.Intern(svc), Operation: ingest.Intern("serve"),
					Kind: ingest.SpanServer, Start: cl.Start + ingest.Time(time.Millisecond), Duration: cl.Duration / 2, Error: rng.IntN(30) == 0,
					Pod: ingest.Intern(fmt.Sprintf("%s-%d", svc, rng.IntN(2))), Source: ingest.Intern("t")}
				id++
				if rng.IntN(5) == 0 { // on a skewed clock: starts before its caller
					sv.Start -= ingest.Time(20 * time.Millisecond)
				}
				b.Spans = append(b.Spans, cl, sv)
			}
			if tr%50 == 0 { // a repeated span ID (the first is kept)
				dup := root
				dup.Source, dup.Start = ingest.Intern("u"), root.Start+1
				b.Spans = append(b.Spans, dup)
			}
			if tr%100 == 0 { // an orphan and a negative duration now and then
				b.Spans = append(b.Spans, ingest.Span{TraceID: root.TraceID, SpanID: ingest.SpanID(id), ParentID: ingest.SpanID(1 << 60), Service: ingest.Intern("db"),
					Start: root.Start, Duration: -time.Millisecond, Source: ingest.Intern("t")})
				id++
			}
		}
		return b
	}
	old := ingest.ParallelMinSpans
	defer func() { ingest.ParallelMinSpans = old }()
	ingest.ParallelMinSpans = math.MaxInt
	seq := build()
	Finalize(seq, ingest.Options{Step: 15 * time.Second}, Options{})
	ingest.ParallelMinSpans = 1
	par := build()
	Finalize(par, ingest.Options{Step: 15 * time.Second}, Options{})
	if !slices.Equal(seq.Parent, par.Parent) || !reflect.DeepEqual(seq.Warnings, par.Warnings) {
		t.Fatalf("parents or warnings differ:\n%v\n%v", seq.Warnings, par.Warnings)
	}
	for _, want := range []struct {
		kind  error
		count int
	}{{ingest.ErrOrphanSpan, 30}, {ingest.ErrDuplicateID, 60}} {
		if !slices.ContainsFunc(par.Warnings, func(w ingest.Warning) bool { return w.Kind == want.kind && w.Count == want.count }) {
			t.Errorf("want %d %v counted: %v", want.count, want.kind, par.Warnings)
		}
	}
	if !slices.ContainsFunc(par.Warnings, func(w ingest.Warning) bool { return w.Kind == ingest.ErrClockSkew && w.Count > 1000 }) {
		t.Errorf("want over 1000 spans adjusted for clock skew: %v", par.Warnings)
	}
	if !slices.EqualFunc(seq.Spans, par.Spans, func(x, y ingest.Span) bool { return x == y }) {
		t.Error("the finalized spans differ")
	}
	if len(seq.Series) != len(par.Series) || len(seq.Series) < 30 {
		t.Fatalf("series: sequential %d, parallel %d", len(seq.Series), len(par.Series))
	}
	for i, s := range seq.Series {
		p := par.Series[i]
		if s.Key() != p.Key() || len(s.V) != len(p.V) {
			t.Fatalf("series %d: %s vs %s", i, s.Key(), p.Key())
		}
		for j := range s.V {
			if math.Float64bits(s.V[j]) != math.Float64bits(p.V[j]) {
				t.Fatalf("%s cell %d: sequential %v, parallel %v", s.Key(), j, s.V[j], p.V[j])
			}
		}
	}
}
