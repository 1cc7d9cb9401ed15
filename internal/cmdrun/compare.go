package cmdrun

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/compare/canary"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
)

// CompareOptions are the compare command's settings: the analysis' (of
// BEFORE), the comparison's, both windows' times, the report's, the
// limits, the live sources', canary mode's and --profile.
type CompareOptions struct {
	Settings                                                 analysis.Settings
	Options                                                  compare.Options
	BeforeAt, AfterAt, Format, Export, FailOn, ScorecardFile string
	Quiet, Verbose, NoCauses                                 bool
	NCauses                                                  int
	Limits                                                   ingest.Limits
	Live                                                     Live
	Canary                                                   canary.Options
	Profile                                                  bool   // a profiler A/B (ProfileReport)
	Version                                                  string // the program's, on the report
}

// DefaultCompareOptions are the compare command's options at their flags'
// defaults (before/after mode, text, --fail-on never, five causes).
func DefaultCompareOptions() *CompareOptions {
	c := &CompareOptions{Settings: analysis.DefaultSettings(), Options: compare.DefaultOptions(), Format: "text", FailOn: compare.GateNever,
		NCauses: 5, Limits: ingest.DefaultLimits(), Live: DefaultLive(), Canary: canary.DefaultOptions()}
	c.Options.GrafanaURL, c.Options.GrafanaDatasource = "", ""
	c.Canary.Canary, c.Canary.Baseline = "", "" // canary mode is --canary's, its baseline the canary's other pods
	return c
}

// CompareCall is one comparison: its options, what the user set, the
// inputs as named, the command line for the rerun and the streams (Stdout
// only for --list-queries). The command builds it from its flags, the MCP
// compare tool from its arguments.
type CompareCall struct {
	Options        *CompareOptions
	Changed        func(flag string) bool
	Paths, Args    []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer // Stderr: the progress
}

// Report runs a before/after comparison up to its report. A nil report
// comes with an *Error: what the command says and its exit status (0:
// nothing to report, as with --list-queries).
func (cc CompareCall) Report() (*model.Report, error) {
	c, stdin, stdout, stderr := cc.Options, cc.Stdin, cc.Stdout, cc.Stderr
	af, o, lim := &c.Settings, c.Options, c.Limits
	beforeAt, afterAt, failOn := c.BeforeAt, c.AfterAt, c.FailOn
	quiet := c.Quiet
	args := cc.Args
	usage := func(format string, a ...any) (*model.Report, error) {
		return nil, Usagef("compare", format, a...)
	}
	for _, f := range []string{"baseline-group", "warmup", "pass-score", "marginal-score"} {
		if cc.Changed(f) {
			return usage("--%s is for canary mode: add --canary SELECTOR", f)
		}
	}
	if !slices.Contains([]string{compare.GateNever, compare.GateRegressed, compare.GateUnchanged}, failOn) {
		return usage("--fail-on %q: want regressed, unchanged or never", failOn)
	}
	if o.Slice <= 0 || o.Alpha <= 0 || o.Alpha >= 1 {
		return usage("--slice must be positive and --alpha in (0, 1)")
	}
	if err := checkGrafana(o.GrafanaURL, o.GrafanaDatasource); err != nil {
		return nil, Usage("compare", err)
	}
	so, err := af.Stages()
	if err != nil {
		return nil, Usage("compare", err)
	}
	spec, topt, copt := so.Incident, so.Graph, so.Causal
	bAt, err := analysis.ParseTime(beforeAt)
	if err != nil {
		return usage("%s", strings.Replace(err.Error(), "--at", "--before-at", 1))
	}
	aAt, err := analysis.ParseTime(afterAt)
	if err != nil {
		return usage("%s", strings.Replace(err.Error(), "--at", "--after-at", 1))
	}
	paths := cc.Paths
	if c.Live.ListQueries {
		return nil, c.Live.List(stdout, af.Step)
	}
	say := &progress.Reporter{Out: stderr, Quiet: quiet, Verbose: c.Verbose}
	progress := say.Say
	if c.Live.Active() {
		if len(paths) != 0 {
			return usage("compare: with live sources give no inputs (both windows come from one fetch)")
		}
		if !bAt.Present || !aAt.Present {
			return usage("compare: live sources need --before-at and --after-at")
		}
		dir, cleanup, err := fetchCompare(args, &c.Live, af, c.Version, &bAt, &aAt, progress)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		paths = []string{dir}
		args = compareRerun(args, &bAt, &aAt, dir)
	}
	switch {
	case len(paths) == 1 && (!bAt.Present || !aAt.Present):
		return usage("compare: one input needs both --before-at and --after-at (or give BEFORE AFTER)")
	case len(paths) == 0 || len(paths) > 2:
		return usage("compare: want BEFORE AFTER, or --before-at T --after-at T DATA")
	}
	pr := analysis.CompareProgress{Say: progress, Detail: say.Detail, Read: func(name string, b *ingest.Bundle, took time.Duration) {
		progress("%s: %s", name, analysis.ReadSummary(b, took))
	}}
	rep, err := analysis.Compare(context.Background(), analysis.CompareInputs{Paths: paths, Stdin: stdin}, analysis.CompareConfig{
		Options: o, Spec: spec, Graph: topt, Causal: copt, Step: af.Step, Window: af.Window, Baseline: af.Baseline,
		BeforeAt: bAt, AfterAt: aAt, Limits: lim, NoCauses: c.NoCauses, ScorecardFile: c.ScorecardFile, NCauses: c.NCauses,
		Version: c.Version, Args: args, Progress: pr})
	if err != nil {
		return nil, compareFailed(err)
	}
	return rep, nil
}

