package driver

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/eval"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
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

// evalOpts are the eval command's flags.
type evalOpts struct {
	af      analysisFlags
	methods string
	asJSON  bool
	quiet   bool
	jobs    int
	dump    string
	fit     bool
	loo     bool
	ablate  string
	split   string
}

// newEvalFlags defines the eval command's flags.
func newEvalFlags() (*pflag.FlagSet, *evalOpts) {
	fs := pflag.NewFlagSet("eval", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &evalOpts{}
	registerAnalysisFlags(fs, &o.af)
	_ = fs.MarkHidden("explain")    // per-candidate tables for 56 cases would drown the summary
	_ = fs.MarkHidden("shape-seed") // eval scores the ranking; it builds no card
	fs.StringVar(&o.methods, "methods", strings.Join(causal.Methods(), ","), "comma-separated `METHODS` to compare (--method takes a list too)")
	fs.IntVar(&o.jobs, "jobs", 2, "cases analysed in parallel")
	fs.StringVar(&o.dump, "dump-evidence", "", "write every case's node evidence as JSON lines to FILE (for development)")
	fs.BoolVar(&o.fit, "fit", false, "fit the default method's score weights on the cases and print them")
	fs.BoolVar(&o.loo, "leave-one-out", false, "with --fit: per set (each DIR), weights fitted on the other sets, scored on it by the score alone and as the method ranks (its order rules included)")
	fs.StringVar(&o.ablate, "ablate", "", "turn these score `TERMS` off (comma-separated: "+strings.Join(causal.Terms(), ", ")+")")
	fs.StringVar(&o.split, "split", eval.SplitAll, "`HALF` of each set's cases to score: all, design or check (a fixed half by fault and a hash of the case id; check prints aggregates only, and with --fit its weights come from the design half)")
	_ = fs.MarkHidden("dump-evidence")
	clihelp.SetGroup(fs, clihelp.GroupAnalysis, "methods", "jobs", "fit", "leave-one-out", "ablate", "split")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON (per case and summary) instead of tables")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress on stderr")
	clihelp.SetGroup(fs, clihelp.GroupOutput, "json", "quiet")
	return fs, o
}

func runEval(args []string, stdout, stderr io.Writer) int {
	fs, o := newEvalFlags()
	if code, ok := parseFlags(fs, args, "eval", func(w io.Writer) { writeHelp(w, commandByName("eval")) }, stdout, stderr); !ok {
		return code
	}
	af := &o.af
	methods, asJSON, quiet, jobs, dump, fit, loo, ablate := &o.methods, &o.asJSON, &o.quiet, &o.jobs, &o.dump, &o.fit, &o.loo, &o.ablate
	if fs.Changed("method") {
		*methods = af.Method // --method takes a comma list here, like --methods
	}
	ms := strings.Split(*methods, ",")
	for _, m := range ms {
		ok := false
		for _, k := range causal.Methods() {
			ok = ok || k == m
		}
		if !ok {
			return usageErrorFor(stderr, "eval", fmt.Errorf("--methods: unknown method %q (want a comma list of %s)%s", m,
				strings.Join(causal.Methods(), ", "), suggest.DidYouMean(m, causal.Methods(), nil)))
		}
	}
	af.Method = ms[0]
	if fs.NArg() == 0 {
		return usageErrorFor(stderr, "eval", fmt.Errorf("eval needs at least one directory of cases"))
	}
	cases, err := eval.FindCases(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze eval: %v\n", err)
		return 1
	}
	if len(cases) == 0 {
		fmt.Fprintf(stderr, "pipeline-analyze eval: no case directories with a label.json under %s\n", strings.Join(fs.Args(), " "))
		return 1
	}
	switch o.split {
	case eval.SplitAll, eval.SplitDesign, eval.SplitCheck:
	default:
		return usageErrorFor(stderr, "eval", fmt.Errorf("--split: unknown half %q (want all, design or check)", o.split))
	}
	so, err := af.Stages()
	if err != nil {
		return usageErrorFor(stderr, "eval", err)
	}
	copt := so.Causal
	if copt.Ablate, err = causal.ParseAblate(*ablate); err != nil {
		return usageErrorFor(stderr, "eval", fmt.Errorf("--ablate: %w", err))
	}
	cfg := eval.Config{Roots: fs.Args(), Cases: cases, Methods: ms, Split: o.split, Spec: so.Incident, At: so.At, Graph: so.Graph, Causal: copt,
		Jobs: *jobs, Fit: *fit, LeaveOneOut: *loo, JSON: *asJSON, Quiet: *quiet}
	if *dump != "" {
		cfg.Dump = func(data []byte) error { return cliio.WriteFileAtomic(*dump, data) }
	}
	if err := eval.Run(cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "pipeline-analyze eval: %v\n", err)
		return 1
	}
	return 0
}
