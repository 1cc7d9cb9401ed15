package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
	"github.com/spf13/pflag"
)

const mcpUsage = `pipeline-analyze mcp serves the analysis to an AI assistant (Claude Code,
Cursor, Copilot agents, ...) over the Model Context Protocol on stdin and
stdout: the tools analyze, explain_cause, compare and list_inputs, each with
a JSON schema. Tool paths name files and directories under a --root (relative
to a root, or absolute inside one; symlinks are resolved and ".." is refused);
with live source flags, analyze without paths fetches from them. The tools
write no files, take no URLs, and every input limit below applies. Progress
is off; stderr only says why a tool call failed inside the server.

Usage:
  pipeline-analyze mcp --root DIR [--root DIR]... [flags]
  pipeline-analyze mcp [--root DIR]... --prometheus-url URL [live flags]

Examples:
  pipeline-analyze mcp --root incident
  pipeline-analyze mcp --root incident --root fixed --max-file-size 268435456
  pipeline-analyze mcp --prometheus-url http://prometheus:9090 --jaeger-url http://jaeger:16686
(In an assistant: claude mcp add pipeline-analyze -- pipeline-analyze mcp --root /srv/incidents;
see docs/mcp.md.)

Exit status: 0 when the client closes the connection; 1 runtime error; 2 usage error.
`

// mcpOpts are the mcp command's flags: the roots, the input limits and the
// live sources, all fixed for the server's life (tools cannot change them).
type mcpOpts struct {
	roots []string
	lim   ingest.Limits
	lf    liveFlags
}

// newMCPFlags defines the mcp command's flags.
func newMCPFlags() (*pflag.FlagSet, *mcpOpts) {
	fs := pflag.NewFlagSet("mcp", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &mcpOpts{}
	fs.StringArrayVar(&o.roots, "root", nil, "serve the files and directories under `DIR` to the tools (repeatable)")
	clihelp.SetGroup(fs, clihelp.GroupInputs, "root")
	registerLimitFlags(fs, &o.lim)
	o.lf.register(fs)
	_ = fs.MarkHidden("save-bundle") // the tools write no files
	return fs, o
}

// runMCP is the mcp command: it checks the roots and serves the tools
// (package mcp) on the command's stdin and stdout until the client closes
// the connection; the tools run through an mcpRunner.
func runMCP(args []string, env cmdEnv) int {
	fs, o := newMCPFlags()
	if code, ok := parseFlags(fs, args, "mcp", func(w io.Writer) { writeHelp(w, commandByName("mcp")) }, env.stdout, env.stderr); !ok {
		return code
	}
	usage := func(err error) int { return usageErrorFor(env.stderr, "mcp", err) }
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Errorf("takes no arguments, got %q (name directories with --root)", fs.Args()))
	case o.lf.SaveBundle != "":
		return usage(errors.New("--save-bundle: the MCP server writes no files"))
	case len(o.roots) == 0 && !o.lf.active():
		return usage(errors.New("want --root DIR (the incidents the tools may read), or live source flags"))
	}
	if o.lf.ListQueries {
		return o.lf.list(env.stdout, env.stderr, 0)
	}
	red := env.red
	r := &mcpRunner{lim: o.lim, lf: o.lf, red: red}
	s := &mcp.Server{Live: o.lf.active(), Runner: r, Version: version, Stderr: env.stderr,
		Redact: red.Replace,
		Clean:  func(msg string) string { return cliio.EscapeText(red.Replace(msg), mcpMaxError) }}
	for _, k := range [][2]string{{"jaeger", o.lf.JaegerURL}, {"prometheus", o.lf.PromURL}, {"loki", o.lf.LokiURL}, {"victorialogs", o.lf.VlogsURL}} {
		if k[1] != "" {
			s.LiveKinds = append(s.LiveKinds, k[0])
		}
	}
	for _, root := range o.roots {
		real, err := mcp.RealDir(root)
		if err != nil {
			return usage(fmt.Errorf("--root %s: %w", root, err))
		}
		s.Roots = append(s.Roots, real)
	}
	// The server's own flags (limits, live sources), in the CLI's own
	// syntax, for the rerun line of the cards the tools return.
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "root" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				r.flagArgs = append(r.flagArgs, "--"+f.Name+"="+v)
			}
			return
		}
		r.flagArgs = append(r.flagArgs, "--"+f.Name+"="+f.Value.String())
	})
	if err := s.Serve(context.Background(), env.stdin, env.stdout); err != nil {
		cliio.SayErr(env.stderr, "mcp: ", err)
		return 1
	}
	return 0
}

