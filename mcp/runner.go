package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
)

// CommandRunner runs the tools' analyses and comparisons (Runner) as the
// commands run them (package cmdrun), with the server's limits and live
// sources: the commands' options built from the tools' arguments as Go
// values. A failure is the tool error the command's stderr lines make
// (cmdrun.ToolText).
type CommandRunner struct {
	Limits  ingest.Limits
	Live    cmdrun.Live
	Red     *cliio.Redactor
	Version string
	// FlagArgs are the server's limit and live flags in the command line's
	// syntax, for the rerun lines of the cards and reports.
	FlagArgs []string
}

// Analyze runs the analysis command's analysis (cmdrun.AnalyzeRun) with
// the call's options.
func (m *CommandRunner) Analyze(ctx context.Context, paths []string, in AnalyzeInput) (*analysis.Run, error) {
	o := &cmdrun.AnalyzeOptions{Settings: analysis.DefaultSettings(), Output: cmdrun.DefaultOutput(), Live: m.Live, Limits: m.Limits, Version: m.Version}
	changed := changedFlags{}
	set := changed.set
	set("at", in.At, &o.Settings.At)
	set("target", in.Target, &o.Settings.Target)
	set("method", in.Method, &o.Settings.Method)
	if err := toolDuration("window", in.Window, &o.Settings.Window, changed); err != nil {
		return nil, err
	}
	if err := toolDuration("baseline", in.Baseline, &o.Settings.Baseline, changed); err != nil {
		return nil, err
	}
	env := cmdrun.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Explain: io.Discard, Red: m.Red} // stdout is the protocol
	r, err := cmdrun.NewAnalyzeRun(env, o, func(flag string) bool { return changed[flag] }, paths, &progress.Reporter{Out: io.Discard, Quiet: true})
	if err != nil {
		return nil, errors.New(cmdrun.PlainText(err))
	}
	// The card's rerun line is the CLI command that reproduces the call.
	run, err := r.Run(ctx, m.runArgs([][2]string{{"at", in.At}, {"window", in.Window}, {"baseline", in.Baseline}, {"target", in.Target}, {"method", in.Method}}, paths))
	if err != nil {
		return nil, errors.New(cmdrun.ToolText(err, m.Red))
	}
	return run, nil
}

// Compare runs the compare command's comparison (cmdrun.CompareCall:
// before/after or canary mode) with the call's options.
func (m *CommandRunner) Compare(_ context.Context, paths []string, in CompareInput) (*model.Report, error) {
	c := m.compareOptions()
	c.Live = m.Live
	changed := changedFlags{}
	set := changed.set
	set("before-at", in.BeforeAt, &c.BeforeAt)
	set("after-at", in.AfterAt, &c.AfterAt)
	set("target", in.Target, &c.Settings.Target)
	set("canary", in.Canary, &c.Canary.Canary)
	set("baseline-group", in.BaselineGroup, &c.Canary.Baseline)
	if err := toolDuration("window", in.Window, &c.Settings.Window, changed); err != nil {
		return nil, err
	}
	// The report's rerun line is the CLI command that reproduces the call.
	opts := [][2]string{{"before-at", in.BeforeAt}, {"after-at", in.AfterAt}, {"window", in.Window}, {"target", in.Target},
		{"canary", in.Canary}, {"baseline-group", in.BaselineGroup}}
	cc := cmdrun.CompareCall{Options: c, Changed: func(flag string) bool { return changed[flag] }, Paths: paths,
		Args: append([]string{"-q", "-o", "json"}, m.runArgs(opts, paths)...), Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	var rep *model.Report
	var err error
	if changed["canary"] {
		rep, err = cc.CanaryReport()
	} else {
		rep, err = cc.Report()
	}
	if rep == nil {
		return nil, errors.New(cmdrun.ToolText(err, m.Red))
	}
	return rep, nil
}

// Profile runs compare --profile's A/B (cmdrun.ProfileReport) with the
// server's limit flags (the span budget, for traces, does not apply).
func (m *CommandRunner) Profile(_ context.Context, paths []string) (*profdiff.Report, error) {
	args := []string{"-q", "-o", "json", "--profile"}
	for _, a := range m.FlagArgs {
		if strings.HasPrefix(a, "--max-") || strings.HasPrefix(a, "--query-timeout=") || strings.HasPrefix(a, "--stall-timeout=") {
			args = append(args, a)
		}
	}
	args = append(append(args, "--"), paths...)
	c := m.compareOptions()
	c.Profile = true
	c.Limits.SpanBudget = ingest.DefaultLimits().SpanBudget
	rep, err := cmdrun.ProfileReport(c, func(string) bool { return false }, paths, args, io.Discard)
	if rep == nil {
		return nil, errors.New(cmdrun.ToolText(err, m.Red))
	}
	return rep, nil
}

// compareOptions are the compare command's options at their defaults with
// the server's limits, quiet, in JSON.
func (m *CommandRunner) compareOptions() *cmdrun.CompareOptions {
	c := cmdrun.DefaultCompareOptions()
	c.Quiet, c.Format, c.Limits, c.Version = true, "json", m.Limits, m.Version
	return c
}

// Read reads the paths as the analysis would, in a temporary directory
// removed at the end (and on a signal).
func (m *CommandRunner) Read(paths []string) (*ingest.Bundle, error) {
	work, err := os.MkdirTemp("", "pipeline-analyze-mcp-*")
	if err != nil {
		return nil, err
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	return features.Read(paths, strings.NewReader(""), ingest.Options{Limits: m.Limits, TempDir: work}, features.Options{})
}

// runArgs are the command-line arguments of the run a tool starts, for its
// rerun line: the server's flags, then the tool's options as --name=value,
// then the paths after "--".
func (m *CommandRunner) runArgs(opts [][2]string, paths []string) []string {
	args := append([]string(nil), m.FlagArgs...)
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
func toolDuration(flag, value string, to *time.Duration, changed changedFlags) error {
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

// changedFlags are the flags a tool call set, as a command line's would be.
type changedFlags map[string]bool

// set sets the flag's value when the call gave one.
func (c changedFlags) set(flag, value string, to *string) {
	if value != "" {
		*to, c[flag] = value, true
	}
}

// MaxError is the longest tool error in characters (several sources'
// failures can share one).
const MaxError = 1000

// NewServer is the server of a CommandRunner: its live sources (their
// kinds, for list_inputs), every result redacted with the runner's
// redactor, every tool error redacted, escaped and cut to MaxError
// characters; stderr says why a tool call failed inside the server. The
// caller adds the roots.
func NewServer(r *CommandRunner, version string, stderr io.Writer) *Server {
	red := r.Red
	s := &Server{Live: r.Live.Active(), Runner: r, Version: version, Stderr: stderr,
		Redact: red.Replace,
		Clean:  func(msg string) string { return cliio.EscapeText(red.Replace(msg), MaxError) }}
	for _, k := range [][2]string{{"jaeger", r.Live.JaegerURL}, {"prometheus", r.Live.PromURL}, {"loki", r.Live.LokiURL}, {"victorialogs", r.Live.VlogsURL}} {
		if k[1] != "" {
			s.LiveKinds = append(s.LiveKinds, k[0])
		}
	}
	return s
}
