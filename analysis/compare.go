package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// CompareProgress is how a comparison reports as it goes (stderr in the
// CLI); a nil field says nothing.
type CompareProgress struct {
	// Say receives a line: what is being done, and each note.
	Say func(format string, args ...any)
	// Detail receives each input file as it is read (-v).
	Detail func(format string, args ...any)
	// Read receives an input once read (its name as given, the bundle and
	// how long reading took).
	Read func(name string, b *ingest.Bundle, took time.Duration)
}

func (p CompareProgress) say(format string, args ...any) {
	if p.Say != nil {
		p.Say(format, args...)
	}
}

// readBundle reads paths as a comparison's input, reporting it as name.
func (p CompareProgress) readBundle(name string, paths []string, stdin io.Reader, step time.Duration, lim ingest.Limits) (*ingest.Bundle, error) {
	t0 := time.Now()
	b, err := features.Read(paths, stdin, ingest.Options{Step: step, Progress: p.Detail, Notice: p.Say, Limits: lim}, features.Options{})
	if err == nil && p.Read != nil {
		p.Read(name, b, time.Since(t0))
	}
	return b, err
}

// CompareInputs are what a before/after comparison reads: BEFORE AFTER,
// or one input that holds both windows.
type CompareInputs struct {
	Paths []string
	Stdin io.Reader // for an input named "-"
}

// CompareConfig is how a before/after comparison runs.
type CompareConfig struct {
	// Options are compare's thresholds and rendering options; the target,
	// baseline, version, command line and causes are filled in here.
	Options compare.Options
	Spec    tcg.IncidentSpec // the incident as the user stated it (--target)
	Graph   tcg.Options      // BEFORE's analysis, for its causes
	Causal  causal.Options
	Step    time.Duration // the series' step (0: the data's own)
	Window  time.Duration
	// Baseline is the baseline before each window (0: the default).
	Baseline          time.Duration
	BeforeAt, AfterAt TimeSpec // the windows' centres (absent: the defaults)
	Limits            ingest.Limits
	// NoCauses skips BEFORE's causes; ScorecardFile takes them from a
	// saved scorecard instead of an analysis of BEFORE; NCauses is how many.
	NoCauses      bool
	ScorecardFile string
	NCauses       int
	Version       string
	Args          []string // the command line, for the report's rerun line
	Progress      CompareProgress
}

// Compare reads BEFORE and AFTER (or one input for both), resolves the two
// windows, takes BEFORE's top causes and compares the windows entity by
// entity (compare.Run). An input that cannot be read is an error naming
// its side.
func Compare(_ context.Context, in CompareInputs, cfg CompareConfig) (*model.Report, error) {
	paths := in.Paths
	if len(paths) == 0 || len(paths) > 2 {
		return nil, fmt.Errorf("%w: compare: want BEFORE AFTER, or --before-at T --after-at T DATA", ErrUsage)
	}
	before, err := cfg.Progress.readBundle(paths[0], paths[:1], in.Stdin, cfg.Step, cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("BEFORE: %w", err)
	}
	after := before
	if len(paths) == 2 {
		if after, err = cfg.Progress.readBundle(paths[1], paths[1:], in.Stdin, cfg.Step, cfg.Limits); err != nil {
			return nil, fmt.Errorf("AFTER: %w", err)
		}
	}
	bAt, aAt := cfg.BeforeAt, cfg.AfterAt
	ws := compare.WindowSpec{BeforeAt: bAt.Resolve(before.End), AfterAt: aAt.Resolve(after.End), Window: cfg.Window,
		Baseline: cfg.Baseline, Target: cfg.Spec.Target}
	if bAt.Present {
		ws.BeforeAtSource = "--before-at " + bAt.Raw
	}
	if aAt.Present {
		ws.AfterAtSource = "--after-at " + aAt.Raw
	}
	bs, as, inc, err := compare.ResolveSides(before, after, ws)
	if err != nil {
		return nil, err
	}
	bs.Paths, as.Paths = paths[:1], paths[len(paths)-1:]
	o := cfg.Options
	o.Target, o.TargetChosenBy = inc.Target, inc.TargetChosenBy
	o.Baseline = cfg.Baseline
	o.Version, o.Args = cfg.Version, cfg.Args
	if err := beforeCauses(cfg, &o, before, inc); err != nil {
		return nil, err
	}
	rep, err := compare.Run(bs, as, o)
	if err != nil {
		return nil, err
	}
	cfg.Progress.say("compared %d items: %s", len(rep.Items), rep.Verdict.Text)
	return rep, nil
}

