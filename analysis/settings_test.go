package analysis

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
)

func TestSettingsStages(t *testing.T) {
	d := DefaultSettings()
	so, err := d.Stages()
	if err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	if so.Causal.DisplayWeights != causal.DefaultDisplayWeights() || so.Causal.Method != causal.DefaultMethod || so.At.Present || so.Causal.Params != nil {
		t.Errorf("the defaults' stages: %+v", so)
	}
	for _, tc := range []struct {
		name string
		set  func(*Settings)
		want string // in the usage error
	}{
		{"bad at", func(s *Settings) { s.At = "yesterday" }, "--at"},
		{"bad weights", func(s *Settings) { s.Weights = "1,2" }, "want four numbers"},
		{"negative weight", func(s *Settings) { s.Weights = "1,2,-3,4" }, "not a non-negative number"},
		{"no window", func(s *Settings) { s.Window = 0 }, "--window must be positive"},
		{"negative lookback", func(s *Settings) { s.OnsetLookback = -time.Minute }, "--onset-lookback must not be negative"},
		{"unknown method", func(s *Settings) { s.Method = "magic" }, `--method "magic"`},
		{"bad param", func(s *Settings) { s.Params = []string{"x"} }, `--param "x": want NAME=NUMBER`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSettings()
			tc.set(&s)
			_, err := s.Stages()
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a usage error with %q", err, tc.want)
			}
		})
	}
	s := DefaultSettings()
	s.At, s.OnsetLookback = "2026-11-30T02:12:00Z", 0
	so, err = s.Stages()
	if err != nil || !so.At.Present || so.Incident.AtSource == "" || so.Graph.OnsetLookback != -1 {
		t.Errorf("--at and no lookback: %+v, %v", so, err)
	}
}
