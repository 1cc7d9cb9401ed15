package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/shape"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Settings are the analysis' settings as a user gives them, before they
// are checked: the command line's analysis flags (shared by the analysis,
// eval and compare) and the MCP tools' arguments. A field tagged
// `flag:"NAME"` is the flag --NAME (the command generates its flags from
// the tags; `hidden:"true"` hides one); DefaultSettings are the defaults.
type Settings struct {
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

// DefaultSettings are the defaults, taken from the stages' own defaults so
// that each is written once.
func DefaultSettings() Settings {
	w := causal.DefaultDisplayWeights()
	return Settings{
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

// Stages are the settings turned into each stage's options.
type Stages struct {
	Incident tcg.IncidentSpec // the incident to resolve (the time is in At, resolved against the data)
	At       TimeSpec
	Graph    tcg.Options
	Causal   causal.Options
	Evidence evidence.Options
}

// Stages checks the settings and turns them into each stage's options;
// its errors wrap ErrUsage. (Explain is the caller's: it names a writer.)
func (a *Settings) Stages() (Stages, error) {
	var so Stages
	usage := func(format string, args ...any) (Stages, error) {
		return Stages{At: so.At}, fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)
	}
	var err error
	if so.At, err = ParseTime(a.At); err != nil {
		return usage("%v", err)
	}
	tgt, err := ParseTarget(a.Target)
	if err != nil {
		return usage("%v", err)
	}
	w, err := ParseDisplayWeights(a.Weights)
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
	so.Incident = tcg.IncidentSpec{Window: a.Window, Baseline: a.Baseline, Target: tgt}
	if so.At.Present {
		so.Incident.AtSource = so.At.Source()
	}
	so.Graph = tcg.Options{Threshold: a.Threshold, LagWindow: a.LagWindow, MinConfidence: a.MinEdgeConf, OnsetLookback: a.OnsetLookback}
	if a.OnsetLookback == 0 {
		so.Graph.OnsetLookback = -1 // off
	}
	so.Causal = causal.Options{Method: a.Method, DisplayWeights: w, MinConfidence: a.MinConfidence}
	so.Evidence = evidence.Options{Shape: shape.Options{Seed: uint64(a.ShapeSeed)}}
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
		so.Causal.Params = &p
	}
	return so, nil
}

// ParseDisplayWeights parses the card's display weights,
// "0.35,0.30,0.25,0.10": latency surge, error propagation, resource
// saturation, config drift.
func ParseDisplayWeights(s string) (causal.DisplayWeights, error) {
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
