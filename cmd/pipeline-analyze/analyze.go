package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"github.com/spf13/pflag"
)

const analyzeUsage = `pipeline-analyze finds the root cause of an incident in an LLM-serving or
microservice system from Jaeger/OTLP traces, Prometheus query_range files,
GPU data (NVML recordings, nvidia-smi, DCGM, Nsight, Kineto), Kubernetes
events and the Alertmanager payload that fired.

Usage:
  pipeline-analyze [flags] PATH...        analyse files and directories (recursed; - = stdin)
  pipeline-analyze                        analyse the embedded demo incident
  pipeline-analyze eval [flags] DIR...    accuracy on labelled cases (label.json)
  pipeline-analyze simulate [flags]       write simulated incidents with ground truth
  pipeline-analyze compare [flags] BEFORE AFTER  did the fix work? verdicts before vs after
  pipeline-analyze record-gpu [flags]     record NVML samples of every GPU

Formats are sniffed by content; .gz is read transparently.

Examples:
  pipeline-analyze ./incident/
  pipeline-analyze --window 5m --output-format html --export scorecard.html ./incident/
  pipeline-analyze --at 2026-11-30T03:12:00Z --target chat-api:latency:p99 traces.json metrics/
  pipeline-analyze --at now-15m -o json traces.json.gz prom/ | jq .causes[0]
  pipeline-analyze --method baro ./incident/           # the BARO baseline, for comparison
  pipeline-analyze --fail-on critical ./incident/ || page-someone

Exit status: 0 ok; 1 input or runtime error; 2 usage error; 3 a cause of at
least --fail-on severity was found.

Flags:
`

// outputFlags select and place the report.
type outputFlags struct {
	format  string
	export  string
	quiet   bool
	version bool
	failOn  string
	slice   string
	dot     string
}

