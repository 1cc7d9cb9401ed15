package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
	"github.com/spf13/pflag"
)

// profileFlags are the compare flags that mean nothing to a profiler A/B
// (incident windows, causes, canary mode, live sources, time-series
// thresholds): given with --profile, they are a usage error.
var profileFlags = []string{"alpha", "min-ratio", "seed", "bootstrap", "output-format", "export", "quiet", "verbose", "fail-on", "profile"}

// runProfile is compare --profile BASE CAND: profdiff.Compare over the
// flags, the report rendered like compare's.
func runProfile(c *compareOpts, fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) int {
	var odd []string
	fs.Visit(func(f *pflag.Flag) {
		if !slices.Contains(profileFlags, f.Name) && !strings.HasPrefix(f.Name, "max-") && f.Name != "query-timeout" && f.Name != "stall-timeout" {
			odd = append(odd, "--"+f.Name)
		}
	})
	if len(odd) > 0 {
		return usageErrorFor(stderr, "compare", fmt.Errorf("%s: not for --profile (a profiler A/B takes --alpha, --min-ratio, --seed, --bootstrap, the output and limit flags)", strings.Join(odd, ", ")))
	}
	rep, code := profileReport(c, fs.Changed, fs.Args(), args, stderr)
	if rep == nil {
		return code
	}
	say := &progress.Reporter{Out: stderr, Quiet: c.quiet, Verbose: c.verbose}
	var sb strings.Builder
	err := profdiff.Render(&sb, rep, c.format, profdiff.RenderOptions{Width: 100})
	if err == nil {
		err = writeOutput(sb.String(), c.format, c.export, stdout, say.Say)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze compare: %v\n", err)
		return 1
	}
	return profdiff.FailOn(rep, c.failOn)
}

// profileReport is a profiler A/B up to its report (profdiff.Compare):
// changed says whether the user set a flag, paths are BASE CAND, args the
// command line for the rerun. A nil report comes with the exit status, its
// reason written to stderr.
func profileReport(c *compareOpts, changed func(string) bool, paths, args []string, stderr io.Writer) (*profdiff.Report, int) {
	usage := func(format string, a ...any) (*profdiff.Report, int) {
		return nil, usageErrorFor(stderr, "compare", fmt.Errorf(format, a...))
	}
	if len(paths) != 2 {
		return usage("compare --profile: want BASE CAND (each a Kineto trace, an Nsight SQLite export or a directory of one per rank), got %d argument(s)", len(paths))
	}
	if !slices.Contains([]string{profdiff.GateRegressed, profdiff.GateUnchanged, profdiff.GateNever}, c.failOn) {
		return usage("--fail-on %q: want regressed, unchanged or never with --profile", c.failOn)
	}
	o := profdiff.DefaultOptions()
	if changed("alpha") {
		if c.o.Alpha <= 0 || c.o.Alpha >= 1 {
			return usage("--alpha must be in (0, 1)")
		}
		o.Alpha = c.o.Alpha
	}
	if changed("min-ratio") {
		if c.o.MinRatio <= 0 {
			return usage("--min-ratio must be positive")
		}
		o.MinRatio = c.o.MinRatio
	}
	if changed("bootstrap") {
		if c.o.Bootstrap <= 0 || c.o.Bootstrap > 1_000_000 {
			return usage("--bootstrap must be in 1..1000000")
		}
		o.Bootstrap = c.o.Bootstrap
	}
	o.Seed, o.Limits, o.Version, o.Args = c.o.Seed, c.lim, version, append([]string{"pipeline-analyze", "compare"}, args...)
	// A compressed SQLite export is copied to a temporary file: in a
	// directory of ours that a signal handler removes too.
	work, err := os.MkdirTemp("", "pipeline-analyze-profile-*")
	if err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze compare: %v\n", err)
		return nil, 1
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	say := &progress.Reporter{Out: stderr, Quiet: c.quiet, Verbose: c.verbose}
	rep, err := analysis.Profile(context.Background(), analysis.ProfileInputs{Base: paths[:1], Cand: paths[1:], WorkDir: work},
		analysis.ProfileConfig{Options: o, Say: say.Say})
	if err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze compare: %s\n", cliio.OneLine(err.Error()))
		return nil, 1
	}
	return rep, 0
}
