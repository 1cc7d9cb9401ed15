package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
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
  pipeline-analyze -v -o markdown --export ticket.md --jaeger-ui-url http://jaeger:16686 incident/
(incident/ is what "pipeline-analyze simulate --fault tool_api_slow --seed 7 --duration 14m
--out incident" writes.)

Exit status: 0 ok; 1 input or runtime error; 2 usage error; 3 a cause of at
least --fail-on severity was found.
`

// outputFlags select and place the report. Each tagged field is a flag
// (see flags.go): its default is in defaultOutputFlags, its help in
// outputHelp.
type outputFlags struct {
	Format   string `flag:"output-format" short:"o"`
	Export   string `flag:"export"`
	Quiet    bool   `flag:"quiet" short:"q"`
	Verbose  bool   `flag:"verbose" short:"v"`
	Version  bool   `flag:"version"`
	FailOn   string `flag:"fail-on"`
	Slice    string `flag:"slice"`
	Dot      string `flag:"dot"`
	JaegerUI string `flag:"jaeger-ui-url"`
}

// defaultOutputFlags are the output defaults.
func defaultOutputFlags() outputFlags {
	return outputFlags{Format: "text", FailOn: "never", Slice: "30s"}
}

// outputHelp is the help of each output flag.
var outputHelp = map[string]string{
	"output-format": "report `FORMAT`: text, json, markdown or html",
	"export":        "write the report to `FILE` (atomically) instead of stdout",
	"quiet":         "no progress on stderr",
	"verbose":       "also every input file and the time of each phase on stderr",
	"version":       "print the version and exit",
	"fail-on":       "exit 3 when a cause of at least this `SEVERITY` is found: critical, warning or never",
	"slice":         "heatmap time-slice `WIDTH`",
	"dot":           "also write the temporal causal graph in Graphviz DOT to `FILE`",
	"jaeger-ui-url": "link trace IDs in HTML and Markdown reports to this Jaeger UI (`URL`/trace/ID)",
}

// register fills o with the defaults and defines its flags.
func (o *outputFlags) register(fs *pflag.FlagSet) {
	*o = defaultOutputFlags()
	registerFields(fs, o, outputHelp, groupOutput)
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
	o.af.register(fs)
	registerLimitFlags(fs, &o.lim)
	fs.StringVar(&o.logEntity, "log-entity", "", "`ENTITY` of log files whose data names none (kubectl logs output): pod/NAME, service/NAME or NAME")
	setGroup(fs, groupInputs, "log-entity")
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
	red     *redactor
}

// runAnalyze is the analysis command.
func runAnalyze(args []string, env cmdEnv) int {
	stdout, stderr, red := env.stdout, env.stderr, env.red
	fs, o := newAnalyzeFlags()
	if code, ok := parseFlags(fs, args, "", func(w io.Writer) { writeHelp(w, commandByName("")) }, stdout, stderr); !ok {
		return code
	}
	af, of, lf := &o.af, &o.of, &o.lf
	if of.Version {
		fmt.Fprintf(stdout, "pipeline-analyze %s\n", version)
		return 0
	}
	rep := &reporter{w: stderr, raw: env.tty, quiet: of.Quiet, verbose: of.Verbose}
	progress := rep.say
	slice, err := checkOutputFlags(of)
	if err != nil {
		return usageError(stderr, err)
	}
	so, err := af.options()
	if err != nil {
		return usageError(stderr, err)
	}
	spec, at, topt, copt := so.spec, so.at, so.graph, so.causal
	if af.Explain {
		copt.Explain = env.explain
	}
	if lf.ListQueries {
		return lf.list(stdout, stderr, af.Step)
	}
	if err := checkOutputs(fs.Args(), of.Export, of.Dot, lf.SaveBundle); err != nil {
		return usageError(stderr, err)
	}
	// One work directory per run holds every temporary file (the demo, a
	// live fetch without --save-bundle, copies of compressed SQLite
	// exports); it is removed at the end, and on SIGINT/SIGTERM.
	work, err := os.MkdirTemp("", "pipeline-analyze-run-*")
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	untrack := trackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	lr, err := newSource(lf, af, work, red, progress).open(context.Background(), args, fs.Args(), &at, &spec)
	if err != nil {
		return liveExit(stderr, err)
	}
	defer lr.cleanup()
	paths, shown := lr.paths, fs.Args()
	demo := ""
	if len(paths) == 0 {
		dir, err := os.MkdirTemp(work, "demo-*")
		if err != nil {
			sayErr(stderr, "", err)
			return 1
		}
		fault, seed, err := writeDemo(dir)
		if err != nil {
			sayErr(stderr, "demo: ", err)
			return 1
		}
		progress("no input given: analysing the embedded demo incident (simulated fault %q, seed %d)", fault, seed)
		demo = fmt.Sprintf("This is the embedded demo: a simulated %s incident (pipeline-analyze simulate --fault %s --seed %d). "+
			"Run on your own data with: pipeline-analyze [flags] PATH... (see --help).", fault, fault, seed)
		paths, shown = []string{dir}, []string{"demo"}
	}
	t0 := time.Now()
	files, _ := ingest.ExpandPaths(paths)
	rp := rep.startRead(files)
	b, err := ingest.Read(paths, env.stdin, ingest.Options{Step: af.Step, Progress: rp.callback, Limits: o.lim, LogEntity: o.logEntity, TempDir: work})
	rp.end()
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	rep.phase("read", t0)
	if demo != "" {
		relabelInputs(b, paths[0], "demo")
	}
	if lr.tempDir != "" {
		relabelInputs(b, lr.tempDir, "live")
	}
	progress("%s", readSummary(b, time.Since(t0)))
	if err := checkTelemetry(b, shown); err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	b.Warnings = append(b.Warnings, lr.warnings...)
	var notes []string
	if fs.Changed("target") {
		if err := checkTarget(b, spec.Target, af.Target); err != nil {
			if !lf.active() {
				return usageError(stderr, err)
			}
			// Live data is what the servers returned, not what was typed
			// against: a failed query can leave the target out. Say so.
			notes = append(notes, strings.TrimPrefix(err.Error(), errUsage.Error()+": ")+" (in what the live sources returned)")
		}
	}
	if err := checkAt(b, at); err != nil {
		return usageError(stderr, err)
	}
	t1 := time.Now()
	inc, err := resolveIncident(b, spec, at)
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	windowNotes, err := checkWindow(b, af.timeFlags(fs, at), inc)
	if err != nil {
		return usageError(stderr, err)
	}
	notes = append(notes, windowNotes...)
	for _, n := range notes {
		progress("note: %s", n)
	}
	an, err := analyzeIncident(b, inc, topt, copt)
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	// The evidence step: what the raw bundle says about the ranked causes,
	// gathered once so that the scorecard only renders.
	ev := evidence.Collect(b, an.graph, an.result, evidence.Options{})
	rep.phase("analyse", t1)
	progress("analysed %d nodes, %d edges, %d anomalous; %d candidates", len(an.graph.Nodes), len(an.graph.Edges), an.graph.AnomalousCount(), an.result.Total)
	if of.Dot != "" {
		if err := writeFileAtomic(of.Dot, []byte(red.replace(an.graph.DOT()))); err != nil {
			sayErr(stderr, "", err)
			return 1
		}
	}
	t2 := time.Now()
	card := scorecard.Build(an.graph, an.result, ev, scorecard.BuildOptions{
		Version: version, Args: lr.args, Slice: slice, Demo: demo,
	})
	for _, n := range notes {
		card.AddWarning(scorecard.Footnote{Kind: "context", Source: "flags", Count: 1, Message: n})
	}
	lr.annotate(card)
	if demo != "" { // the demo's temporary directory must not reach the report
		inc := &card.Incident
		inc.TargetChosenBy = strings.ReplaceAll(inc.TargetChosenBy, paths[0], "demo")
		inc.AtChosenBy = strings.ReplaceAll(inc.AtChosenBy, paths[0], "demo")
	}
	color := false
	if of.Export == "" && of.Format == "text" {
		color = isTerminal(stdout) && os.Getenv("NO_COLOR") == ""
	}
	var sb strings.Builder
	if err := scorecard.Render(&sb, card, of.Format, scorecard.RenderOptions{Color: color, Width: 100, TraceURL: of.JaegerUI}); err != nil {
		sayErr(stderr, "render: ", err)
		return 1
	}
	rep.phase("report", t2)
	report := red.replace(sb.String()) // no secret leaves the process, whatever a server echoed
	if of.Export != "" {
		if err := writeFileAtomic(of.Export, []byte(report)); err != nil {
			sayErr(stderr, "", err)
			return 1
		}
		progress("wrote %s (%s)", of.Export, of.Format)
	} else if _, err := io.WriteString(stdout, report); err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	rep.printPhases()
	if failOnHit(card, of.FailOn) {
		return 3
	}
	return 0
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
			didYouMean(of.Format, scorecard.Formats(), nil))
	}
	switch of.FailOn {
	case "never", "warning", "critical":
	default:
		return 0, fmt.Errorf("--fail-on %q: want critical, warning or never", of.FailOn)
	}
	slice, err := time.ParseDuration(of.Slice)
	if err != nil || slice <= 0 {
		return 0, fmt.Errorf("--slice %q: want a positive duration like 30s", of.Slice)
	}
	if u := of.JaegerUI; u != "" {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return 0, fmt.Errorf("--jaeger-ui-url %q: want an http(s) URL such as http://jaeger:16686", u)
		}
	}
	return slice, nil
}

// analysis is one run of the pipeline on a bundle.
type analysis struct {
	inc    tcg.Incident
	graph  *tcg.Graph
	result *causal.Result
}

// analyzeBundle resolves the incident, builds the graph and ranks causes.
func analyzeBundle(b *ingest.Bundle, spec tcg.IncidentSpec, at timeSpec, topt tcg.Options, copt causal.Options) (*analysis, error) {
	inc, err := resolveIncident(b, spec, at)
	if err != nil {
		return nil, err
	}
	return analyzeIncident(b, inc, topt, copt)
}

// resolveIncident fills the incident's target and times (tcg.ResolveIncident)
// with --at resolved against the end of the data.
func resolveIncident(b *ingest.Bundle, spec tcg.IncidentSpec, at timeSpec) (tcg.Incident, error) {
	spec.At = at.resolve(b.End)
	return tcg.ResolveIncident(b, spec)
}

// analyzeIncident builds the graph of a resolved incident and ranks causes.
func analyzeIncident(b *ingest.Bundle, inc tcg.Incident, topt tcg.Options, copt causal.Options) (*analysis, error) {
	// Log templates are new, missing or shifted relative to the incident's
	// own baseline, known only now.
	b.DeriveLogSeries(inc.BaselineStart, inc.WindowStart)
	g, err := tcg.Build(b, inc, topt)
	if err != nil {
		return nil, err
	}
	res, err := causal.Analyze(g, b, copt)
	if err != nil {
		return nil, err
	}
	return &analysis{inc: inc, graph: g, result: res}, nil
}

// usageError writes a usage error of the analysis command in one line and
// returns 2.
func usageError(stderr io.Writer, err error) int { return usageErrorFor(stderr, "", err) }

// failOnHit reports whether a cause reaches the --fail-on severity.
func failOnHit(c *scorecard.Card, failOn string) bool {
	if failOn == "never" {
		return false
	}
	for _, cause := range c.Causes {
		switch {
		case cause.Severity == scorecard.SeverityCritical:
			return true
		case failOn == "warning" && cause.Severity == scorecard.SeverityWarning:
			return true
		}
	}
	return false
}

// relabelInputs shows a temporary directory's paths (the demo's, or a live
// fetch's without --save-bundle) as prefix/<file>, so reports do not carry
// random paths and the demo's report is the same on every run.
func relabelInputs(b *ingest.Bundle, dir, prefix string) {
	b.RelabelSources(func(s string) string {
		if rel, err := filepath.Rel(dir, s); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(filepath.Join(prefix, rel))
		}
		return s
	})
}

// writeFileAtomic writes data to a temp file beside path, syncs it to disk
// and renames it over path (then syncs the directory), so an interrupted run
// or a crash never leaves a half-written file. The temp file is removed on
// SIGINT/SIGTERM.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The error names the temporary file's pattern; say what it means
		// for the file asked for.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: directory %s does not exist", path, dir)
		}
		return fmt.Errorf("write %s: cannot create a file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	untrack := trackTemp(tmp)
	defer untrack()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename itself is durable once the directory is synced
		d.Close()
	}
	return nil
}

// checkOutputs refuses output files that are inputs: an --export or --dot
// path that is one of the input files (compared as device and inode, so a
// symlink, a hard link or "./x" and "x" are caught), that lies inside
// --save-bundle, or --export and --dot naming the same file.
func checkOutputs(paths []string, outs ...string) error {
	files, _ := ingest.ExpandPaths(paths) // unreadable paths are Read's to report
	export, dot, bundle := outs[0], outs[1], outs[2]
	for _, o := range []struct{ flag, path string }{{"--export", export}, {"--dot", dot}} {
		if o.path == "" {
			continue
		}
		if err := checkOutputDir(o.flag, o.path); err != nil {
			return err
		}
		st, err := os.Stat(o.path)
		if err != nil {
			continue // a new file cannot be an input
		}
		if st.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		for _, f := range files {
			if f == "-" {
				continue
			}
			if fi, err := os.Stat(f); err == nil && os.SameFile(st, fi) {
				return fmt.Errorf("%s %s: is the input %s; refusing to overwrite an input", o.flag, o.path, f)
			}
		}
		if bundle != "" {
			if rel, err := filepath.Rel(bundle, o.path); err == nil && !strings.HasPrefix(rel, "..") {
				return fmt.Errorf("%s %s: is inside --save-bundle %s, which is replaced by the fetch", o.flag, o.path, bundle)
			}
		}
	}
	if export != "" && dot != "" {
		a, errA := os.Stat(export)
		b, errB := os.Stat(dot)
		if filepath.Clean(export) == filepath.Clean(dot) || errA == nil && errB == nil && os.SameFile(a, b) {
			return fmt.Errorf("--export and --dot name the same file %s", export)
		}
	}
	return nil
}

// checkOutputDir refuses an output file whose directory does not exist or
// is not a directory, before anything is read.
func checkOutputDir(flag, path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	return nil
}

// isTerminal reports whether w is a character device (a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
