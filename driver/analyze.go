package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/spf13/pflag"
)

const analyzeUsage = `pipeline-analyze finds the root cause of an incident in an LLM-serving or
microservice system from Jaeger/OTLP traces, Prometheus query_range files,
GPU data (NVML recordings, nvidia-smi, DCGM, Nsight, Kineto), Kubernetes
events, logs and the Alertmanager payload that fired.

Usage:
  pipeline-analyze [flags] PATH...   analyse files and directories (recursed; - = stdin)
  pipeline-analyze                   analyse the embedded demo incident
  pipeline-analyze COMMAND [flags]   one of the commands below
%s
Formats are sniffed by content; .gz is read transparently. --target, --at
and --window are checked against the data before the analysis: a service,
signal or time the data does not hold is refused (exit 2) with what it holds.

Examples:
  pipeline-analyze incident/
  pipeline-analyze --window 5m --output-format html --export scorecard.html incident/
  pipeline-analyze --at 2026-11-30T02:12:00Z --target api-gateway:latency:p99 incident/
  pipeline-analyze --at now-5m -o json incident/ | jq .causes[0]
  pipeline-analyze --method baro incident/           # the BARO baseline, for comparison
  pipeline-analyze --fail-on critical incident/ || page-someone
  pipeline-analyze --fail-on abstain incident/ || page-someone   # also when no cause is confident
  pipeline-analyze -v incident/                      # the first screen, then every detail
  pipeline-analyze explain 2 incident/               # the second row in detail
  pipeline-analyze -o markdown --max-chars 20000 --export ticket.md incident/
  pipeline-analyze -v -o markdown --export ticket.md --jaeger-ui-url http://jaeger:16686 incident/
(incident/ is what "pipeline-analyze simulate --fault tool_api_slow --seed 7 --duration 14m
--out incident" writes.)

The text card's first screen (about sixty lines) is the incident, the verdict,
what changed and the ranked components, one row each; -v adds every cause's
evidence, path and steps, the heatmaps, footnotes, inputs and checksums.

Exit status: 0 ok; 1 input or runtime error; 2 usage error; 3 a cause of at
least --fail-on severity was found (--fail-on abstain: also when the card
abstains, so that an incident with no confident cause still pages).
`

// outputFlags select and place the report. Each tagged field is a flag
// (see flags.go): its default is in defaultOutputFlags, its help in
// outputHelp.
type outputFlags struct {
	Format            string `flag:"output-format" short:"o"`
	Export            string `flag:"export"`
	Quiet             bool   `flag:"quiet" short:"q"`
	Verbose           bool   `flag:"verbose" short:"v"`
	Version           bool   `flag:"version"`
	FailOn            string `flag:"fail-on"`
	Slice             string `flag:"slice"`
	Dot               string `flag:"dot"`
	JaegerUI          string `flag:"jaeger-ui-url"`
	Grafana           string `flag:"grafana-url"`
	GrafanaDatasource string `flag:"grafana-datasource"`
	Runbooks          string `flag:"runbooks"`
	MaxChars          int    `flag:"max-chars"`
}

// defaultOutputFlags are the output defaults.
func defaultOutputFlags() outputFlags {
	return outputFlags{Format: "text", FailOn: "never", Slice: "30s", MaxChars: scorecard.DefaultMaxChars}
}

// outputHelp is the help of each output flag.
var outputHelp = map[string]string{
	"runbooks":           "the team's runbooks `FILE` (YAML or JSON): steps and links per service, signal and component kind, before (or instead of) the card's built-in next steps",
	"output-format":      "report `FORMAT`: text, json, markdown or html",
	"export":             "write the report to `FILE` (atomically) instead of stdout",
	"quiet":              "no progress on stderr",
	"verbose":            "the whole card after its first screen (every cause's evidence, path and steps, heatmaps, footnotes, inputs, rerun), and every input file and the time of each phase on stderr",
	"max-chars":          "bound the Markdown report to `N` characters (details folded, then cut, with a note); 0: no bound",
	"version":            "print the version and exit",
	"fail-on":            "exit 3 when a cause of at least this `SEVERITY` is found: critical, warning, abstain (critical, or no confident cause: the card abstains) or never",
	"slice":              "heatmap time-slice `WIDTH`",
	"dot":                "also write the temporal causal graph in Graphviz DOT to `FILE`",
	"jaeger-ui-url":      "link trace IDs in HTML and Markdown reports to this Jaeger UI (`URL`/trace/ID), and next steps to its searches",
	"grafana-url":        "link each next step's PromQL to Grafana Explore at this `URL` over the baseline and window",
	"grafana-datasource": "the `UID` of Grafana's Prometheus data source for --grafana-url (default: Grafana's default one)",
}

