package driver

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
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
	rep, err := cmdrun.ProfileReport(c, fs.Changed, fs.Args(), args, stderr)
	if rep == nil {
		return cmdrun.Exit(stderr, err)
	}
	if err := c.WriteReport(func(w io.Writer, format string) error {
		return profdiff.Render(w, rep, format, profdiff.RenderOptions{Width: 100})
	}, stdout, stderr); err != nil {
		return cmdrun.Exit(stderr, err)
	}
	return profdiff.FailOn(rep, c.FailOn)
}
