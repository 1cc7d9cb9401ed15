package cmdrun

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/eval"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
)

// EvalOptions are the eval command's settings: the analysis' and the
// harness' (methods, parallel jobs, fitting, the half scored, output).
type EvalOptions struct {
	Settings      analysis.Settings
	Methods       string // a comma list of causal.Methods
	JSON, Quiet   bool
	Jobs          int
	Dump          string // --dump-evidence's file
	Fit, LOO      bool
	Ablate, Split string
}

// Eval runs the eval command over the case directories roots (package
// eval): the methods, the half and the ablated terms checked, the cases
// found, the tables written to stdout and the progress to stderr.
// methodGiven says whether --method was set (it takes a comma list here,
// like --methods). An error is an *Error.
func Eval(o *EvalOptions, roots []string, methodGiven bool, stdout, stderr io.Writer) error {
	af := &o.Settings
	methods := o.Methods
	if methodGiven {
		methods = af.Method
	}
	ms := strings.Split(methods, ",")
	for _, m := range ms {
		ok := false
		for _, k := range causal.Methods() {
			ok = ok || k == m
		}
		if !ok {
			return Usagef("eval", "--methods: unknown method %q (want a comma list of %s)%s", m,
				strings.Join(causal.Methods(), ", "), suggest.DidYouMean(m, causal.Methods(), nil))
		}
	}
	af.Method = ms[0]
	if len(roots) == 0 {
		return Usagef("eval", "eval needs at least one directory of cases")
	}
	failed := func(format string, a ...any) error {
		return &Error{Code: 1, Lines: []string{Prog + " eval: " + fmt.Sprintf(format, a...)}}
	}
	cases, err := eval.FindCases(roots)
	if err != nil {
		return failed("%v", err)
	}
	if len(cases) == 0 {
		return failed("no case directories with a label.json under %s", strings.Join(roots, " "))
	}
	switch o.Split {
	case eval.SplitAll, eval.SplitDesign, eval.SplitCheck:
	default:
		return Usagef("eval", "--split: unknown half %q (want all, design or check)", o.Split)
	}
	so, err := af.Stages()
	if err != nil {
		return Usage("eval", err)
	}
	copt := so.Causal
	if copt.Ablate, err = causal.ParseAblate(o.Ablate); err != nil {
		return Usage("eval", fmt.Errorf("--ablate: %w", err))
	}
	cfg := eval.Config{Roots: roots, Cases: cases, Methods: ms, Split: o.Split, Spec: so.Incident, At: so.At, Graph: so.Graph, Causal: copt,
		Jobs: o.Jobs, Fit: o.Fit, LeaveOneOut: o.LOO, JSON: o.JSON, Quiet: o.Quiet}
	if dump := o.Dump; dump != "" {
		cfg.Dump = func(data []byte) error { return cliio.WriteFileAtomic(dump, data) }
	}
	if err := eval.Run(cfg, stdout, stderr); err != nil {
		return failed("%v", err)
	}
	return nil
}