// mcpMaxError is the longest tool error in characters (several sources'
// failures can share one).
const mcpMaxError = 1000

// mcpRunner runs the MCP tools' analyses and comparisons (mcp.Runner) as
// the commands run them, with the server's limits and live sources: the
// commands' options built from the tools' arguments as Go values.
type mcpRunner struct {
	lim      ingest.Limits
	lf       liveFlags
	red      *cliio.Redactor
	flagArgs []string // the server's limit and live flags, for the rerun lines
}

// Analyze runs the analysis command's analysis (analyzeRun.run:
// analysis.Analyze) with the call's options.
func (m *mcpRunner) Analyze(ctx context.Context, paths []string, in mcp.AnalyzeInput) (*analysis.Run, error) {
	o, changed, err := m.analyzeOptions(in)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	se := cliio.NewSafeWriter(&stderr, m.red, cliio.MaxErrLine)
	env := cmdEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: se, explain: io.Discard, red: m.red} // stdout is the protocol
	r, err := newAnalyzeRun(env, o, func(flag string) bool { return changed[flag] }, paths, &progress.Reporter{Out: se, Quiet: true})
	if err != nil {
		return nil, runError(err.Error())
	}
	// The card's rerun line is the CLI command that reproduces the call.
	run, err := r.run(ctx, m.runArgs([][2]string{{"at", in.At}, {"window", in.Window}, {"baseline", in.Baseline}, {"target", in.Target}, {"method", in.Method}}, paths))
	se.Flush()
	if err != nil {
		return nil, runError(stderr.String())
	}
	return run, nil
}

// analyzeOptions are the analysis command's options of an analyze call:
// the defaults, the server's limits and live sources, and the call's
// arguments; changed names the flags the call set.
func (m *mcpRunner) analyzeOptions(in mcp.AnalyzeInput) (*analyzeOpts, map[string]bool, error) {
	o := &analyzeOpts{af: analysis.DefaultSettings(), of: defaultOutputFlags(), lf: m.lf, lim: m.lim}
	changed := map[string]bool{}
	set := func(flag, value string, to *string) {
		if value != "" {
			*to, changed[flag] = value, true
		}
	}
	set("at", in.At, &o.af.At)
	set("target", in.Target, &o.af.Target)
	set("method", in.Method, &o.af.Method)
	if err := toolDuration("window", in.Window, &o.af.Window, changed); err != nil {
		return nil, nil, err
	}
	if err := toolDuration("baseline", in.Baseline, &o.af.Baseline, changed); err != nil {
		return nil, nil, err
	}
	return o, changed, nil
}

// Compare runs the compare command's comparison (compareCall: before/after
// or canary mode) with the call's options.
func (m *mcpRunner) Compare(_ context.Context, paths []string, in mcp.CompareInput) (*compare.Report, error) {
	c := defaultCompareOpts()
	c.quiet, c.format, c.lim, c.lf = true, "json", m.lim, m.lf
	changed := map[string]bool{}
	set := func(flag, value string, to *string) {
		if value != "" {
			*to, changed[flag] = value, true
		}
	}
	set("before-at", in.BeforeAt, &c.beforeAt)
	set("after-at", in.AfterAt, &c.afterAt)
	set("target", in.Target, &c.af.Target)
	set("canary", in.Canary, &c.canary.Canary)
	set("baseline-group", in.BaselineGroup, &c.canary.Baseline)
	if err := toolDuration("window", in.Window, &c.af.Window, changed); err != nil {
		return nil, err
	}
	// The report's rerun line is the CLI command that reproduces the call.
	opts := [][2]string{{"before-at", in.BeforeAt}, {"after-at", in.AfterAt}, {"window", in.Window}, {"target", in.Target},
		{"canary", in.Canary}, {"baseline-group", in.BaselineGroup}}
	var stderr bytes.Buffer
	se := cliio.NewSafeWriter(&stderr, m.red, cliio.MaxErrLine)
	cc := compareCall{c: c, changed: func(flag string) bool { return changed[flag] }, paths: paths,
		args: append([]string{"-q", "-o", "json"}, m.runArgs(opts, paths)...), stdin: strings.NewReader(""), stdout: io.Discard, stderr: se}
	var rep *compare.Report
	if changed["canary"] {
		rep, _ = cc.canaryReport()
	} else {
		rep, _ = cc.report()
	}
	se.Flush()
	if rep == nil {
		return nil, runError(stderr.String())
	}
	return rep, nil
}

