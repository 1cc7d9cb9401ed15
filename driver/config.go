package driver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
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
		return ts, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		ts.abs = ingest.FromTime(t)
		return ts, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		ts.abs, ts.unit = epochUnit(f)
		return ts, nil
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

// analysisFlags are the flags shared by the analysis and eval.
type analysisFlags struct {
	at            string
	window        time.Duration
	baseline      time.Duration
	target        string
	step          time.Duration
	method        string
	weights       string
	threshold     float64
	lagWindow     time.Duration
	minEdgeConf   float64
	minConfidence float64
	explain       bool
	params        []string
}

func (a *analysisFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.at, "at", "", "incident time, `TIME`: RFC3339, a unix epoch (s, ms, µs or ns), or now-15m (now = end of data); default: the firing alert's startsAt")
	fs.DurationVar(&a.window, "window", 5*time.Minute, "length of the incident window, centred on --at")
	fs.DurationVar(&a.baseline, "baseline", 0, "length of the baseline before the window (0 = all data before it)")
	fs.StringVar(&a.target, "target", "", "the symptom to explain, `SERVICE[:SIGNAL[:STAT]]`, e.g. api-gateway:latency:p99 (default: from the alert, else the entry service's latency)")
	fs.DurationVar(&a.step, "step", 0, "common time step (default: the metrics' median step, or 15s)")
	fs.StringVar(&a.method, "method", "tcg", "ranking `METHOD`: tcg, or a comparison baseline: "+strings.Join(causal.Methods()[1:], ", "))
	fs.StringVar(&a.weights, "weights", "0.35,0.30,0.25,0.10", "scorecard dimension `WEIGHTS`: latency surge, error propagation, resource saturation, config drift")
	fs.Float64Var(&a.threshold, "threshold", 3, "robust z-score above which a signal is anomalous")
	fs.DurationVar(&a.lagWindow, "lag-window", 0, "how far propagation may lag between neighbours (default max(3 steps, 2m))")
	fs.Float64Var(&a.minEdgeConf, "edge-confidence", 0.75, "edge confidence needed for state-machine transitions")
	fs.Float64Var(&a.minConfidence, "min-confidence", 0.35, "abstain ('no confident root cause') below this confidence")
	fs.BoolVar(&a.explain, "explain", false, "print every candidate's score terms to stderr (why this ranking)")
	fs.StringArrayVar(&a.params, "param", nil, "override a ranking parameter NAME=VALUE (development; see causal.Params.Set)")
	_ = fs.MarkHidden("param")
	setGroup(fs, groupAnalysis, "at", "window", "baseline", "target", "step", "method", "weights", "threshold", "lag-window",
		"edge-confidence", "min-confidence", "explain")
}

// timeFlags are the time flags as the user set them, for checkWindow.
func (a *analysisFlags) timeFlags(fs *pflag.FlagSet, at timeSpec) timeFlags {
	return timeFlags{at: at, window: a.window, windowGiven: fs.Changed("window"), baseline: a.baseline, baselineGiven: fs.Changed("baseline")}
}

// options turns the flags into each stage's options.
func (a *analysisFlags) options() (tcg.IncidentSpec, timeSpec, tcg.Options, causal.Options, error) {
	var spec tcg.IncidentSpec
	at, err := parseTimeSpec(a.at)
	if err != nil {
		return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	tgt, err := parseTarget(a.target)
	if err != nil {
		return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	w, err := parseWeights(a.weights)
	if err != nil {
		return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if a.window <= 0 {
		return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: --window must be positive", errUsage)
	}
	ok := false
	for _, m := range causal.Methods() {
		ok = ok || m == a.method
	}
	if !ok {
		return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: --method %q: want one of %s", errUsage, a.method, strings.Join(causal.Methods(), ", "))
	}
	spec = tcg.IncidentSpec{Window: a.window, Baseline: a.baseline, Target: tgt}
	if at.present {
		spec.AtSource = at.source()
	}
	topt := tcg.Options{Threshold: a.threshold, LagWindow: a.lagWindow, MinConfidence: a.minEdgeConf}
	copt := causal.Options{Method: a.method, Weights: w, MinConfidence: a.minConfidence}
	if len(a.params) > 0 {
		p := causal.DefaultParams()
		for _, kv := range a.params {
			name, val, ok := strings.Cut(kv, "=")
			f, err := strconv.ParseFloat(val, 64)
			if !ok || err != nil {
				return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: --param %q: want NAME=NUMBER", errUsage, kv)
			}
			if err := p.Set(name, f); err != nil {
				return spec, at, tcg.Options{}, causal.Options{}, fmt.Errorf("%w: --param: %v", errUsage, err)
			}
		}
		copt.Params = &p
	}
	return spec, at, topt, copt, nil
}

// parseDuration is time.ParseDuration.
func parseDuration(s string) (time.Duration, error) { return time.ParseDuration(s) }
