package driver

import (
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
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

// analysisFlags are the flags shared by the analysis, eval and compare:
// analysis.Settings, whose tagged fields are the flags (see flags.go),
// their defaults analysis.DefaultSettings, their help analysisHelp.
type analysisFlags = analysis.Settings

// stageOptions are the analysis flags turned into each stage's options
// (analysis.Settings.Stages; its errors are usage errors).
type stageOptions = analysis.Stages

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

// registerAnalysisFlags fills a with the defaults and defines its flags.
func registerAnalysisFlags(fs *pflag.FlagSet, a *analysisFlags) {
	*a = analysis.DefaultSettings()
	registerFields(fs, a, analysisHelp, clihelp.GroupAnalysis)
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