// Profile runs compare --profile's A/B (profileReport) with the server's
// limit flags (the span budget, for traces, does not apply).
func (m *mcpRunner) Profile(_ context.Context, paths []string) (*profdiff.Report, error) {
	args := []string{"-q", "-o", "json", "--profile"}
	for _, a := range m.flagArgs {
		if strings.HasPrefix(a, "--max-") || strings.HasPrefix(a, "--query-timeout=") || strings.HasPrefix(a, "--stall-timeout=") {
			args = append(args, a)
		}
	}
	args = append(append(args, "--"), paths...)
	c := defaultCompareOpts()
	c.quiet, c.format, c.profile, c.lim = true, "json", true, m.lim
	c.lim.SpanBudget = ingest.DefaultLimits().SpanBudget
	var stderr strings.Builder
	se := cliio.NewSafeWriter(&stderr, m.red, cliio.MaxErrLine)
	rep, _ := profileReport(c, func(string) bool { return false }, paths, args, se)
	se.Flush()
	if rep == nil {
		return nil, runError(stderr.String())
	}
	return rep, nil
}

// Read reads the paths as the analysis would, in a temporary directory
// removed at the end (and on a signal).
func (m *mcpRunner) Read(paths []string) (*ingest.Bundle, error) {
	work, err := os.MkdirTemp("", "pipeline-analyze-mcp-*")
	if err != nil {
		return nil, err
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	return features.Read(paths, strings.NewReader(""), ingest.Options{Limits: m.lim, TempDir: work}, features.Options{})
}

// runArgs are the command-line arguments of the run a tool starts, for its
// rerun line: the server's flags, then the tool's options as --name=value,
// then the paths after "--".
func (m *mcpRunner) runArgs(opts [][2]string, paths []string) []string {
	args := append([]string(nil), m.flagArgs...)
	for _, o := range opts {
		if o[1] != "" {
			args = append(args, "--"+o[0]+"="+o[1])
		}
	}
	return append(append(args, "--"), paths...)
}

// toolDuration sets *to from a tool's duration argument (when given) and
// marks its flag changed; a bad value is refused in the words of the
// command line's flag parser (pflag's duration).
func toolDuration(flag, value string, to *time.Duration, changed map[string]bool) error {
	if value == "" {
		return nil
	}
	v, err := time.ParseDuration(value)
	if err != nil {
		return fmt.Errorf(`invalid argument %q for %q flag: must be a duration like "30s" or "5m"`, value, "--"+flag)
	}
	*to, changed[flag] = v, true
	return nil
}

// helpHintRE is the "(see pipeline-analyze ... --help)" a usage error ends with.
var helpHintRE = regexp.MustCompile(` \(see pipeline-analyze[a-z -]* --help\)$`)

// runError turns what a run wrote on stderr (its error lines) into one line
// for a tool error: program prefixes and help hints dropped, lines joined.
func runError(stderr string) error {
	var parts []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"pipeline-analyze compare: ", "pipeline-analyze: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l = helpHintRE.ReplaceAllString(l, ""); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return errors.New("the run failed without saying why")
	}
	return errors.New(strings.Join(parts, "; "))
}
