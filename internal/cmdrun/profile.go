package cmdrun

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
)

// ProfileReport is a profiler A/B up to its report (profdiff.Compare):
// changed says whether the user set a flag, paths are BASE CAND, args the
// command line for the rerun. A nil report comes with an *Error; stderr takes
// the progress.
func ProfileReport(c *CompareOptions, changed func(string) bool, paths, args []string, stderr io.Writer) (*profdiff.Report, error) {
	usage := func(format string, a ...any) (*profdiff.Report, error) {
		return nil, Usagef("compare", format, a...)
	}
	if len(paths) != 2 {
		return usage("compare --profile: want BASE CAND (each a Kineto trace, an Nsight SQLite export or a directory of one per rank), got %d argument(s)", len(paths))
	}
	if !slices.Contains([]string{profdiff.GateRegressed, profdiff.GateUnchanged, profdiff.GateNever}, c.FailOn) {
		return usage("--fail-on %q: want regressed, unchanged or never with --profile", c.FailOn)
	}
	o := profdiff.DefaultOptions()
	if changed("alpha") {
		if c.Options.Alpha <= 0 || c.Options.Alpha >= 1 {
			return usage("--alpha must be in (0, 1)")
		}
		o.Alpha = c.Options.Alpha
	}
	if changed("min-ratio") {
		if c.Options.MinRatio <= 0 {
			return usage("--min-ratio must be positive")
		}
		o.MinRatio = c.Options.MinRatio
	}
	if changed("bootstrap") {
		if c.Options.Bootstrap <= 0 || c.Options.Bootstrap > 1_000_000 {
			return usage("--bootstrap must be in 1..1000000")
		}
		o.Bootstrap = c.Options.Bootstrap
	}
	o.Seed, o.Limits, o.Version, o.Args = c.Options.Seed, c.Limits, c.Version, append([]string{"pipeline-analyze", "compare"}, args...)
	// A compressed SQLite export is copied to a temporary file: in a
	// directory of ours that a signal handler removes too.
	work, err := os.MkdirTemp("", "pipeline-analyze-profile-*")
	if err != nil {
		return nil, compareFailed(err)
	}
	untrack := cliio.TrackTemp(work)
	defer func() { os.RemoveAll(work); untrack() }()
	say := &progress.Reporter{Out: stderr, Quiet: c.Quiet, Verbose: c.Verbose}
	rep, err := analysis.Profile(context.Background(), analysis.ProfileInputs{Base: paths[:1], Cand: paths[1:], WorkDir: work},
		analysis.ProfileConfig{Options: o, Say: say.Say})
	if err != nil {
		return nil, compareFailed(errors.New(cliio.OneLine(err.Error())))
	}
	return rep, nil
}
