package driver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"github.com/spf13/pflag"
)

// version is the tool version, overridable with -ldflags "-X github.com/pipeline-analyze/pipeline-analyze/driver.version=...".
var version = "0.1.0-dev"

// errUsage marks errors that exit 2.
var errUsage = analysis.ErrUsage

// timeSpec is --at: absolute, or relative to the end of the data ("now").
type timeSpec = analysis.TimeSpec

// parseTimeSpec parses --at (analysis.ParseTime).
func parseTimeSpec(s string) (timeSpec, error) { return analysis.ParseTime(s) }

// parseTarget parses --target (analysis.ParseTarget).
func parseTarget(s string) (tcg.Target, error) { return analysis.ParseTarget(s) }

// parseWeights parses "0.35,0.30,0.25,0.10".
func parseWeights(s string) (causal.DisplayWeights, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return causal.DisplayWeights{}, fmt.Errorf("--weights %q: want four numbers: latency,errors,saturation,config", s)
	}
	var v [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 {
			return causal.DisplayWeights{}, fmt.Errorf("--weights %q: %q is not a non-negative number", s, p)
		}
		v[i] = f
	}
	return causal.DisplayWeights{LatencySurge: v[0], ErrorPropagation: v[1], ResourceSaturation: v[2], ConfigDrift: v[3]}, nil
}

// analysisFlags are the flags shared by the analysis, eval and compare.
// Each tagged field is a flag (see flags.go): its default is in
// defaultAnalysisFlags, its help in analysisHelp.
type analysisFlags struct {
	At            string        `flag:"at"`
	Window        time.Duration `flag:"window"`
	Baseline      time.Duration `flag:"baseline"`
	OnsetLookback time.Duration `flag:"onset-lookback"`
	Target        string        `flag:"target"`
	Step          time.Duration `flag:"step"`
	Method        string        `flag:"method"`
	Weights       string        `flag:"weights"`
	Threshold     float64       `flag:"threshold"`
	LagWindow     time.Duration `flag:"lag-window"`
	MinEdgeConf   float64       `flag:"edge-confidence"`
	MinConfidence float64       `flag:"min-confidence"`
	Explain       bool          `flag:"explain"`
	ShapeSeed     int64         `flag:"shape-seed"`
	Params        []string      `flag:"param" hidden:"true"`
}

// defaultAnalysisFlags are the analysis defaults, taken from the stages'
// own defaults so that each is written once.
func defaultAnalysisFlags() analysisFlags {
	w := causal.DefaultDisplayWeights()
	return analysisFlags{
		Window:        tcg.DefaultWindow,
		OnsetLookback: tcg.DefaultOnsetLookback,
		Method:        causal.DefaultMethod,
		Weights:       fmt.Sprintf("%.2f,%.2f,%.2f,%.2f", w.LatencySurge, w.ErrorPropagation, w.ResourceSaturation, w.ConfigDrift),
		Threshold:     tcg.DefaultThreshold,
		MinEdgeConf:   tcg.DefaultMinConfidence,
		MinConfidence: causal.DefaultParams().MinConfidence,
		ShapeSeed:     int64(shape.DefaultOptions().Seed),
	}
}