// beforeCauses fills o.Causes with BEFORE's top causes: none with
// NoCauses, those of ScorecardFile, else those of an analysis of BEFORE's
// incident (a failed analysis is a note: its causes get no verdict).
func beforeCauses(cfg CompareConfig, o *compare.Options, before *ingest.Bundle, inc tcg.Incident) error {
	switch {
	case cfg.NoCauses:
	case cfg.ScorecardFile != "":
		var err error
		if o.Causes, err = compare.CausesFromScorecard(cfg.ScorecardFile, cfg.NCauses, cfg.Limits.MaxDocumentBytes); err != nil {
			return err
		}
		o.CausesFrom = "scorecard " + cfg.ScorecardFile
	default:
		spec := cfg.Spec
		spec.At = inc.At
		spec.AtSource = inc.AtChosenBy
		an, err := AnalyzeBundle(before, spec, TimeSpec{Abs: inc.At, Present: true}, cfg.Graph, cfg.Causal)
		if err != nil {
			cfg.Progress.say("BEFORE's analysis failed, so its causes get no verdict: %v", err)
			o.CausesFrom = "analysis of BEFORE failed: " + err.Error()
		} else {
			o.Causes = compare.CausesOf(an.Result, cfg.NCauses)
			o.CausesFrom = "analysis of BEFORE (method " + an.Result.Method + ")"
		}
	}
	return nil
}

// CanaryInputs are what a canary comparison reads: one input (a file or
// directory, or several) holding the canary's and its baseline's pods.
type CanaryInputs struct {
	Paths []string
	Stdin io.Reader // for an input named "-"
}

// CanaryConfig is how a canary comparison runs.
type CanaryConfig struct {
	// Options select the canary and its baseline and set the scores; the
	// version, command line, inputs and window are filled in here.
	Options canary.Options
	Step    time.Duration // the series' step (0: the data's own)
	// LastWindow judges the last Window of the data instead of the time
	// since the canary's first sample.
	LastWindow bool
	Window     time.Duration
	Limits     ingest.Limits
	Version    string
	Args       []string // the command line, for the report's rerun line
	Progress   CompareProgress
}

// Canary reads the input and judges the canary's pods against their
// baseline pods in the same minutes (canary.Run). An input without
// a canary is canary.ErrNoCanary; another failure of the judgement is
// wrapped as "canary: ...".
func Canary(_ context.Context, in CanaryInputs, cfg CanaryConfig) (*model.Report, error) {
	paths := in.Paths
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: compare --canary: want DATA (a file or directory), or live sources (--prometheus-url ...)", ErrUsage)
	}
	b, err := cfg.Progress.readBundle(strings.Join(paths, ", "), paths, in.Stdin, cfg.Step, cfg.Limits)
	if err != nil {
		return nil, err
	}
	o := cfg.Options
	o.Version, o.Args, o.Paths = cfg.Version, cfg.Args, paths
	if cfg.LastWindow && b.End != 0 {
		o.End = b.End.Add(time.Nanosecond)
		o.Start = o.End.Add(-cfg.Window)
	}
	rep, err := canary.Run(b, o)
	if err != nil {
		if errors.Is(err, canary.ErrNoCanary) {
			return nil, err
		}
		return nil, fmt.Errorf("canary: %w", err)
	}
	n := fmt.Sprintf("%d canaries", len(rep.Canary.Workloads))
	if len(rep.Canary.Workloads) == 1 {
		n = "1 canary"
	}
	cfg.Progress.say("judged %s: %s", n, rep.Verdict.Text)
	return rep, nil
}

// ProfileInputs are a profiler A/B's two captures, each a Kineto trace, an
// Nsight Systems SQLite export or a directory of one per rank.
type ProfileInputs struct {
	Base, Cand []string
	// WorkDir is a directory of the caller's for temporary files (a
	// compressed SQLite export is copied there); the caller removes it.
	WorkDir string
}

// ProfileConfig is how a profiler A/B runs: profdiff's options (the
// tests' thresholds, the seed, limits, version and command line) and
// where progress goes (nil: nowhere).
type ProfileConfig struct {
	Options profdiff.Options
	Say     func(format string, args ...any)
}

// Profile compares the two captures step, layer and kernel
// (profdiff.Compare).
func Profile(_ context.Context, in ProfileInputs, cfg ProfileConfig) (*profdiff.Report, error) {
	p := CompareProgress{Say: cfg.Say}
	if len(in.Base) == 0 || len(in.Cand) == 0 {
		return nil, fmt.Errorf("%w: compare --profile: want BASE CAND", ErrUsage)
	}
	o := cfg.Options
	o.TempDir = in.WorkDir
	p.say("profiler A/B: %s against %s", strings.Join(in.Base, ", "), strings.Join(in.Cand, ", "))
	rep, err := profdiff.Compare(in.Base, in.Cand, o)
	if err != nil {
		return nil, err
	}
	p.say("compared %d layers and %d kernels: %s", len(rep.Layers), len(rep.Kernels), rep.Verdict.Text)
	return rep, nil
}
