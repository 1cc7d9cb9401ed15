package model

// SpanDigest is what a streamed read keeps of every span it read once the
// spans themselves are gone (ingest's span budget, Limits.SpanBudget): the
// features stage's per-entity, per-second summary of each file's spans,
// made as the file is read and merged in file order. Bundle.Spans then
// hold only a sample of whole traces (Bundle.SpanSample says which).
type SpanDigest interface {
	// Merge adds the digest of a later file (in file order) to this one.
	Merge(later SpanDigest)
}

// SpanSample describes the spans a streamed read kept: every trace whose
// ID falls in the first Rate of the trace-ID hash space (a uniform,
// deterministic sample of whole traces), the rest summarised in
// Bundle.Digest.
type SpanSample struct {
	Rate float64 // the share of traces kept
	// Read and Kept count spans and traces: all those the streamed files
	// held (after duplicates), and those kept.
	ReadSpans, KeptSpans, ReadTraces, KeptTraces int
	Files                                        int   // trace files streamed
	Bytes                                        int64 // their size
	Budget                                       int64 // the span budget they exceeded (bytes)
	// First and Last are the earliest and latest start of a span read.
	First, Last Time
}

// Merge adds a later file's counts.
func (s *SpanSample) Merge(o *SpanSample) {
	s.ReadSpans += o.ReadSpans
	s.KeptSpans += o.KeptSpans
	s.ReadTraces += o.ReadTraces
	s.KeptTraces += o.KeptTraces
	s.Files += o.Files
	s.First, s.Last = min(s.First, o.First), max(s.Last, o.Last)
}
