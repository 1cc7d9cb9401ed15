package analysis

import (
	"context"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Source delivers the inputs of one analysis, like pprof's Fetcher: local
// files and directories (LocalSource) or what live endpoints returned
// (LiveSource). The caller picks one from its settings and never looks
// behind it, so an offline run never passes through the live fetch.
type Source interface {
	// Open returns the paths to read and what the card must say about
	// them. args are the command line (for the rerun recorded in the
	// card), paths the inputs the user named. It may change at and spec
	// (an incident time restored from a saved bundle, or resolved at
	// fetch).
	Open(ctx context.Context, args, paths []string, at *TimeSpec, spec *tcg.IncidentSpec) (*Opened, error)
}

// Opened is what a source delivered before the inputs are read.
type Opened struct {
	Paths    []string         // the inputs to read (a fetched bundle appended)
	Args     []string         // the rerun arguments recorded in the card
	Warnings []ingest.Warning // a fetch's notes (or a saved bundle's), for the bundle
	Sampling string           // how the traces were sampled, for the card
	TempDir  string           // a fetched bundle's temporary directory (no SaveBundle), shown as live/<file>
	Cleanup  func()           // removes what the source wrote (never nil)
}

// LocalSource reads local files and directories. A saved bundle among them
// (a directory a live fetch saved) has its fetch notes, trace sampling and
// incident time restored from its manifest (RestoreSaved), so that
// analysing it reproduces the card of the run that saved it.
type LocalSource struct{}

// Open restores the manifests of saved bundles among paths.
func (LocalSource) Open(_ context.Context, args, paths []string, at *TimeSpec, spec *tcg.IncidentSpec) (*Opened, error) {
	saved, err := RestoreSaved(paths, *at)
	if err != nil {
		return nil, err
	}
	if !at.Present && saved.At.Present {
		*at, spec.AtSource = saved.At, saved.AtSource
	}
	return &Opened{Paths: paths, Args: args, Cleanup: func() {}, Warnings: saved.Warnings, Sampling: saved.Sampling}, nil
}

// LiveSource fetches the incident from the live endpoints into a bundle
// directory (FetchLive: SaveBundle, or one under WorkDir) and reads that,
// with any local paths beside it.
type LiveSource struct {
	// Fetch is the fetch (its At and AtSource are Open's).
	Fetch LiveFetch
	// Rerun drops from args what only steered the fetch (the live flags,
	// --at: the saved manifest carries the incident time), for the rerun
	// recorded in the card; nil keeps args.
	Rerun func(args []string) []string
}

// Open fetches the live sources. A relative at is resolved against the
// wall clock at fetch time and said so in spec.AtSource. When no source
// delivered anything but local paths were given beside them, those are
// analysed alone, each source's failure a warning on the card.
func (s *LiveSource) Open(ctx context.Context, args, paths []string, at *TimeSpec, spec *tcg.IncidentSpec) (*Opened, error) {
	f := s.Fetch
	f.At, f.AtSource = *at, spec.AtSource
	r, err := FetchLive(ctx, f)
	if r != nil {
		*at, spec.AtSource = r.At, r.AtSource
	}
	if err != nil {
		if failures, ok := NothingFetched(err); ok && r != nil && len(paths) > 0 {
			if f.Progress != nil {
				f.Progress("live: nothing fetched; analysing the %d local inputs given beside the live sources", len(paths))
			}
			return s.localOnly(r, failures, paths, args), nil
		}
		return nil, err
	}
	return &Opened{Paths: append(append([]string{}, paths...), r.Dir), Args: append(s.rerun(args), r.Dir),
		Warnings: r.Warnings, Sampling: r.Sampling, TempDir: r.TempDir, Cleanup: r.Cleanup}, nil
}

// localOnly is what a live run analyses when no live source delivered
// anything but local files were given beside them: those files, with the
// manifest's notes and each source's failure as warnings on the card
// (instead of "live: nothing fetched", exit 1).
func (s *LiveSource) localOnly(r *LiveResult, failures, paths, args []string) *Opened {
	in := &Opened{Paths: paths, Args: s.rerun(args), Cleanup: func() {}}
	if r.Manifest != nil {
		in.Warnings = NoteWarnings(r.Manifest.Notes)
	}
	in.Warnings = append(in.Warnings, ingest.Warning{Kind: ingest.ErrPartialInput, Source: "live", Count: len(failures),
		Message: "nothing fetched (" + strings.Join(failures, "; ") + "): the local inputs were analysed alone"})
	return in
}

// rerun is Rerun(args), or args.
func (s *LiveSource) rerun(args []string) []string {
	if s.Rerun == nil {
		return args
	}
	return s.Rerun(args)
}

// FetchCompare fetches, in one go, the range that holds both windows of a
// comparison and their baseline: the later time's window with a baseline
// reaching back over the earlier window and its own baseline (Fetch's
// Baseline, else max(6 windows, 30m)). Relative times are resolved
// against the wall clock now and rewritten as absolute ones in bAt and
// aAt. The fetched bundle is the last of the result's Paths; the fetch's
// notes are said on Fetch's Progress.
func (s *LiveSource) FetchCompare(ctx context.Context, args []string, bAt, aAt *TimeSpec) (*Opened, error) {
	now := time.Now().UTC().Truncate(time.Second)
	abs := func(t *TimeSpec) {
		if t.IsRel {
			a := now.Add(t.Rel)
			*t = TimeSpec{Abs: ingest.FromTime(a), Raw: a.Format(time.RFC3339Nano) + " (" + t.Raw + ", now = wall clock at fetch)", Present: true}
		}
	}
	abs(bAt)
	abs(aAt)
	first, last := *bAt, *aAt
	if first.Abs > last.Abs {
		first, last = last, first
	}
	fetch := *s
	fetch.Fetch.Baseline = last.Abs.Sub(first.Abs) + FetchBaseline(s.Fetch.Baseline, s.Fetch.Window)
	var spec tcg.IncidentSpec
	in, err := fetch.Open(ctx, args, nil, &last, &spec)
	if err != nil {
		return nil, err
	}
	in.SayWarnings(s.Fetch.Progress)
	return in, nil
}

// SayWarnings says each of the source's warnings ("live: ...") on say
// (nil: nothing).
func (in *Opened) SayWarnings(say func(string, ...any)) {
	if say == nil {
		return
	}
	for _, w := range in.Warnings {
		say("live: %s", w.Message)
	}
}