// analysisHelp is the help of each analysis flag; a backquoted word names
// the value's placeholder.
var analysisHelp = map[string]string{
	"at":              "incident time, `TIME`: RFC3339, a unix epoch (s, ms, µs or ns), or now-15m (now = end of data); default: the firing alert's startsAt",
	"window":          "length of the incident window, centred on --at (its start may move back to the target's onset: --onset-lookback)",
	"baseline":        "length of the baseline before the window (0 = all data before it)",
	"onset-lookback":  "how far the window's start may move back to the target's onset when the target was already off at its start (an alert fires after its rule held a while); 0: the window stays centred on --at",
	"target":          "the symptom to explain, `SERVICE[:SIGNAL[:STAT]]`, e.g. api-gateway:latency:p99 (default: from the alert, else the entry service's latency)",
	"step":            "common time step (default: the metrics' median step, or 15s)",
	"method":          "ranking `METHOD`: " + causal.DefaultMethod + ", or a comparison baseline: " + strings.Join(comparisonMethods(), ", "),
	"weights":         "scorecard dimension `WEIGHTS`: latency surge, error propagation, resource saturation, config drift",
	"threshold":       "robust z-score above which a signal is anomalous",
	"lag-window":      "how far propagation may lag between neighbours (default max(3 steps, 2m))",
	"edge-confidence": "edge confidence needed for state-machine transitions",
	"min-confidence":  "abstain ('no confident root cause') below this confidence",
	"explain":         "print every candidate's score terms to stderr (why this ranking)",
	"shape-seed":      "bootstrap `SEED` of the request-shape map's intervals (LLM latency targets; printed on the card)",
	"param":           "override a ranking parameter NAME=VALUE (development; see causal.Params.Set)",
}

// register fills a with the defaults and defines its flags.
func (a *analysisFlags) register(fs *pflag.FlagSet) {
	*a = defaultAnalysisFlags()
	registerFields(fs, a, analysisHelp, clihelp.GroupAnalysis)
}

// stageOptions are the analysis flags turned into each stage's options.
type stageOptions struct {
	spec     tcg.IncidentSpec // the incident to resolve (--at is in at, resolved against the data)
	at       timeSpec
	graph    tcg.Options
	causal   causal.Options
	evidence evidence.Options
}

// options turns the flags into each stage's options; errors are usage
// errors (errUsage).
func (a *analysisFlags) options() (stageOptions, error) {
	var so stageOptions
	usage := func(format string, args ...any) (stageOptions, error) {
		return stageOptions{at: so.at}, fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
	}
	var err error
	if so.at, err = parseTimeSpec(a.At); err != nil {
		return usage("%v", err)
	}
	tgt, err := parseTarget(a.Target)
	if err != nil {
		return usage("%v", err)
	}
	w, err := parseWeights(a.Weights)
	if err != nil {
		return usage("%v", err)
	}
	if a.Window <= 0 {
		return usage("--window must be positive")
	}
	if a.OnsetLookback < 0 {
		return usage("--onset-lookback must not be negative (0 keeps the window centred on --at)")
	}
	if !slices.Contains(causal.Methods(), a.Method) {
		return usage("--method %q: want one of %s", a.Method, strings.Join(causal.Methods(), ", "))
	}
	so.spec = tcg.IncidentSpec{Window: a.Window, Baseline: a.Baseline, Target: tgt}
	if so.at.Present {
		so.spec.AtSource = so.at.Source()
	}
	so.graph = tcg.Options{Threshold: a.Threshold, LagWindow: a.LagWindow, MinConfidence: a.MinEdgeConf, OnsetLookback: a.OnsetLookback}
	if a.OnsetLookback == 0 {
		so.graph.OnsetLookback = -1 // off
	}
	so.causal = causal.Options{Method: a.Method, DisplayWeights: w, MinConfidence: a.MinConfidence}
	so.evidence = evidence.Options{Shape: shape.Options{Seed: uint64(a.ShapeSeed)}}
	if len(a.Params) > 0 {
		p := causal.DefaultParams()
		for _, kv := range a.Params {
			name, val, ok := strings.Cut(kv, "=")
			f, err := strconv.ParseFloat(val, 64)
			if !ok || err != nil {
				return usage("--param %q: want NAME=NUMBER", kv)
			}
			if err := p.Set(name, f); err != nil {
				return usage("--param: %v", err)
			}
		}
		so.causal.Params = &p
	}
	return so, nil
}

// comparisonMethods are the registered comparison baselines, in the
// registry's order (the --method help lists them).
func comparisonMethods() []string {
	var out []string
	for _, m := range causal.Methods() {
		if causal.KindOf(m) == causal.KindComparison {
			out = append(out, m)
		}
	}
	return out
}
