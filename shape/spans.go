package shape

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Source is the requests a map is made of: a service's spans of one
// operation that carry token counts, or, without such spans, a service's
// request-size and latency histograms.
type Source struct {
	Service, Operation string
	Hist               bool
	byKey              map[ingest.SpanKey]*ingest.LLMRequest // spans: the records of (Service, Operation)
	hist               *histSet                              // histograms
}

// Describe says where the shapes come from, in words.
func (s *Source) Describe() string {
	if s.Hist {
		return "request-size and latency histograms of " + s.Service + " (per pod and step)"
	}
	return "spans of " + s.Service + " " + s.Operation + " (gen_ai token counts)"
}

// FindSource picks the requests to map in b: spans with token counts —
// of the target service when it has at least minReq of them, else of the
// service with the most — and within the service the operation whose spans
// carry the most (ties: the one whose records state a latency, then by
// name); without such spans, the histograms of the service with the most
// request-size histogram series. ok is false when b has neither.
func FindSource(b *ingest.Bundle, target string, minReq int) (Source, bool) {
	if s, ok := spanSource(b, target, minReq); ok {
		return s, true
	}
	return histSource(b, target)
}

// spanSource is FindSource's span half.
func spanSource(b *ingest.Bundle, target string, minReq int) (Source, bool) {
	if len(b.LLM) == 0 {
		return Source{}, false
	}
	recs := make(map[ingest.SpanKey]*ingest.LLMRequest, len(b.LLM))
	var maybe spanIDSet // the records' span IDs: most spans are no record's, found so without the map
	maybe.init(len(b.LLM))
	for i := range b.LLM {
		if r := &b.LLM[i]; r.InputTokens >= 0 || r.OutputTokens >= 0 {
			recs[r.Key] = r
			maybe.add(r.Key.Span)
		}
	}
	type key struct{ svc, op ingest.Sym }
	type tally struct{ n, timed int }
	per := map[key]*tally{}
	for i := range b.Spans {
		s := &b.Spans[i]
		if !maybe.has(s.SpanID) {
			continue
		}
		r, ok := recs[ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID}]
		if !ok {
			continue
		}
		k := key{s.Service, s.Operation}
		t := per[k]
		if t == nil {
			t = &tally{}
			per[k] = t
		}
		t.n++
		if r.TTFT >= 0 || r.TimePerOutputToken() >= 0 {
			t.timed++
		}
	}
	type row struct {
		svc, op  string
		n, timed int
	}
	var rows []row
	bySvc := map[string]int{}
	for k, t := range per {
		rows = append(rows, row{k.svc.String(), k.op.String(), t.n, t.timed})
		bySvc[k.svc.String()] += t.n
	}
	if len(rows) == 0 {
		return Source{}, false
	}
	svc := target
	if bySvc[svc] < minReq {
		svc = ""
		for s, n := range bySvc {
			if svc == "" || n > bySvc[svc] || n == bySvc[svc] && s < svc {
				svc = s
			}
		}
	}
	if bySvc[svc] < minReq {
		return Source{}, false
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return r.svc != svc })
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.timed, a.timed), cmp.Compare(b.n, a.n), cmp.Compare(a.op, b.op))
	})
	return Source{Service: svc, Operation: rows[0].op, byKey: recs}, true
}

// In is the same source in another bundle (the AFTER side of a
// comparison): the same service's spans of the same operation, or its
// histograms. ok is false when b has none of them.
func (s *Source) In(b *ingest.Bundle) (Source, bool) {
	if s.Hist {
		o, ok := histSource(b, s.Service)
		return o, ok && o.Service == s.Service
	}
	o, ok := spanSource(b, s.Service, 1)
	if !ok || o.Service != s.Service {
		return Source{}, false
	}
	o.Operation = s.Operation
	return o, true
}

// Collect is the source's requests that start in [from, to).
func (s *Source) Collect(b *ingest.Bundle, from, to ingest.Time) *Sample {
	if s.Hist {
		return s.hist.collect(from, to)
	}
	out := &Sample{}
	svc, ok1 := ingest.LookupSym(s.Service)
	op, ok2 := ingest.LookupSym(s.Operation)
	if !ok1 || !ok2 {
		return out
	}
	// Finalize sorts spans by start: only [from, to) is scanned.
	lo := sort.Search(len(b.Spans), func(i int) bool { return b.Spans[i].Start >= from })
	for i := lo; i < len(b.Spans) && b.Spans[i].Start < to; i++ {
		sp := &b.Spans[i]
		if sp.Service != svc || sp.Operation != op {
			continue
		}
		r, ok := s.byKey[ingest.SpanKey{Trace: sp.TraceID, Span: sp.SpanID}]
		if !ok {
			continue
		}
		q := request{in: float64(r.InputTokens), out: float64(r.OutputTokens)}
		if r.InputTokens < 0 {
			q.in = math.NaN()
		}
		if r.OutputTokens < 0 {
			q.out = math.NaN()
		}
		secs := func(d interface{ Seconds() float64 }, known bool) float64 {
			if !known {
				return math.NaN()
			}
			return d.Seconds()
		}
		q.v[TTFT] = secs(r.TTFT, r.TTFT >= 0)
		tpot := r.TimePerOutputToken()
		q.v[TPOT] = secs(tpot, tpot >= 0)
		q.v[E2E] = sp.Duration.Seconds()
		if r.E2E >= 0 {
			q.v[E2E] = r.E2E.Seconds()
		}
		out.reqs = append(out.reqs, q)
	}
	return out
}

// spanIDSet is a filter of span IDs: has is false only for an ID never
// added (a bit per hash of the ID, about 8 bits an ID), so a caller can
// skip a map lookup that would miss.
type spanIDSet []uint64

// init sizes the set for n IDs.
func (f *spanIDSet) init(n int) {
	words := 1
	for words*64 < 8*n {
		words *= 2
	}
	*f = make(spanIDSet, words)
}

// bit is the position of id's bit (Fibonacci hashing: span IDs are
// random, but a generator's may differ in their high bits only).
func (f spanIDSet) bit(id ingest.SpanID) uint64 {
	return (uint64(id) * 0x9e3779b97f4a7c15) >> (64 - bits.Len(uint(len(f)*64-1)))
}

func (f spanIDSet) add(id ingest.SpanID) {
	b := f.bit(id)
	f[b/64] |= 1 << (b % 64)
}

func (f spanIDSet) has(id ingest.SpanID) bool {
	b := f.bit(id)
	return f[b/64]&(1<<(b%64)) != 0
}
