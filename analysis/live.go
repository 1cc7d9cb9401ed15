package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// LiveFetch is one fetch from the live sources: the endpoints, transport
// and bounds (live.Options, as the caller built them from its settings;
// the time range, step, queries and progress are filled in here), the
// incident's time and window, and where the bundle goes.
type LiveFetch struct {
	Options live.Options
	// At is the incident time (absent: now); a relative one is resolved
	// against the wall clock at fetch time. AtSource says who chose it, for
	// the manifest.
	At       TimeSpec
	AtSource string
	// Window is the incident window, Baseline the time before it to fetch
	// (0: max(6 windows, 30m)), Step the series' step (0: the default).
	Window, Baseline, Step time.Duration
	// Selector, Packs and Queries choose the Prometheus queries (live.Queries).
	Selector, Packs string
	Queries         []string
	// SaveBundle is where the bundle is kept (empty: a temporary directory
	// under WorkDir, removed by LiveResult.Cleanup).
	SaveBundle, WorkDir string
	Version             string                        // recorded in the bundle's manifest
	Track               func(path string) func()      // registers a file being written for removal on a signal (nil: none)
	Progress            func(format string, a ...any) // nil: nothing said
}

// LiveResult is what a fetch delivered: the bundle's directory and what
// the analysis must say about it.
type LiveResult struct {
	Dir      string           // the fetched bundle
	TempDir  string           // Dir when it is temporary (no SaveBundle)
	Warnings []ingest.Warning // the fetch's notes
	Sampling string           // how the traces were sampled
	// At is the incident time, resolved against the wall clock when it was
	// relative; AtSource is LiveFetch's, or says that it was resolved so.
	At       TimeSpec
	AtSource string
	Manifest *live.Manifest // what was fetched (nil when nothing was)
	Cleanup  func()         // removes a temporary bundle
}

// FetchBaseline is the baseline a live fetch reaches back over before its
// window: baseline, else max(6 windows, 30m).
func FetchBaseline(baseline, window time.Duration) time.Duration {
	if baseline > 0 {
		return baseline
	}
	return max(6*window, 30*time.Minute)
}

// FetchLive fetches the incident's window and its baseline from the live
// sources into a bundle directory (live.Fetch, live.Saver). A SaveBundle
// that cannot take a bundle, a bad selector or query is an ErrUsage. When
// the fetch itself fails, the result comes with the error: no bundle, but
// the incident time as resolved and the manifest of what was fetched.
func FetchLive(ctx context.Context, f LiveFetch) (*LiveResult, error) {
	say := f.Progress
	if say == nil {
		say = func(string, ...any) {}
	}
	opt := f.Options
	if f.SaveBundle != "" {
		if err := live.CheckBundleDir(f.SaveBundle); err != nil { // before fetching anything
			return nil, fmt.Errorf("%w: --save-bundle: %v", ErrUsage, err)
		}
	}
	r := &LiveResult{At: f.At, AtSource: f.AtSource, Cleanup: func() {}}
	now := time.Now().UTC().Truncate(time.Second) // the wall clock: live sources only
	win := f.Window
	var wStart, wEnd time.Time
	if at := f.At; at.Present {
		a := at.Abs.Std()
		if at.IsRel {
			a = now.Add(at.Rel)
			r.AtSource = fmt.Sprintf("--at %s (now = wall clock at fetch, %s)", at.Raw, now.Format(time.RFC3339))
			r.At = TimeSpec{Abs: ingest.FromTime(a), Raw: a.Format(time.RFC3339Nano), Present: true}
		}
		wStart, wEnd = a.Add(-win/2), a.Add(win/2)
	} else {
		wStart, wEnd = now.Add(-win), now
	}
	base := FetchBaseline(f.Baseline, win)
	opt.Start, opt.End, opt.WindowStart, opt.WindowEnd = wStart.Add(-base), wEnd, wStart, wEnd
	opt.Step = f.Step
	opt.Progress = say
	if opt.PrometheusURL != "" {
		sel, err := live.ParseSelector(f.Selector)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		opt.Queries, err = live.Queries(f.Packs, sel, live.EffectiveStep(opt.Start, opt.End, opt.Step), f.Queries)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	dir := f.SaveBundle
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp(f.WorkDir, "pipeline-analyze-live-*")
		if err != nil {
			return nil, fmt.Errorf("live: %w", err)
		}
		r.Cleanup = func() { os.RemoveAll(dir) }
		r.TempDir = dir
	}
	t0 := time.Now()
	say("live: fetching %s..%s (window %s..%s)", opt.Start.Format(time.RFC3339), opt.End.Format(time.RFC3339),
		wStart.Format(time.RFC3339), wEnd.Format(time.RFC3339))
	m, files, err := live.Fetch(ctx, opt)
	r.Manifest = m
	if err != nil {
		r.Cleanup()
		r.Cleanup = func() {}
		return r, fmt.Errorf("live: %w", err)
	}
	m.Tool = "pipeline-analyze " + f.Version
	m.FetchedAt = now.Format(time.RFC3339)
	if r.At.Present {
		m.At = r.At.Abs.Std().Format(time.RFC3339Nano)
		m.AtChosenBy = r.AtSource
	}
	if err := (&live.Saver{Track: f.Track}).Save(dir, m, files); err != nil {
		r.Cleanup()
		r.Cleanup = func() {}
		return r, err
	}
	say("live: fetched %d files in %v into %s", len(files), time.Since(t0).Round(time.Millisecond), dir)
	r.Dir = dir
	r.Warnings = NoteWarnings(m.Notes)
	r.Sampling = Sampling("", m)
	return r, nil
}

