// Package analysis is the one in-process core of pipeline-analyze, like
// pprof's generateRawReport: Analyze takes typed inputs and configuration
// (no flags, no argv) and runs the whole incident-time pipeline — read,
// check the user's context against the data, resolve the incident, build
// the graph (its window reaching back to the target's onset), rank the
// causes, gather their evidence and build the card — and returns a Run whose
// typed results the CLI, the MCP server and the tests read and render.
package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats" // every format Analyze reads
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// ErrUsage marks the errors that are the user's to fix (exit status 2 in
// the CLI): a --target, --at or --window the data cannot hold.
var ErrUsage = errors.New("usage")

// Inputs are what one analysis reads, as a source delivered them.
type Inputs struct {
	// Paths are the files and directories to read; none: the embedded
	// demo incident.
	Paths []string
	// Named are the inputs as the user named them (the positional
	// arguments), for messages.
	Named []string
	// Stdin is what the path "-" reads.
	Stdin io.Reader
	// Args are the command line recorded in the card for its rerun.
	Args []string
	// Warnings are the source's notes (a live fetch's, or a saved
	// bundle's), added to the bundle's.
	Warnings []ingest.Warning
	// Sampling is how the traces were sampled, stated on the card.
	Sampling string
	// LiveDir is a live fetch's temporary directory, whose files the card
	// shows as live/<file>.
	LiveDir string
	// Live says the inputs are what live sources returned: a --target they
	// lack is a note, not a usage error.
	Live bool
	// WorkDir is the run's temporary directory (the demo is written there,
	// and ingest's temporary files); the caller removes it.
	WorkDir string
}

// Config is how one analysis runs: each stage's options and what the user
// gave explicitly (a value the user typed is checked against the data; a
// value the tool chose is not).
type Config struct {
	Step      time.Duration // common time step (0: the metrics' median step)
	Limits    ingest.Limits // input limits
	LogEntity string        // the entity of log files whose data names none

	At            TimeSpec         // the incident time as given (not resolved)
	Incident      tcg.IncidentSpec // window, baseline, target; At is resolved from At above
	Target        string           // the target as typed (SERVICE[:SIGNAL[:STAT]]), for its series' words
	TargetGiven   bool             // the user named the target
	WindowGiven   bool             // the user sized the window
	BaselineGiven bool             // the user sized the baseline

	Graph    tcg.Options
	Causal   causal.Options
	Evidence evidence.Options
	Card     CardOptions

	Progress Progress
}

// CardOptions are what the card states beyond the analysis.
type CardOptions struct {
	Version  string              // the tool's version
	Slice    time.Duration       // heatmap slice width
	Runbooks []scorecard.Runbook // the team's runbooks
	Links    scorecard.StepLinks // UIs the next steps link to
}

// Progress is how a run reports as it goes (stderr in the CLI); a nil
// field says nothing.
type Progress struct {
	// Say receives a line: what is being done, and each note.
	Say func(format string, args ...any)
	// Phase receives the end of a phase ("read", "analyse") and its start.
	Phase func(name string, since time.Time)
	// StartRead is called before the files are read; it returns the
	// per-file progress (ingest.Options.Progress) and what ends it.
	StartRead func(files []string) (file func(format string, args ...any), end func())
	// Read receives the bundle once read, and how long reading took.
	Read func(b *ingest.Bundle, took time.Duration)
}

func (p Progress) say(format string, args ...any) {
	if p.Say != nil {
		p.Say(format, args...)
	}
}

func (p Progress) phase(name string, since time.Time) {
	if p.Phase != nil {
		p.Phase(name, since)
	}
}

// Run is one analysis: the typed results renderers and callers read.
type Run struct {
	Bundle   *ingest.Bundle  // what was read, as the incident window sees it (Ranked.Bundle)
	Incident tcg.Incident    // the resolved incident, its window as analysed
	Graph    *tcg.Graph      // the temporal causal graph
	Result   *causal.Result  // the ranked causes
	Evidence *evidence.Set   // what the bundle says about them
	Card     *scorecard.Card // the scorecard
	Notes    []string        // context notes (flags against the data), footnoted on the card
	Demo     string          // the demo note, when run on the embedded demo
}