// runAnalyze is the analysis command. stderr is the safe (redacting,
// escaping, line-cutting) writer; explain is the same without the line cut,
// for --explain's long lines; red holds the secrets of the live flags.
func runAnalyze(args []string, stdin io.Reader, stdout, stderr, explain io.Writer, red *redactor) int {
	fs := pflag.NewFlagSet("pipeline-analyze", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var af analysisFlags
	var of outputFlags
	af.register(fs)
	var lf liveFlags
	lf.register(fs)
	fs.StringVarP(&of.format, "output-format", "o", "text", "report format: text, json, markdown or html")
	fs.StringVar(&of.export, "export", "", "write the report to FILE (atomically) instead of stdout")
	fs.BoolVarP(&of.quiet, "quiet", "q", false, "no progress on stderr")
	fs.BoolVar(&of.version, "version", false, "print the version and exit")
	fs.StringVar(&of.failOn, "fail-on", "never", "exit 3 when a cause of at least this severity is found: critical, warning or never")
	fs.StringVar(&of.slice, "slice", "30s", "heatmap time-slice width")
	fs.StringVar(&of.dot, "dot", "", "also write the temporal causal graph in Graphviz DOT to FILE")
	var lim ingest.Limits
	registerLimitFlags(fs, &lim)
	var logEntity string
	fs.StringVar(&logEntity, "log-entity", "", "entity of log files whose data names none (kubectl logs output): pod/NAME, service/NAME or NAME")
	fs.Usage = func() {
		fmt.Fprint(stderr, analyzeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pipeline-analyze: %s\n(run pipeline-analyze --help for usage)\n", oneLine(err.Error()))
		return 2
	}
	if of.version {
		fmt.Fprintf(stdout, "pipeline-analyze %s\n", version)
		return 0
	}
	progress := func(format string, a ...any) {
		if !of.quiet {
			fmt.Fprintln(stderr, oneLine(fmt.Sprintf(format, a...)))
		}
	}
	okFormat := false
	for _, f := range scorecard.Formats() {
		okFormat = okFormat || f == of.format
	}
	if !okFormat {
		return usageError(stderr, fmt.Errorf("--output-format %q: want one of %s", of.format, strings.Join(scorecard.Formats(), ", ")))
	}
	switch of.failOn {
	case "never", "warning", "critical":
	default:
		return usageError(stderr, fmt.Errorf("--fail-on %q: want critical, warning or never", of.failOn))
	}
	slice, err := parseDuration(of.slice)
	if err != nil || slice <= 0 {
		return usageError(stderr, fmt.Errorf("--slice %q: want a positive duration like 30s", of.slice))
	}
	spec, at, topt, copt, err := af.options()
	if err != nil {
		return usageError(stderr, err)
	}
	if af.explain {
		copt.Explain = explain
	}
	if lf.listQueries {
		return lf.list(stdout, stderr, af.step)
	}
	if err := checkOutputs(fs.Args(), of.export, of.dot, lf.saveBundle); err != nil {
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
	lr, err := lf.prepare(context.Background(), args, fs.Args(), &af, &at, &spec, work, red, progress)
	if err != nil {
		return liveExit(stderr, err)
	}
	defer lr.cleanup()
	paths := lr.paths
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
		paths = []string{dir}
	}
	b, err := ingest.Read(paths, stdin, ingest.Options{Step: af.step, Progress: progress, Limits: lim, LogEntity: logEntity, TempDir: work})
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	if demo != "" {
		relabelInputs(b, paths[0], "demo")
	}
	if lr.tempDir != "" {
		relabelInputs(b, lr.tempDir, "live")
	}
	b.Warnings = append(b.Warnings, lr.warnings...)
	an, err := analyzeBundle(b, spec, at, topt, copt)
	if err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	progress("analysed %d nodes, %d edges, %d anomalous; %d candidates", len(an.graph.Nodes), len(an.graph.Edges), an.graph.AnomalousCount(), an.result.Total)
	if of.dot != "" {
		if err := writeFileAtomic(of.dot, []byte(red.replace(an.graph.DOT()))); err != nil {
			sayErr(stderr, "", err)
			return 1
		}
	}
	card := scorecard.Build(b, an.graph, an.result, scorecard.BuildOptions{
		Version: version, Args: lr.args, Slice: slice, Demo: demo,
	})
	lr.annotate(card)
	if demo != "" { // the demo's temporary directory must not reach the report
		inc := &card.Incident
		inc.TargetChosenBy = strings.ReplaceAll(inc.TargetChosenBy, paths[0], "demo")
		inc.AtChosenBy = strings.ReplaceAll(inc.AtChosenBy, paths[0], "demo")
	}
	color := false
	if of.export == "" && of.format == "text" {
		color = isTerminal(stdout) && os.Getenv("NO_COLOR") == ""
	}
	var sb strings.Builder
	if err := scorecard.Render(&sb, card, of.format, scorecard.RenderOptions{Color: color, Width: 100}); err != nil {
		sayErr(stderr, "render: ", err)
		return 1
	}
	report := red.replace(sb.String()) // no secret leaves the process, whatever a server echoed
	if of.export != "" {
		if err := writeFileAtomic(of.export, []byte(report)); err != nil {
			sayErr(stderr, "", err)
			return 1
		}
		progress("wrote %s (%s)", of.export, of.format)
	} else if _, err := io.WriteString(stdout, report); err != nil {
		sayErr(stderr, "", err)
		return 1
	}
	if failOnHit(card, of.failOn) {
		return 3
	}
	return 0
}

// analysis is one run of the pipeline on a bundle.
type analysis struct {
	inc    tcg.Incident
	graph  *tcg.Graph
	result *causal.Result
}

// analyzeBundle resolves the incident, builds the graph and ranks causes.
func analyzeBundle(b *ingest.Bundle, spec tcg.IncidentSpec, at timeSpec, topt tcg.Options, copt causal.Options) (*analysis, error) {
	spec.At = at.resolve(b.End)
	inc, err := tcg.ResolveIncident(b, spec)
	if err != nil {
		return nil, err
	}
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

func usageError(stderr io.Writer, err error) int {
	msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
	fmt.Fprintf(stderr, "pipeline-analyze: %s\n(run pipeline-analyze --help for usage)\n", oneLine(msg))
	return 2
}

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
		return fmt.Errorf("write %s: %w", path, err)
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

// isTerminal reports whether w is a character device (a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