// NothingFetched reports whether err says that no live source delivered
// anything, and each source's failure.
func NothingFetched(err error) ([]string, bool) {
	var nf *live.NothingFetchedError
	if !errors.As(err, &nf) {
		return nil, false
	}
	return nf.Failures, true
}

// Sampling adds the trace sampling a manifest states to sampling ("; "
// between them).
func Sampling(sampling string, m *live.Manifest) string {
	for _, mj := range []*live.ManifestJaeger{m.Jaeger, m.Tempo} {
		if mj != nil && mj.Sampling != "" {
			sampling = strings.TrimPrefix(sampling+"; "+mj.Sampling, "; ")
		}
	}
	return sampling
}

// NoteWarnings turns a fetch's notes into the bundle's warnings.
func NoteWarnings(notes []live.Note) []ingest.Warning {
	var ws []ingest.Warning
	for _, n := range notes {
		kind := ingest.ErrPartialInput
		switch n.Kind {
		case live.NoteLimit:
			kind = ingest.ErrLimit
		}
		ws = append(ws, ingest.Warning{Kind: kind, Source: "live " + n.Source, Count: 1, Message: n.Message})
	}
	return ws
}

// SavedBundles are what the saved bundles among some inputs (directories
// a live fetch wrote) restore: their fetch notes, trace sampling and
// incident time.
type SavedBundles struct {
	Warnings []ingest.Warning
	Sampling string
	At       TimeSpec // absent when no manifest states one
	AtSource string
}

// RestoreSaved reads the manifests of the saved bundles among paths, so
// that analysing a saved bundle reproduces the run that saved it. at is
// the incident time the user gave: a manifest's time fills it only when
// absent.
func RestoreSaved(paths []string, at TimeSpec) (*SavedBundles, error) {
	s := &SavedBundles{At: at}
	for _, p := range paths {
		m, ok, err := live.LoadManifest(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		s.Warnings = append(s.Warnings, NoteWarnings(m.Notes)...)
		s.Sampling = Sampling(s.Sampling, m)
		if !s.At.Present && m.At != "" {
			t, err := time.Parse(time.RFC3339Nano, m.At)
			if err != nil {
				return nil, fmt.Errorf("%s: at %q: %w", p, m.At, err)
			}
			s.At = TimeSpec{Abs: ingest.FromTime(t), Raw: m.At, Present: true}
			s.AtSource = m.AtChosenBy
		}
	}
	return s, nil
}
