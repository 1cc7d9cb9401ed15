package driver

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
	"github.com/spf13/pflag"
)

// version is the tool version, overridable with -ldflags "-X github.com/pipeline-analyze/pipeline-analyze/driver.version=...".
var version = "0.1.0-dev"

// errUsage marks errors that exit 2.
var errUsage = errors.New("usage")

// timeSpec is --at: absolute, or relative to the end of the data ("now").
type timeSpec struct {
	abs     ingest.Time
	rel     time.Duration
	isRel   bool
	raw     string
	present bool
	unit    string // the unit of a unix epoch, read from its magnitude ("s", "ms", "µs", "ns")
}

// source is how the incident time was given, for the scorecard:
// "--at 1796008320000 (unix ms)".
func (ts timeSpec) source() string {
	if ts.unit != "" {
		return "--at " + ts.raw + " (unix " + ts.unit + ")"
	}
	return "--at " + ts.raw
}

// parseTimeSpec accepts RFC3339, a unix epoch in seconds, milliseconds,
// microseconds or nanoseconds (told apart by magnitude, see epochUnit), and
// "now", "now-15m", "now+1m" where now is the end of the data.
func parseTimeSpec(s string) (timeSpec, error) {
	ts := timeSpec{raw: s, present: s != ""}
	if s == "" {
		return ts, nil
	}
	if strings.HasPrefix(s, "now") {
		rest := s[3:]
		ts.isRel = true
		if rest == "" {
			return ts, nil
		}
		d, err := time.ParseDuration(rest)
		if err != nil || (rest[0] != '-' && rest[0] != '+') {
			return ts, fmt.Errorf("--at %q: want now, now-DURATION or now+DURATION (e.g. now-15m)", s)
		}
		ts.rel = d
		return ts, checkTimeSpec(ts)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		ts.abs = ingest.FromTime(t)
		return ts, checkTimeSpec(ts)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		ts.abs, ts.unit = epochUnit(f)
		return ts, checkTimeSpec(ts)
	}
	return ts, fmt.Errorf("--at %q: want RFC3339 (2026-11-30T03:12:00Z), a unix epoch (s, ms, µs or ns), or now-15m", s)
}

// resolve returns the absolute time given the end of the data.
func (ts timeSpec) resolve(end ingest.Time) ingest.Time {
	if !ts.present {
		return 0
	}
	if ts.isRel {
		return end.Add(ts.rel)
	}
	return ts.abs
}

// parseTarget parses SERVICE[:SIGNAL[:STAT]].
func parseTarget(s string) (tcg.Target, error) {
	var t tcg.Target
	if s == "" {
		return t, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 || parts[0] == "" {
		return t, fmt.Errorf("--target %q: want SERVICE[:SIGNAL[:STAT]], e.g. api-gateway:latency:p99", s)
	}
	t.Service = parts[0]
	if len(parts) > 1 {
		sig, ok := ingest.ParseSignalKind(parts[1])
		if !ok {
			return t, fmt.Errorf("--target %q: unknown signal %q (latency, errors, traffic, cpu, kv_cache, gpu_util, ...)", s, parts[1])
		}
		t.Signal = sig
		switch strings.ToLower(parts[1]) {
		case "p50", "p90", "p95", "p99":
			t.Stat = strings.ToLower(parts[1])
		}
	}
	if len(parts) > 2 {
		t.Stat = strings.ToLower(parts[2])
		if !statRE.MatchString(t.Stat) {
			return t, fmt.Errorf("--target %q: unknown statistic %q (p50, p90, p99, mean, rate, ratio, ...)", s, parts[2])
		}
	}
	return t, nil
}

// parseWeights parses "0.35,0.30,0.25,0.10".
func parseWeights(s string) (causal.Weights, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return causal.Weights{}, fmt.Errorf("--weights %q: want four numbers: latency,errors,saturation,config", s)
	}
	var v [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 {
			return causal.Weights{}, fmt.Errorf("--weights %q: %q is not a non-negative number", s, p)
		}
		v[i] = f
	}
	return causal.Weights{LatencySurge: v[0], ErrorPropagation: v[1], ResourceSaturation: v[2], ConfigDrift: v[3]}, nil
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
	w := causal.DefaultWeights()
	return analysisFlags{
		Window:        tcg.DefaultWindow,
		OnsetLookback: tcg.DefaultOnsetLookback,
		Method:        causal.Methods()[0],
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
	"method":          "ranking `METHOD`: tcg, or a comparison baseline: " + strings.Join(causal.Methods()[1:], ", "),
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
	registerFields(fs, a, analysisHelp, groupAnalysis)
}

// timeFlags are the time flags as the user set them, for checkWindow.
func (a *analysisFlags) timeFlags(fs *pflag.FlagSet, at timeSpec) timeFlags {
	return timeFlags{at: at, window: a.Window, windowGiven: fs.Changed("window"), baseline: a.Baseline, baselineGiven: fs.Changed("baseline")}
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
	if so.at.present {
		so.spec.AtSource = so.at.source()
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
