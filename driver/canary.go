package driver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// canaryReport is compare's canary mode up to its report: one input (or
// what live sources return for the last --window and its baseline, plus
// any local inputs such as a `kubectl get events -o json` file), the
// canary's pods judged against their baseline pods (compare.RunCanary). A
// nil report comes with the exit status, its reason written to stderr.
func (cc compareCall) canaryReport() (*compare.Report, int) {
	c, args, stdin, stdout, stderr := cc.c, cc.args, cc.stdin, cc.stdout, cc.stderr
	usage := func(format string, a ...any) (*compare.Report, int) {
		return nil, usageErrorFor(stderr, "compare", fmt.Errorf(format, a...))
	}
	for _, f := range []string{"before-at", "after-at", "scorecard", "no-causes", "causes", "at"} {
		if cc.changed(f) {
			return usage("--%s is not for canary mode: a canary is judged in one window (--window: the last WINDOW of the data)", f)
		}
	}
	if c.failOn == compare.GateRegressed || c.failOn == compare.GateUnchanged {
		return usage("--fail-on %s: in canary mode want fail, marginal or never", c.failOn)
	}
	if !slices.Contains([]string{compare.GateNever, compare.GateFail, compare.GateMarginal}, c.failOn) {
		return usage("--fail-on %q: in canary mode want fail, marginal or never", c.failOn)
	}
	if !slices.Contains(compare.Formats(), c.format) {
		return usage("--output-format %q: want one of %s", c.format, strings.Join(compare.Formats(), ", "))
	}
	if strings.TrimSpace(c.canary.Canary) == "" {
		return usage("--canary: want auto, KEY=VALUE (version=v2) or a ReplicaSet or workload name")
	}
	if c.canary.Pass < 0 || c.canary.Pass > 100 || c.canary.Marginal < 0 || c.canary.Marginal > c.canary.Pass {
		return usage("--pass-score and --marginal-score: want 0 ≤ marginal ≤ pass ≤ 100")
	}
	if c.lf.ListQueries {
		return nil, c.lf.list(stdout, stderr, c.af.Step)
	}
	say := &progress.Reporter{Out: stderr, Quiet: c.quiet, Verbose: c.verbose}
	paths := cc.paths
	if c.lf.active() {
		var spec tcg.IncidentSpec
		src, err := newSource(&c.lf, &c.af, "", &cliio.Redactor{}, say.Say)
		var in *analysis.Opened
		if err == nil {
			in, err = src.Open(context.Background(), args, paths, &timeSpec{}, &spec)
		}
		if err != nil {
			return nil, liveExit(stderr, err)
		}
		defer in.Cleanup()
		in.SayWarnings(say.Say)
		paths, args = in.Paths, in.Args
	}
	if len(paths) == 0 {
		return usage("compare --canary: want DATA (a file or directory), or live sources (--prometheus-url ...)")
	}
	rep, err := analysis.Canary(context.Background(), analysis.CanaryInputs{Paths: paths, Stdin: stdin}, analysis.CanaryConfig{
		Options: c.canary, Step: c.af.Step, LastWindow: cc.changed("window"), Window: c.af.Window, Limits: c.lim, Version: version, Args: args,
		Progress: analysis.CompareProgress{Say: say.Say, Detail: say.Detail, Read: func(name string, b *ingest.Bundle, took time.Duration) {
			say.Say("%s: %s", name, analysis.ReadSummary(b, took))
		}}})
	if err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze compare: %v\n", err)
		return nil, 1
	}
	return rep, 0
}
