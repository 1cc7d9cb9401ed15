package driver

import (
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/eval"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/spf13/pflag"
)

const evalUsage = `pipeline-analyze eval runs every case directory holding a label.json and
scores the ranking against the ground truth: AC@1, AC@3, AC@5 and Avg@5 at
service level (ranked services deduplicated in order of first appearance) and
AC@1 at component level, per fault type and overall, for each method side by
side. A case is read exactly like a user's input; label.json is read only here.

Usage:
  pipeline-analyze eval [flags] DIR...

Examples:
  pipeline-analyze simulate --fault tool_api_slow --seed 7 --out cases/a/tool-api
  pipeline-analyze simulate --fault vectordb_slow --seed 7 --out cases/b/vector-db
  pipeline-analyze eval cases
  pipeline-analyze eval --methods tcg,baro,nsigma --json cases > eval.json
  pipeline-analyze eval -q --fit --leave-one-out cases/a cases/b
  pipeline-analyze eval -q --split check cases/a cases/b
`

// evalOpts are the eval command's settings (cmdrun.EvalOptions) that its
// flags fill.
type evalOpts = cmdrun.EvalOptions

// newEvalFlags defines the eval command's flags.
func newEvalFlags() (*pflag.FlagSet, *evalOpts) {
	fs := pflag.NewFlagSet("eval", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &evalOpts{}
	registerAnalysisFlags(fs, &o.Settings)
	_ = fs.MarkHidden("explain")    // per-candidate tables for 56 cases would drown the summary
	_ = fs.MarkHidden("shape-seed") // eval scores the ranking; it builds no card
	fs.StringVar(&o.Methods, "methods", strings.Join(causal.Methods(), ","), "comma-separated `METHODS` to compare (--method takes a list too)")
	fs.IntVar(&o.Jobs, "jobs", 2, "cases analysed in parallel")
	fs.StringVar(&o.Dump, "dump-evidence", "", "write every case's node evidence as JSON lines to FILE (for development)")
	fs.BoolVar(&o.Fit, "fit", false, "fit the default method's score weights on the cases and print them")
	fs.BoolVar(&o.LOO, "leave-one-out", false, "with --fit: per set (each DIR), weights fitted on the other sets, scored on it by the score alone and as the method ranks (its order rules included)")
	fs.StringVar(&o.Ablate, "ablate", "", "turn these score `TERMS` off (comma-separated: "+strings.Join(causal.Terms(), ", ")+")")
	fs.StringVar(&o.Split, "split", eval.SplitAll, "`HALF` of each set's cases to score: all, design or check (a fixed half by fault and a hash of the case id; check prints aggregates only, and with --fit its weights come from the design half)")
	_ = fs.MarkHidden("dump-evidence")
	clihelp.SetGroup(fs, clihelp.GroupAnalysis, "methods", "jobs", "fit", "leave-one-out", "ablate", "split")
	fs.BoolVar(&o.JSON, "json", false, "print JSON (per case and summary) instead of tables")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress on stderr")
	clihelp.SetGroup(fs, clihelp.GroupOutput, "json", "quiet")
	return fs, o
}

// runEval is the eval command: flags over cmdrun.Eval.
func runEval(args []string, stdout, stderr io.Writer) int {
	fs, o := newEvalFlags()
	if code, ok := parseFlags(fs, args, "eval", func(w io.Writer) { writeHelp(w, commandByName("eval")) }, stdout, stderr); !ok {
		return code
	}
	return cmdrun.Exit(stderr, cmdrun.Eval(o, fs.Args(), fs.Changed("method"), stdout, stderr))
}