// Analyze reads the inputs, checks the user's context against the data and
// runs the pipeline up to the card. An error wrapping ErrUsage is the
// user's to fix; others are input or runtime errors. ctx is the caller's
// (a tool call's, a command's); the stages do not yet stop when it is
// cancelled.
func Analyze(ctx context.Context, in Inputs, cfg Config) (*Run, error) {
	_ = ctx
	r := &Run{}
	b, paths, err := read(in, cfg, r)
	if err != nil {
		return nil, err
	}
	r.Bundle = b
	inc, analyseStart, err := checkContext(b, in, cfg, r)
	if err != nil {
		return nil, err
	}
	var want *seriesWanted
	if w, ok := targetWanted(cfg.Target, cfg.Incident.Target); ok && cfg.TargetGiven {
		want = &w
	}
	an, err := analyzeIncidentWith(b, inc, cfg.Graph, cfg.Causal, want, &cfg.Evidence.Shape)
	if err != nil {
		return nil, err
	}
	for _, n := range an.Notes {
		cfg.Progress.say("note: %s", n)
	}
	r.Notes = append(r.Notes, an.Notes...)
	r.Bundle, r.Incident, r.Graph, r.Result = an.Bundle, an.Incident, an.Graph, an.Result
	// The evidence step: what the raw bundle says about the ranked causes,
	// gathered once so that the scorecard only renders.
	if m, ok := an.shape.mapFor(an.Bundle, an.Graph.Incident, cfg.Evidence.Shape); ok {
		r.Evidence = evidence.CollectMapped(an.Bundle, an.Graph, an.Result, cfg.Evidence, m)
	} else {
		r.Evidence = evidence.Collect(an.Bundle, an.Graph, an.Result, cfg.Evidence)
	}
	cfg.Progress.phase("analyse", analyseStart)
	cfg.Progress.say("analysed %d nodes, %d edges, %d anomalous; %d candidates", len(an.Graph.Nodes), len(an.Graph.Edges), an.Graph.AnomalousCount(), an.Result.Total)
	card := scorecard.Build(an.Graph, an.Result, r.Evidence, scorecard.BuildOptions{
		Version: cfg.Card.Version, Args: in.Args, Slice: cfg.Card.Slice, Demo: r.Demo, Runbooks: cfg.Card.Runbooks, Links: cfg.Card.Links,
	})
	for _, n := range r.Notes {
		card.AddWarning(scorecard.Footnote{Kind: scorecard.FootnoteContext, Source: "flags", Count: 1, Message: n})
	}
	if in.Sampling != "" {
		card.Sampling = strings.TrimPrefix(card.Sampling+"; "+in.Sampling, "; ")
	}
	if r.Demo != "" { // the demo's temporary directory must not reach the report
		ci := &card.Incident
		ci.TargetChosenBy = strings.ReplaceAll(ci.TargetChosenBy, paths[0], "demo")
		ci.AtChosenBy = strings.ReplaceAll(ci.AtChosenBy, paths[0], "demo")
	}
	r.Card = card
	return r, nil
}

// read reads the inputs, or the embedded demo when there are none; it
// returns the bundle and the paths read.
func read(in Inputs, cfg Config, r *Run) (*ingest.Bundle, []string, error) {
	paths, shown := in.Paths, in.Named
	if len(paths) == 0 {
		dir, err := os.MkdirTemp(in.WorkDir, "demo-*")
		if err != nil {
			return nil, nil, err
		}
		fault, seed, err := writeDemo(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("demo: %w", err)
		}
		cfg.Progress.say("no input given: analysing the embedded demo incident (simulated fault %q, seed %d)", fault, seed)
		r.Demo = fmt.Sprintf("This is the embedded demo: a simulated %s incident (pipeline-analyze simulate --fault %s --seed %d). "+
			"Run on your own data with: pipeline-analyze [flags] PATH... (see --help).", fault, fault, seed)
		paths, shown = []string{dir}, []string{"demo"}
	}
	t0 := time.Now()
	files, bad := ingest.ExpandPaths(paths)
	if len(files) == 0 && bad == nil && !in.Live {
		return nil, nil, emptyInputError(shown)
	}
	file, end := func(string, ...any) {}, func() {}
	if cfg.Progress.StartRead != nil {
		file, end = cfg.Progress.StartRead(files)
	}
	b, err := features.Read(paths, in.Stdin, ingest.Options{Step: cfg.Step, Progress: file, Notice: cfg.Progress.Say, Limits: cfg.Limits,
		LogEntity: cfg.LogEntity, TempDir: in.WorkDir}, features.Options{})
	end()
	if err != nil {
		return nil, nil, err
	}
	cfg.Progress.phase("read", t0)
	if r.Demo != "" {
		RelabelInputs(b, paths[0], "demo")
	}
	if in.LiveDir != "" {
		RelabelInputs(b, in.LiveDir, "live")
	}
	if cfg.Progress.Read != nil {
		cfg.Progress.Read(b, time.Since(t0))
	}
	if err := checkTelemetry(b, shown); err != nil {
		return nil, nil, err
	}
	b.Warnings = append(b.Warnings, in.Warnings...)
	return b, paths, nil
}

// checkContext checks the target, the time and the window the user gave
// against the data and resolves the incident; what the data cannot hold is
// a usage error (ErrUsage), what it holds only in part a note (r.Notes). It
// returns the start of the analysis phase.
func checkContext(b *ingest.Bundle, in Inputs, cfg Config, r *Run) (tcg.Incident, time.Time, error) {
	if cfg.TargetGiven {
		if err := checkTarget(b, cfg.Incident.Target, cfg.Target); err != nil {
			if !in.Live {
				return tcg.Incident{}, time.Time{}, err
			}
			// Live data is what the servers returned, not what was typed
			// against: a failed query can leave the target out. Say so.
			r.Notes = append(r.Notes, strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")+" (in what the live sources returned)")
		}
	}
	if err := checkAt(b, cfg.At); err != nil {
		return tcg.Incident{}, time.Time{}, err
	}
	start := time.Now()
	inc, err := ResolveIncident(b, cfg.Incident, cfg.At)
	if err != nil {
		return inc, start, err
	}
	tf := timeFlags{at: cfg.At, window: cfg.Incident.Window, windowGiven: cfg.WindowGiven, baseline: cfg.Incident.Baseline, baselineGiven: cfg.BaselineGiven}
	r.Notes = append(r.Notes, alertNotes(b, inc, cfg.At.Present, tf.window)...)
	windowNotes, err := checkWindow(b, tf, inc)
	if err != nil {
		return inc, start, err
	}
	r.Notes = append(r.Notes, windowNotes...)
	for _, n := range r.Notes {
		cfg.Progress.say("note: %s", n)
	}
	return inc, start, nil
}