// register fills o with the defaults and defines its flags.
func (o *outputFlags) register(fs *pflag.FlagSet) {
	*o = defaultOutputFlags()
	registerFields(fs, o, outputHelp, clihelp.GroupOutput)
}

// analyzeOpts are the analysis command's flags.
type analyzeOpts struct {
	af        analysisFlags
	of        outputFlags
	lf        liveFlags
	lim       ingest.Limits
	logEntity string
}

// newAnalyzeFlags defines the analysis command's flags.
func newAnalyzeFlags() (*pflag.FlagSet, *analyzeOpts) {
	fs := pflag.NewFlagSet("pipeline-analyze", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &analyzeOpts{}
	registerAnalysisFlags(fs, &o.af)
	registerLimitFlags(fs, &o.lim)
	fs.StringVar(&o.logEntity, "log-entity", "", "`ENTITY` of log files whose data names none (kubectl logs output): pod/NAME, service/NAME or NAME")
	clihelp.SetGroup(fs, clihelp.GroupInputs, "log-entity")
	o.lf.register(fs)
	o.of.register(fs)
	return fs, o
}

// cmdEnv is what a command runs with: the standard streams (stderr the
// safe writer), the safe writer without the line cut (for --explain), the
// raw terminal for the live progress line (nil when stderr is not one) and
// the redactor that receives the live flags' secrets.
type cmdEnv struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	explain io.Writer
	tty     io.Writer
	red     *cliio.Redactor
}

// runAnalyze is the analysis command: the flags, then the steps of an
// analyzeRun (inputs, context checks, analysis, report).
func runAnalyze(args []string, env cmdEnv) int { return runAnalyzeRow(args, env, 0) }

// runAnalyzeRow is the analysis command; row > 0 renders only that row of
// the card in detail (explain).
func runAnalyzeRow(args []string, env cmdEnv, row int) int {
	stdout, stderr := env.stdout, env.stderr
	fs, o := newAnalyzeFlags()
	if code, ok := parseFlags(fs, args, "", func(w io.Writer) { writeHelp(w, commandByName("")) }, stdout, stderr); !ok {
		return code
	}
	af, of, lf := &o.af, &o.of, &o.lf
	if of.Version {
		fmt.Fprintf(stdout, "pipeline-analyze %s\n", version)
		return 0
	}
	r, err := newAnalyzeRun(env, o, fs.Changed, fs.Args(), &progress.Reporter{Out: stderr, Terminal: env.tty, Quiet: of.Quiet, Verbose: of.Verbose})
	if err != nil {
		return usageError(stderr, err)
	}
	r.explain = row
	if row > 0 && of.Format != "text" && of.Format != "markdown" {
		return usageErrorFor(stderr, "explain", fmt.Errorf("-o %s: explain writes text or markdown (the JSON and HTML reports hold every row)", of.Format))
	}
	if lf.ListQueries {
		return lf.list(stdout, stderr, af.Step)
	}
	if err := cliio.CheckOutputs(fs.Args(), of.Export, of.Dot, lf.SaveBundle); err != nil {
		return usageError(stderr, err)
	}
	run, err := r.run(context.Background(), args)
	if err != nil {
		return exitCode(err)
	}
	card := run.Card
	if err := r.report(card); err != nil {
		return exitCode(err)
	}
	if scorecard.GateTripped(card, of.FailOn) {
		return 3
	}
	return 0
}

// analyzeRun is one run of the analysis command, between its steps.
type analyzeRun struct {
	env     cmdEnv
	o       *analyzeOpts
	changed func(flag string) bool // whether the user set a flag
	named   []string               // the inputs as the user named them (the positional arguments)
	rep     *progress.Reporter
	slice   time.Duration
	so      stageOptions
	in      *analysis.Opened // what the source delivered
	// runbooks are the team's runbooks (--runbooks), read before the data.
	runbooks []scorecard.Runbook
	// explain is the row `explain N` renders (0: the whole card).
	explain int

	reportStart time.Time // the report phase's start, for -v
}

