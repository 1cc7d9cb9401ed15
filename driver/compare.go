package driver

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/spf13/pflag"
)

const compareUsage = `pipeline-analyze compare says whether a fix worked: it compares two windows,
BEFORE and AFTER, entity by entity and signal by signal (latency distributions,
errors per request, traffic, metric series), and gives a verdict for the
incident target, for BEFORE's top causes and for everything else: fixed,
improved, unchanged, regressed, changed or insufficient data.

Usage:
  pipeline-analyze compare [flags] BEFORE AFTER
        two inputs (each a file or directory, e.g. a saved bundle); BEFORE's
        window is its incident (--before-at, else its alert, else its largest
        deviation), AFTER's is --after-at or the last --window of its data
  pipeline-analyze compare [flags] --before-at T --after-at T DATA
        two windows of one input
  pipeline-analyze compare [flags] --before-at T --after-at T --jaeger-url URL ...
        two windows of what live sources return: one fetch covers both
        (now = the wall clock at fetch)
  pipeline-analyze compare --canary SELECTOR [--baseline-group SELECTOR] DATA
        canary mode: in one window, the pods SELECTOR picks against the other
        pods of their service (or --baseline-group's), metric by metric
        (errors, latency, CPU, memory, restarts, availability): each pass,
        high or low, a score and a verdict pass, marginal or fail per
        workload. SELECTOR: auto (each service's latest rollout, from
        ScalingReplicaSet events or new pods in the data), version=v2 (a
        version label), pod-template-hash=HASH, or a ReplicaSet or workload
        name. The window: since the canary's first sample (--window: the last
        WINDOW of the data)
  pipeline-analyze compare --canary auto --prometheus-url URL [events.json]
        canary mode on what live sources return for the last --window and
        its baseline (events.json: kubectl get events -o json, for auto)
  pipeline-analyze compare --profile [flags] BASE CAND
        profiler A/B: two PyTorch profiler (Kineto) JSON traces (.json,
        .json.gz) or Nsight Systems SQLite exports, each a file or a
        directory of one file per rank; the step, every layer (NVTX range,
        record_function or nn.Module, else the kernel under its launch
        stack) and every kernel: medians with bootstrap intervals, Welch's t
        on log times under Benjamini–Hochberg, faster / slower / unchanged,
        and the straggler ranks

Examples:
  pipeline-analyze compare incident/ fixed/
  pipeline-analyze compare -o html --export verify.html incident/ fixed/
  pipeline-analyze compare --window 2m --before-at now-2m --after-at now-9m incident/
  pipeline-analyze compare --fail-on regressed incident/ fixed/ || rollback
  pipeline-analyze simulate --fault bad_config_rollout --out rollout
  pipeline-analyze compare --canary auto --fail-on fail rollout
  pipeline-analyze compare --profile base.json.gz cand.json.gz
  pipeline-analyze compare --profile -o html --export ab.html --seed 7 base.json.gz cand.json.gz
  pipeline-analyze compare --profile --fail-on regressed base.json.gz cand.json.gz || echo slower
  kubectl get events -o json > events.json &&
    pipeline-analyze compare --canary auto --prometheus-url http://prometheus:9090 \
      --window 15m -o markdown --export canary.md --fail-on fail events.json
(rollout/ is a simulated bad rollout of the vllm Deployment; incident/ and fixed/
are what "pipeline-analyze simulate --fault tool_api_slow --seed 7 --duration 14m"
writes with --out incident, and with --fixed --out fixed; base.json.gz and
cand.json.gz are two torch.profiler traces, or nsys exports (nsys export --type
sqlite), or directories of one per rank.)

Exit status: 0 ok; 1 input or runtime error; 2 usage error; 3 --fail-on tripped
(regressed: the target or anything regressed; unchanged: also when the target
is not fixed or improved; canary mode: fail, or marginal, for any workload;
--profile: regressed, the step or any layer or kernel slower; unchanged, also
the step not faster); 4 --fail-on given but the target (a canary, the step)
could not be decided (insufficient data).
`

// compareOpts are the compare command's settings (cmdrun.CompareOptions)
// that its flags fill.
type compareOpts = cmdrun.CompareOptions

