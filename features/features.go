package features

import (
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Read reads the inputs as ingest.Read does, with the features stage run
// inside Finalize: what every caller that analyses data uses, so that none
// forgets the features.
func Read(paths []string, stdin io.Reader, opt ingest.Options, fo Options) (*ingest.Bundle, error) {
	opt.Derive = Deriver(fo)
	opt.Stream = Streamer()
	return ingest.Read(paths, stdin, opt)
}

// Finalize is ingest.Finalize with the features stage (for bundles built in
// memory: the simulator's, the tests').
func Finalize(b *ingest.Bundle, opt ingest.Options, fo Options) error {
	opt.Derive = Deriver(fo)
	return ingest.Finalize(b, opt)
}

// Deriver returns the features stage as ingest.Options.Derive: Finalize
// calls it after the repairs, the grid step and entity matching, and before
// the series are aligned onto the grid.
func Deriver(fo Options) func(*ingest.Bundle) {
	return func(b *ingest.Bundle) { Derive(b, fo) }
}

// Derive computes the features of a bundle being finalized:
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
