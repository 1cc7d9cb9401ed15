package cmdrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// AnalyzeOptions are the analysis command's settings: the analysis', the
// report's, the live sources', the input limits and --log-entity.
type AnalyzeOptions struct {
	Settings  analysis.Settings
	Output    Output
	Live      Live
	Limits    ingest.Limits
	LogEntity string
	Version   string // the program's, on the card and the live fetch's User-Agent
}

// Env is what a run reads and writes besides its progress: stdin (an input
// named -), stdout (the report, --list-queries), the writer of --explain
// and the redactor that receives the live settings' secrets.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Explain io.Writer
	Red     *cliio.Redactor
}

// AnalyzeRun is one run of the analysis command, between its steps (the
// kubectl Options/Run pattern: NewAnalyzeRun checks, Run analyses, Report
// renders). The command builds it from its flags, the MCP analyze tool
// from its arguments.
type AnalyzeRun struct {
	env     Env
	o       *AnalyzeOptions
	changed func(flag string) bool // whether the user set a flag
	named   []string               // the inputs as the user named them (the positional arguments)
	rep     *progress.Reporter
	slice   time.Duration
	so      analysis.Stages
	in      *analysis.Opened // what the source delivered
	// runbooks are the team's runbooks (--runbooks), read before the data.
	runbooks []scorecard.Runbook
	// Row is the row `explain N` renders (0: the whole card).
	Row int

	reportStart time.Time // the report phase's start, for -v
}

// NewAnalyzeRun checks the output settings and turns the analysis settings
// into the stages' options; an error is a usage error (not yet reported:
// Usage("", err) says it). changed says whether the user set a flag; named
// are the inputs as the user named them.
func NewAnalyzeRun(env Env, o *AnalyzeOptions, changed func(string) bool, named []string, rep *progress.Reporter) (*AnalyzeRun, error) {
	r := &AnalyzeRun{env: env, o: o, changed: changed, named: named, rep: rep}
	if err := o.Output.ExportFormat(changed("output-format")); err != nil {
		return nil, err
	}
	var err error
	if r.slice, err = o.Output.Check(); err != nil {
		return nil, err
	}
	if r.so, err = o.Settings.Stages(); err != nil {
		return nil, err
	}
	if o.Settings.Explain {
		r.so.Causal.Explain = env.Explain
	}
	return r, nil
}

// Run runs the analysis up to its scorecard (analysis.Analyze) and writes
// nothing to stdout: the source's inputs, the context checks, the
// analysis, the graph's DOT (--dot). The command renders the card
// (Report); the MCP server's analyze tool returns it. args are the command
// line recorded for the rerun. An error is an *Error: the lines the
// command says and its exit status.
func (r *AnalyzeRun) Run(ctx context.Context, args []string) (*analysis.Run, error) {
	// The team's runbooks are read first: a bad file is said before the
	// data is read and analysed.
	if f := r.o.Output.Runbooks; f != "" {
		data, err := boundedfile.ReadFile(f, r.o.Limits.MaxDocumentBytes, "--max-document-size")
		if err == nil {
			r.runbooks, err = scorecard.ParseRunbooks(data, f)
		}
		if err != nil {
			return nil, Failed("", fmt.Errorf("--runbooks: %w", err))
		}
	}
	// One work directory per run holds every temporary file (the demo, a
	// live fetch without --save-bundle, copies of compressed SQLite
	// exports); it is removed at the end, and on SIGINT/SIGTERM.
	work, err := os.MkdirTemp("", "pipeline-analyze-run-*")
	if err != nil {
		return nil, Failed("", err)
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	src, err := NewSource(&r.o.Live, &r.o.Settings, r.o.Version, work, r.env.Red, r.rep.Say)
	if err == nil {
		r.in, err = src.Open(ctx, args, r.named, &r.so.At, &r.so.Incident)
	}
	if err != nil {
		return nil, sourceError(err)
	}
	defer r.in.Cleanup()
	in := analysis.Inputs{Paths: r.in.Paths, Named: r.named, Stdin: r.env.Stdin, Args: r.in.Args, Warnings: r.in.Warnings,
		Sampling: r.in.Sampling, LiveDir: r.in.TempDir, Live: r.o.Live.Active(), WorkDir: work}
	run, err := analysis.Analyze(ctx, in, r.config())
	if err != nil {
		if errors.Is(err, analysis.ErrUsage) {
			return nil, Usage("", err)
		}
		return nil, Failed("", err)
	}
	if dot := r.o.Output.Dot; dot != "" {
		if err := cliio.WriteFileAtomic(dot, []byte(r.env.Red.Replace(run.Graph.DOT()))); err != nil {
			return nil, Failed("", err)
		}
	}
	r.reportStart = time.Now()
	return run, nil
}

// config is the analysis' configuration of the settings: the stages'
// options, what the user set, the card's options and the progress on
// stderr.
func (r *AnalyzeRun) config() analysis.Config {
	af, of := &r.o.Settings, &r.o.Output
	return analysis.Config{
		Step: af.Step, Limits: r.o.Limits, LogEntity: r.o.LogEntity,
		At: r.so.At, Incident: r.so.Incident, Target: af.Target,
		TargetGiven: r.changed("target"), WindowGiven: r.changed("window"), BaselineGiven: r.changed("baseline"),
		Graph: r.so.Graph, Causal: r.so.Causal, Evidence: r.so.Evidence,
		Card: analysis.CardOptions{Version: r.o.Version, Slice: r.slice, Runbooks: r.runbooks,
			Links: scorecard.StepLinks{JaegerUI: of.JaegerUI, GrafanaURL: of.Grafana, GrafanaDatasource: of.GrafanaDatasource}},
		Progress: analysis.Progress{
			Say:   r.rep.Say,
			Phase: r.rep.Phase,
			StartRead: func(files []string) (func(string, ...any), func()) {
				rp := r.rep.StartRead(files)
				return rp.File, rp.End
			},
			Read: func(b *ingest.Bundle, took time.Duration) { r.rep.Say("%s", analysis.ReadSummary(b, took)) },
		},
	}
}

// Report renders the card and writes it to --export or stdout; an error
// is an *Error.
func (r *AnalyzeRun) Report(card *scorecard.Card) error {
	of, stdout := &r.o.Output, r.env.Stdout
	color := false
	if of.Export == "" && of.Format == "text" {
		color = cliio.IsTerminal(stdout) && os.Getenv("NO_COLOR") == ""
	}
	var sb strings.Builder
	maxChars := of.MaxChars
	if maxChars == 0 {
		maxChars = -1 // 0 on the command line: no bound
	}
	opt := scorecard.RenderOptions{Color: color, Width: 100, TraceURL: of.JaegerUI, Verbose: of.Verbose, Explain: r.Row, MaxChars: maxChars}
	if err := scorecard.Render(&sb, card, of.Format, opt); err != nil {
		if errors.Is(err, scorecard.ErrNoSuchRow) {
			return Usage("", fmt.Errorf("%w: %w", analysis.ErrUsage, err))
		}
		return Failed("render: ", err)
	}
	r.rep.Phase("report", r.reportStart)
	report := r.env.Red.Replace(sb.String()) // no secret leaves the process, whatever a server echoed
	if err := WriteOutput(report, of.Format, of.Export, stdout, r.rep.Say); err != nil {
		return Failed("", err)
	}
	r.rep.PrintPhases()
	return nil
}