// newCompareFlags defines the compare command's flags.
func newCompareFlags() (*pflag.FlagSet, *compareOpts) {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SortFlags = false
	c := &compareOpts{Version: version}
	registerAnalysisFlags(fs, &c.Settings)
	_ = fs.MarkHidden("at")         // --before-at / --after-at instead
	_ = fs.MarkHidden("explain")    // the BEFORE analysis is only a source of causes here
	_ = fs.MarkHidden("shape-seed") // the request-shape map's change takes --seed
	d := compare.DefaultOptions()
	c.Options = d
	o := &c.Options
	fs.StringVar(&c.BeforeAt, "before-at", "", "centre of BEFORE's window: RFC3339, a unix epoch, or now-15m (now = end of BEFORE's data); default: its alert's startsAt, else its largest deviation")
	fs.StringVar(&c.AfterAt, "after-at", "", "centre of AFTER's window (now = end of AFTER's data); default: the last --window of AFTER's data")
	fs.Float64Var(&o.Alpha, "alpha", d.Alpha, "false-discovery rate (Benjamini–Hochberg over every test)")
	fs.Float64Var(&o.MinDelta, "min-delta", d.MinDelta, "smallest |Cliff's δ| of a latency location change")
	fs.Float64Var(&o.MinRatio, "min-ratio", d.MinRatio, "smallest relative change of a quantile, metric level or traffic (0.25 = 25%)")
	fs.Float64Var(&o.MinH, "min-h", d.MinH, "smallest Cohen's h of an error-ratio change")
	fs.Float64Var(&o.MinShift, "min-shift", d.MinShift, "smallest metric level change in robust σ of its baseline")
	fs.Uint64Var(&o.Seed, "seed", d.Seed, "block-bootstrap seed (printed in the report; same seed, same intervals)")
	fs.IntVar(&o.Bootstrap, "bootstrap", d.Bootstrap, "block-bootstrap replicates for the quantile intervals")
	fs.IntVar(&o.MinSamples, "min-samples", d.MinSamples, "fewest spans (requests) per side to decide")
	fs.IntVar(&o.MinPoints, "min-points", d.MinPoints, "fewest metric points per side to decide")
	fs.StringVar(&c.ScorecardFile, "scorecard", "", "BEFORE's scorecard (pipeline-analyze -o json) to take the causes from, instead of analysing BEFORE")
	fs.BoolVar(&c.NoCauses, "no-causes", false, "do not analyse BEFORE for its causes")
	fs.IntVar(&c.NCauses, "causes", 5, "how many of BEFORE's top causes get a verdict")
	dc := canary.DefaultOptions()
	c.Canary = dc
	c.Canary.Canary = ""
	fs.StringVar(&c.Canary.Canary, "canary", "", "canary mode: judge the pods that `SELECTOR` picks against their baseline pods in the same minutes: auto (each service's latest rollout), version=v2 (a version label), pod-template-hash=HASH, or a ReplicaSet or workload name")
	fs.StringVar(&c.Canary.Baseline, "baseline-group", "", "canary mode: the baseline pods, as --canary selects (default: the other pods of each canary's service)")
	fs.DurationVar(&c.Canary.Warmup, "warmup", dc.Warmup, "canary mode: skip this long after the canary's first sample")
	fs.Float64Var(&c.Canary.Pass, "pass-score", dc.Pass, "canary mode: the score (0–100) a workload passes with")
	fs.Float64Var(&c.Canary.Marginal, "marginal-score", dc.Marginal, "canary mode: the score below which a workload fails")
	fs.BoolVar(&c.Profile, "profile", false, "profiler A/B: BASE and CAND are PyTorch profiler (Kineto) traces or Nsight Systems SQLite exports, each a file or a directory of one per rank; steps, layers and kernels compared (--alpha, --min-ratio default 0.05, --seed, --bootstrap apply)")
	clihelp.SetGroup(fs, clihelp.GroupAnalysis, "profile", "canary", "baseline-group", "warmup", "pass-score", "marginal-score", "before-at", "after-at", "alpha", "min-delta", "min-ratio", "min-h", "min-shift", "seed", "bootstrap",
		"min-samples", "min-points", "scorecard", "no-causes", "causes")
	fs.StringVarP(&c.Format, "output-format", "o", "text", "report `FORMAT`: text, json, markdown or html")
	fs.StringVar(&c.Export, "export", "", "write the report to `FILE` (atomically) instead of stdout")
	fs.BoolVarP(&c.Quiet, "quiet", "q", false, "no progress on stderr")
	fs.BoolVarP(&c.Verbose, "verbose", "v", false, "also every input file on stderr")
	fs.StringVar(&c.FailOn, "fail-on", "never", "exit 3 when: regressed (the target or anything regressed), unchanged (also when the target is not fixed or improved), never; canary mode: fail (a workload failed), marginal (also marginal), never")
	fs.DurationVar(&o.Slice, "slice", d.Slice, "heatmap time-slice width")
	fs.StringVar(&o.GrafanaURL, "grafana-url", "", "link each watched series' PromQL to Grafana Explore at this `URL`")
	fs.StringVar(&o.GrafanaDatasource, "grafana-datasource", "", "the `UID` of Grafana's Prometheus data source for --grafana-url (default: Grafana's default one)")
	clihelp.SetGroup(fs, clihelp.GroupOutput, "output-format", "export", "quiet", "verbose", "fail-on", "slice", "grafana-url", "grafana-datasource")
	registerLimitFlags(fs, &c.Limits)
	registerLiveFlags(fs, &c.Live)
	return fs, c
}

// runCompare is the compare subcommand: flags over cmdrun.CompareCall
// (compare.Run, or canary.Run) or cmdrun.ProfileReport, the
// report rendered.
func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, c := newCompareFlags()
	if code, ok := parseFlags(fs, args, "compare", func(w io.Writer) { writeHelp(w, commandByName("compare")) }, stdout, stderr); !ok {
		return code
	}
	usage := func(format string, a ...any) int {
		return usageErrorFor(stderr, "compare", fmt.Errorf(format, a...))
	}
	if fs.Changed("at") {
		return usage("compare: use --before-at and --after-at instead of --at")
	}
	if !slices.Contains(compare.Formats(), c.Format) {
		return usage("--output-format %q: want one of %s", c.Format, strings.Join(compare.Formats(), ", "))
	}
	if c.Profile {
		return runProfile(c, fs, args, stdout, stderr)
	}
	cc := cmdrun.CompareCall{Options: c, Changed: fs.Changed, Paths: fs.Args(), Args: args, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	var rep *model.Report
	var err error
	isCanary := fs.Changed("canary")
	if isCanary {
		rep, err = cc.CanaryReport()
	} else {
		rep, err = cc.Report()
	}
	if rep == nil {
		return cmdrun.Exit(stderr, err)
	}
	if err := c.WriteReport(func(w io.Writer, format string) error {
		return compare.Render(w, rep, format, compare.RenderOptions{Width: 100})
	}, stdout, stderr); err != nil {
		return cmdrun.Exit(stderr, err)
	}
	if isCanary {
		return canary.FailOn(rep, c.FailOn)
	}
	return compare.FailOn(rep, c.FailOn)
}