// newAnalyzeRun checks the output flags and turns the analysis flags into
// the stages' options; an error is a usage error (not yet reported).
// changed says whether the user set a flag; named are the inputs as the
// user named them.
func newAnalyzeRun(env cmdEnv, o *analyzeOpts, changed func(string) bool, named []string, rep *progress.Reporter) (*analyzeRun, error) {
	r := &analyzeRun{env: env, o: o, changed: changed, named: named, rep: rep}
	if err := exportFormat(&o.of, changed("output-format")); err != nil {
		return nil, err
	}
	var err error
	if r.slice, err = checkOutputFlags(&o.of); err != nil {
		return nil, err
	}
	if r.so, err = o.af.Stages(); err != nil {
		return nil, err
	}
	if o.af.Explain {
		r.so.Causal.Explain = env.explain
	}
	return r, nil
}

// run runs the analysis up to its scorecard (analysis.Analyze) and writes
// nothing to stdout: the source's inputs, the context checks, the
// analysis, the graph's DOT (--dot). The command renders the card
// (report); the MCP server's analyze tool returns it. args are the command
// line recorded for the rerun. An error has been reported on r.env.stderr
// and carries its exit status (exitCode).
func (r *analyzeRun) run(ctx context.Context, args []string) (*analysis.Run, error) {
	// The team's runbooks are read first: a bad file is said before the
	// data is read and analysed.
	if f := r.o.of.Runbooks; f != "" {
		data, err := boundedfile.ReadFile(f, r.o.lim.MaxDocumentBytes, "--max-document-size")
		if err == nil {
			r.runbooks, err = scorecard.ParseRunbooks(data, f)
		}
		if err != nil {
			return nil, r.fail("", fmt.Errorf("--runbooks: %w", err))
		}
	}
	// One work directory per run holds every temporary file (the demo, a
	// live fetch without --save-bundle, copies of compressed SQLite
	// exports); it is removed at the end, and on SIGINT/SIGTERM.
	work, err := os.MkdirTemp("", "pipeline-analyze-run-*")
	if err != nil {
		return nil, r.fail("", err)
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	src, err := newSource(&r.o.lf, &r.o.af, work, r.env.red, r.rep.Say)
	if err == nil {
		r.in, err = src.Open(ctx, args, r.named, &r.so.At, &r.so.Incident)
	}
	if err != nil {
		return nil, reported(liveExit(r.env.stderr, err))
	}
	defer r.in.Cleanup()
	in := analysis.Inputs{Paths: r.in.Paths, Named: r.named, Stdin: r.env.stdin, Args: r.in.Args, Warnings: r.in.Warnings,
		Sampling: r.in.Sampling, LiveDir: r.in.TempDir, Live: r.o.lf.active(), WorkDir: work}
	run, err := analysis.Analyze(ctx, in, r.config())
	if err != nil {
		if errors.Is(err, errUsage) {
			return nil, r.usage(err)
		}
		return nil, r.fail("", err)
	}
	if dot := r.o.of.Dot; dot != "" {
		if err := cliio.WriteFileAtomic(dot, []byte(r.env.red.Replace(run.Graph.DOT()))); err != nil {
			return nil, r.fail("", err)
		}
	}
	r.reportStart = time.Now()
	return run, nil
}

// config is the analysis' configuration of the flags: the stages' options,
// what the user set, the card's options and the progress on stderr.
func (r *analyzeRun) config() analysis.Config {
	af, of := &r.o.af, &r.o.of
	return analysis.Config{
		Step: af.Step, Limits: r.o.lim, LogEntity: r.o.logEntity,
		At: r.so.At, Incident: r.so.Incident, Target: af.Target,
		TargetGiven: r.changed("target"), WindowGiven: r.changed("window"), BaselineGiven: r.changed("baseline"),
		Graph: r.so.Graph, Causal: r.so.Causal, Evidence: r.so.Evidence,
		Card: analysis.CardOptions{Version: version, Slice: r.slice, Runbooks: r.runbooks,
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

// reported is an error already written to stderr: the command exits with
// its code.
type reported int

func (r reported) Error() string { return fmt.Sprintf("exit status %d", int(r)) }

// exitCode is the exit status of a step's error.
func exitCode(err error) int {
	var r reported
	if errors.As(err, &r) {
		return int(r)
	}
	return 1
}

// fail reports err (after prefix) and returns the error of exit status 1.
func (r *analyzeRun) fail(prefix string, err error) error {
	cliio.SayErr(r.env.stderr, prefix, err)
	return reported(1)
}

// usage reports a usage error and returns the error of exit status 2.
func (r *analyzeRun) usage(err error) error { return reported(usageError(r.env.stderr, err)) }

// report renders the card and writes it to --export or stdout.
func (r *analyzeRun) report(card *scorecard.Card) error {
	of, stdout := &r.o.of, r.env.stdout
	color := false
	if of.Export == "" && of.Format == "text" {
		color = cliio.IsTerminal(stdout) && os.Getenv("NO_COLOR") == ""
	}
	var sb strings.Builder
	maxChars := of.MaxChars
	if maxChars == 0 {
		maxChars = -1 // 0 on the command line: no bound
	}
	opt := scorecard.RenderOptions{Color: color, Width: 100, TraceURL: of.JaegerUI, Verbose: of.Verbose, Explain: r.explain, MaxChars: maxChars}
	if err := scorecard.Render(&sb, card, of.Format, opt); err != nil {
		if errors.Is(err, scorecard.ErrNoSuchRow) {
			return r.usage(fmt.Errorf("%w: %w", errUsage, err))
		}
		return r.fail("render: ", err)
	}
	r.rep.Phase("report", r.reportStart)
	report := r.env.red.Replace(sb.String()) // no secret leaves the process, whatever a server echoed
	if err := writeOutput(report, of.Format, of.Export, stdout, r.rep.Say); err != nil {
		return r.fail("", err)
	}
	r.rep.PrintPhases()
	return nil
}

// checkOutputFlags checks -o, --fail-on, --slice and --jaeger-ui-url and
// returns the slice width.
func checkOutputFlags(of *outputFlags) (time.Duration, error) {
	okFormat := false
	for _, f := range scorecard.Formats() {
		okFormat = okFormat || f == of.Format
	}
	if !okFormat {
		return 0, fmt.Errorf("--output-format %q: want one of %s%s", of.Format, strings.Join(scorecard.Formats(), ", "),
			suggest.DidYouMean(of.Format, scorecard.Formats(), nil))
	}
	switch of.FailOn {
	case "never", "warning", "critical", "abstain":
	default:
		return 0, fmt.Errorf("--fail-on %q: want critical, warning, abstain or never", of.FailOn)
	}
	if of.MaxChars < 0 {
		return 0, fmt.Errorf("--max-chars %d: want a positive number of characters, or 0 for no bound", of.MaxChars)
	}

	slice, err := time.ParseDuration(of.Slice)
	if err != nil || slice <= 0 {
		return 0, fmt.Errorf("--slice %q: want a positive duration like 30s", of.Slice)
	}
	if err := checkUIURL("jaeger-ui-url", of.JaegerUI, "http://jaeger:16686"); err != nil {
		return 0, err
	}
	if err := checkGrafana(of.Grafana, of.GrafanaDatasource); err != nil {
		return 0, err
	}
	return slice, nil
}

// checkUIURL checks a flag naming a UI's base URL: empty, or http(s) with
// a host.
func checkUIURL(flag, value, example string) error {
	if value == "" {
		return nil
	}
	pu, err := url.Parse(value)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return fmt.Errorf("--%s %q: want an http(s) URL such as %s", flag, value, example)
	}
	return nil
}

// checkGrafana checks --grafana-url and --grafana-datasource.
func checkGrafana(u, datasource string) error {
	if err := checkUIURL("grafana-url", u, "https://grafana.example.com"); err != nil {
		return err
	}
	if datasource != "" && u == "" {
		return fmt.Errorf("--grafana-datasource needs --grafana-url (the Grafana it belongs to)")
	}
	return nil
}

// exportFormat checks --export's extension against -o: without -o the
// format follows the extension (report.html is HTML); with a -o that
// contradicts it, the run is refused rather than writing text into an
// .html file. An extension the table does not know decides nothing.
func exportFormat(of *outputFlags, formatGiven bool) error {
	if of.Export == "" {
		return nil
	}
	want, ok := reportfmt.FormatOfFile(of.Export)
	switch {
	case !ok || want == of.Format:
		return nil
	case !formatGiven:
		of.Format = want
		return nil
	}
	return fmt.Errorf("--export %s is %s by its extension but -o is %s: give -o %s, or an export file ending in %s",
		of.Export, want, of.Format, want, reportfmt.Ext(of.Format))
}
