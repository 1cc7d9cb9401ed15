package driver

import (
	"context"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// source delivers the inputs of one analysis, like pprof's Fetcher: local
// files and directories (localSource) or what live endpoints returned
// (liveSource). The analysis picks one from the flags and never looks
// behind it, so an offline run never passes through the live fetch.
type source interface {
	// open returns the paths to read and what the scorecard must say about
	// them. args are the command line (for the rerun recorded in the card),
	// paths the positional arguments. It may change at and spec (an
	// incident time restored from a saved bundle, or resolved at fetch).
	open(ctx context.Context, args, paths []string, at *timeSpec, spec *tcg.IncidentSpec) (*inputs, error)
}

// inputs is what a source delivered before the inputs are read.
type inputs struct {
	paths    []string         // the inputs to read (a fetched bundle appended)
	args     []string         // the rerun arguments recorded in the scorecard
	warnings []ingest.Warning // a fetch's notes (or a saved bundle's), for the bundle
	sampling string           // how the traces were sampled, for the scorecard
	cleanup  func()
	tempDir  string // a fetched bundle's temporary directory (no --save-bundle), shown as live/<file>
}

// newSource picks the live source when a live endpoint was given, else the
// local one.
func newSource(l *liveFlags, af *analysisFlags, work string, red *cliio.Redactor, progress func(string, ...any)) source {
	if !l.active() {
		return localSource{}
	}
	return &liveSource{l: l, af: af, work: work, red: red, progress: progress}
}

// localSource reads local files and directories. A saved bundle among them
// (a directory --save-bundle wrote) has its fetch notes, trace sampling and
// incident time restored from its manifest, so that `pipeline-analyze DIR`
// reproduces the scorecard of the run that saved DIR.
type localSource struct{}

// open restores the manifests of saved bundles among paths.
func (localSource) open(_ context.Context, args, paths []string, at *timeSpec, spec *tcg.IncidentSpec) (*inputs, error) {
	saved, err := analysis.RestoreSaved(paths, *at)
	if err != nil {
		return nil, err
	}
	if !at.Present && saved.At.Present {
		*at, spec.AtSource = saved.At, saved.AtSource
	}
	return &inputs{paths: paths, args: args, cleanup: func() {}, warnings: saved.Warnings, sampling: saved.Sampling}, nil
}
