package features

import (
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Read reads the inputs with the features stage: ingest.ReadUnaligned
// (read, merged, repaired, the grid step chosen; span digests taken with
// Streamer when the read is over the span budget), then Derive, then the
// read's Align (every series, the derived ones too, aligned onto the grid;
// the entity list built). It is what every caller that analyses data uses;
// ingest.Read is the same read without the stage. Its errors are
// ingest.ReadUnaligned's.
func Read(paths []string, stdin io.Reader, opt ingest.Options, fo Options) (*ingest.Bundle, error) {
	opt.Stream = Streamer()
	r, err := ingest.ReadUnaligned(paths, stdin, opt)
	if err != nil {
		return nil, err
	}
	Derive(r.Bundle, fo)
	return r.Align(), nil
}

// Finalize makes a bundle built in memory (the simulator's, the tests')
// one aligned bundle with the features stage: ingest.Prepare, Derive,
// ingest.Align.
func Finalize(b *ingest.Bundle, opt ingest.Options, fo Options) {
	ingest.Prepare(b, opt)
	Derive(b, fo)
	ingest.Align(b, opt.Limits)
}

// Derive computes the features of a prepared bundle (ingest.Prepare: its
// grid step chosen, its series not yet aligned), before ingest.Align:
//  1. entities matched across sources (entitymatch.go): a series, event or
//     alert naming a pod or workload of a traced service is that service's,
//     X-Ray component vertices merge into their service, and log streams
//     are matched like series (unmatched ones warned);
//  2. GPU series matched to the processes and pods that use them (gpumatch.go);
//  3. processes placed on GPUs by host and PID (placement.go);
//  4. per-service, per-pod and per-call-edge RED series derived from the
//     spans (derive.go; after a streamed read, from the digest of every
//     span read, stream.go) beside the operation mix (opmix.go), the mix's
//     series appended after the trace series';
//  5. the log series with the default reference period, the first 60% of
//     the grid (logfeatures.go; DeriveLogSeries derives them again once the
//     incident's baseline is known).
//
// The trace series and the operation mix only read the spans: side by side
// on big inputs (ingest.BothIf).
func Derive(b *ingest.Bundle, fo Options) {
	fo = fo.withDefaults()
	matchEntities(b)
	matchLogStreams(b)
	matchGPUs(b)
	placeProcesses(b)
	var mix []*ingest.Series
	traces := func() { deriveTraceSeries(b, b.Parent) }
	if dg := digestOf(b); dg != nil {
		traces = func() { deriveDigestSeries(b, dg) } // a streamed read: from every span read, not the sample
	}
	ingest.BothIf(len(b.Spans), traces, func() { mix = operationMixSeries(b, fo) })
	b.Series = append(b.Series, mix...)
	deriveDefaultLogSeries(b, fo)
}