// fetchCompare fetches both windows and their baseline from the live
// sources in one go (analysis.LiveSource.FetchCompare), relative times
// made absolute. It returns the fetched bundle's directory (--save-bundle,
// else a temporary one that cleanup removes), or an *Error.
func fetchCompare(args []string, lf *Live, af *analysis.Settings, version string, bAt, aAt *analysis.TimeSpec,
	progress func(string, ...any)) (string, func(), error) {
	work, err := os.MkdirTemp("", "pipeline-analyze-compare-*")
	if err != nil {
		return "", nil, compareFailed(err)
	}
	untrack := cliio.TrackTemp(work)
	done := func() { os.RemoveAll(work); untrack() }
	src, err := NewLiveSource(lf, af, version, &cliio.Redactor{}, progress)
	var in *analysis.Opened
	if err == nil {
		src.Fetch.WorkDir = work
		in, err = src.FetchCompare(context.Background(), args, bAt, aAt)
	}
	if err != nil {
		done()
		return "", nil, sourceError(err)
	}
	return in.Paths[len(in.Paths)-1], func() { in.Cleanup(); done() }, nil
}

// compareRerun is the command line that compares the fetched bundle dir
// offline as the live run did: the live flags dropped (RerunArgs), the two
// times absolute, the bundle as the one input.
func compareRerun(args []string, bAt, aAt *analysis.TimeSpec, dir string) []string {
	out := RerunArgs(args)
	abs := map[string]string{"before-at": bAt.Abs.Std().Format(time.RFC3339Nano), "after-at": aAt.Abs.Std().Format(time.RFC3339Nano)}
	for i := 0; i < len(out); i++ {
		name, _, eq := strings.Cut(strings.TrimPrefix(out[i], "--"), "=")
		v, ok := abs[name]
		switch {
		case !ok || !strings.HasPrefix(out[i], "--"):
		case eq:
			out[i] = "--" + name + "=" + v
		case i+1 < len(out):
			out[i+1] = v
			i++
		}
	}
	return append(out, dir)
}

// WriteReport renders a comparison's report (render: compare.Render or
// profdiff.Render of it in --output-format) and writes it to --export or
// stdout, saying an export on stderr; a failure is an *Error.
func (c *CompareOptions) WriteReport(render func(w io.Writer, format string) error, stdout, stderr io.Writer) error {
	say := &progress.Reporter{Out: stderr, Quiet: c.Quiet, Verbose: c.Verbose}
	var sb strings.Builder
	err := render(&sb, c.Format)
	if err == nil {
		err = WriteOutput(sb.String(), c.Format, c.Export, stdout, say.Say)
	}
	if err != nil {
		return compareFailed(err)
	}
	return nil
}
