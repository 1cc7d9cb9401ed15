package analysis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// demoConfig is the CLI's defaults for the embedded demo.
func demoConfig() Config {
	return Config{
		Incident: tcg.IncidentSpec{Window: tcg.DefaultWindow},
		Graph:    tcg.Options{Threshold: tcg.DefaultThreshold, MinConfidence: tcg.DefaultMinConfidence, OnsetLookback: tcg.DefaultOnsetLookback},
		Causal:   causal.Options{Method: causal.Methods()[0], DisplayWeights: causal.DefaultDisplayWeights(), MinConfidence: causal.DefaultParams().MinConfidence},
	}
}

// TestAnalyzeDemo: without inputs Analyze runs the embedded demo and the
// Run carries every stage's typed result, the card built from them.
func TestAnalyzeDemo(t *testing.T) {
	var said []string
	cfg := demoConfig()
	cfg.Progress.Say = func(format string, args ...any) { said = append(said, format) }
	run, err := Analyze(context.Background(), Inputs{WorkDir: t.TempDir()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Bundle == nil || run.Graph == nil || run.Result == nil || run.Evidence == nil || run.Card == nil {
		t.Fatalf("a stage's result is missing: %+v", run)
	}
	if run.Demo == "" || !strings.Contains(run.Card.Demo, "embedded demo") {
		t.Errorf("the demo note is missing: %q", run.Demo)
	}
	if len(run.Card.Causes) == 0 || run.Card.Incident.Target.Service != run.Incident.Target.Service {
		t.Errorf("the card's causes %d, target %+v; the incident's %+v", len(run.Card.Causes), run.Card.Incident.Target, run.Incident.Target)
	}
	for _, in := range run.Card.Inputs {
		if !strings.HasPrefix(in.Path, "demo/") {
			t.Errorf("input %s: the demo's temporary directory reached the card", in.Path)
		}
	}
	if len(said) == 0 {
		t.Error("no progress said")
	}
}

// TestAnalyzeUsageErrors: a target or a time the data cannot hold is an
// error wrapping ErrUsage, saying what the data holds.
func TestAnalyzeUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"unknown service", func(c *Config) {
			c.Target, c.TargetGiven = "nosuch-service", true
			c.Incident.Target = tcg.Target{Service: "nosuch-service"}
		}, "no service nosuch-service"},
		{"time outside the data", func(c *Config) {
			at, err := ParseTime("2001-01-01T00:00:00Z")
			if err != nil {
				t.Fatal(err)
			}
			c.At = at
		}, "outside the data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := demoConfig()
			tc.set(&cfg)
			_, err := Analyze(context.Background(), Inputs{WorkDir: t.TempDir()}, cfg)
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a usage error with %q", err, tc.want)
			}
		})
	}
}
