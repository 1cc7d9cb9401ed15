package cmdrun

import (
	"context"
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
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// CanaryReport is compare's canary mode up to its report: one input (or
// what live sources return for the last --window and its baseline, plus
// any local inputs such as a `kubectl get events -o json` file), the
// canary's pods judged against their baseline pods (canary.Run). A
// nil report comes with an *Error.
func (cc CompareCall) CanaryReport() (*model.Report, error) {
	c, args, stdin, stdout, stderr := cc.Options, cc.Args, cc.Stdin, cc.Stdout, cc.Stderr
	usage := func(format string, a ...any) (*model.Report, error) {
		return nil, Usagef("compare", format, a...)
	}
	for _, f := range []string{"before-at", "after-at", "scorecard", "no-causes", "causes", "at"} {
		if cc.Changed(f) {
			return usage("--%s is not for canary mode: a canary is judged in one window (--window: the last WINDOW of the data)", f)
		}
	}
	if c.FailOn == compare.GateRegressed || c.FailOn == compare.GateUnchanged {
		return usage("--fail-on %s: in canary mode want fail, marginal or never", c.FailOn)
	}
	if !slices.Contains([]string{compare.GateNever, canary.GateFail, canary.GateMarginal}, c.FailOn) {
		return usage("--fail-on %q: in canary mode want fail, marginal or never", c.FailOn)
	}
	if !slices.Contains(compare.Formats(), c.Format) {
		return usage("--output-format %q: want one of %s", c.Format, strings.Join(compare.Formats(), ", "))
	}
	if strings.TrimSpace(c.Canary.Canary) == "" {
		return usage("--canary: want auto, KEY=VALUE (version=v2) or a ReplicaSet or workload name")
	}
	if c.Canary.Pass < 0 || c.Canary.Pass > 100 || c.Canary.Marginal < 0 || c.Canary.Marginal > c.Canary.Pass {
		return usage("--pass-score and --marginal-score: want 0 ≤ marginal ≤ pass ≤ 100")
	}
	if c.Live.ListQueries {
		return nil, c.Live.List(stdout, c.Settings.Step)
	}
	say := &progress.Reporter{Out: stderr, Quiet: c.Quiet, Verbose: c.Verbose}
	paths := cc.Paths
	if c.Live.Active() {
		var spec tcg.IncidentSpec
		src, err := NewSource(&c.Live, &c.Settings, c.Version, "", &cliio.Redactor{}, say.Say)
		var in *analysis.Opened
		if err == nil {
			in, err = src.Open(context.Background(), args, paths, &analysis.TimeSpec{}, &spec)
		}
		if err != nil {
			return nil, sourceError(err)
		}
		defer in.Cleanup()
		in.SayWarnings(say.Say)
		paths, args = in.Paths, in.Args
	}
	if len(paths) == 0 {
		return usage("compare --canary: want DATA (a file or directory), or live sources (--prometheus-url ...)")
	}
	rep, err := analysis.Canary(context.Background(), analysis.CanaryInputs{Paths: paths, Stdin: stdin}, analysis.CanaryConfig{
		Options: c.Canary, Step: c.Settings.Step, LastWindow: cc.Changed("window"), Window: c.Settings.Window, Limits: c.Limits, Version: c.Version, Args: args,
		Progress: analysis.CompareProgress{Say: say.Say, Detail: say.Detail, Read: func(name string, b *ingest.Bundle, took time.Duration) {
			say.Say("%s: %s", name, analysis.ReadSummary(b, took))
		}}})
	if err != nil {
		return nil, compareFailed(err)
	}
	return rep, nil
}
