package driver

import (
	"context"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
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

// outputFlags select and place the report (cmdrun.Output): each tagged
// field is a flag (see flags.go), its default in cmdrun.DefaultOutput,
// its help in outputHelp.
type outputFlags = cmdrun.Output

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

// registerOutputFlags fills o with the defaults and defines its flags.
func registerOutputFlags(fs *pflag.FlagSet, o *outputFlags) {
	*o = cmdrun.DefaultOutput()
	registerFields(fs, o, outputHelp, clihelp.GroupOutput)
}

// analyzeOpts are the analysis command's settings (cmdrun.AnalyzeOptions)
// that its flags fill.
type analyzeOpts = cmdrun.AnalyzeOptions

// newAnalyzeFlags defines the analysis command's flags.
func newAnalyzeFlags() (*pflag.FlagSet, *analyzeOpts) {
	fs := pflag.NewFlagSet("pipeline-analyze", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &analyzeOpts{Version: version}
	registerAnalysisFlags(fs, &o.Settings)
	registerLimitFlags(fs, &o.Limits)
	fs.StringVar(&o.LogEntity, "log-entity", "", "`ENTITY` of log files whose data names none (kubectl logs output): pod/NAME, service/NAME or NAME")
	clihelp.SetGroup(fs, clihelp.GroupInputs, "log-entity")
	registerLiveFlags(fs, &o.Live)
	registerOutputFlags(fs, &o.Output)
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

// runAnalyze is the analysis command: the flags, then the steps of a
// cmdrun.AnalyzeRun (inputs, context checks, analysis, report).
func runAnalyze(args []string, env cmdEnv) int { return runAnalyzeRow(args, env, 0) }

// runAnalyzeRow is the analysis command; row > 0 renders only that row of
// the card in detail (explain).
func runAnalyzeRow(args []string, env cmdEnv, row int) int {
	stdout, stderr := env.stdout, env.stderr
	fs, o := newAnalyzeFlags()
	if code, ok := parseFlags(fs, args, "", func(w io.Writer) { writeHelp(w, commandByName("")) }, stdout, stderr); !ok {
		return code
	}
	af, of, lf := &o.Settings, &o.Output, &o.Live
	if of.Version {
		fmt.Fprintf(stdout, "pipeline-analyze %s\n", version)
		return 0
	}
	r, err := cmdrun.NewAnalyzeRun(env.command(), o, fs.Changed, fs.Args(), &progress.Reporter{Out: stderr, Terminal: env.tty, Quiet: of.Quiet, Verbose: of.Verbose})
	if err != nil {
		return usageError(stderr, err)
	}
	r.Row = row
	if row > 0 && of.Format != "text" && of.Format != "markdown" {
		return usageErrorFor(stderr, "explain", fmt.Errorf("-o %s: explain writes text or markdown (the JSON and HTML reports hold every row)", of.Format))
	}
	if lf.ListQueries {
		return cmdrun.Exit(stderr, lf.List(stdout, af.Step))
	}
	if err := cliio.CheckOutputs(fs.Args(), of.Export, of.Dot, lf.SaveBundle); err != nil {
		return usageError(stderr, err)
	}
	run, err := r.Run(context.Background(), args)
	if err != nil {
		return cmdrun.Exit(stderr, err)
	}
	card := run.Card
	if err := r.Report(card); err != nil {
		return cmdrun.Exit(stderr, err)
	}
	if scorecard.GateTripped(card, of.FailOn) {
		return 3
	}
	return 0
}

// command is the environment of a command's run (package cmdrun): the
// streams but stderr, which takes what the run says (its progress, and
// cmdrun.Exit's lines).
func (env cmdEnv) command() cmdrun.Env {
	return cmdrun.Env{Stdin: env.stdin, Stdout: env.stdout, Explain: env.explain, Red: env.red}
}
