package analysis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

func TestFetchBaseline(t *testing.T) {
	for _, c := range []struct{ baseline, window, want time.Duration }{
		{0, time.Minute, 30 * time.Minute},
		{0, 10 * time.Minute, time.Hour},
		{7 * time.Minute, 10 * time.Minute, 7 * time.Minute},
	} {
		if got := FetchBaseline(c.baseline, c.window); got != c.want {
			t.Errorf("FetchBaseline(%v, %v) = %v, want %v", c.baseline, c.window, got, c.want)
		}
	}
}

func TestNoteWarningsAndSampling(t *testing.T) {
	ws := NoteWarnings([]live.Note{{Kind: live.NoteLimit, Source: "prometheus", Message: "cut"}, {Source: "jaeger", Message: "none"}})
	if len(ws) != 2 || ws[0].Kind != ingest.ErrLimit || ws[1].Kind != ingest.ErrPartialInput || ws[0].Source != "live prometheus" {
		t.Errorf("NoteWarnings = %+v", ws)
	}
	m := &live.Manifest{Jaeger: &live.ManifestJaeger{Sampling: "a"}, Tempo: &live.ManifestJaeger{Sampling: "b"}}
	if got := Sampling("", m); got != "a; b" {
		t.Errorf("Sampling = %q, want %q", got, "a; b")
	}
}

func TestRestoreSavedWithoutManifest(t *testing.T) {
	at := TimeSpec{Raw: "x", Present: true}
	s, err := RestoreSaved([]string{t.TempDir()}, at)
	if err != nil {
		t.Fatal(err)
	}
	if s.At != at || s.AtSource != "" || len(s.Warnings) != 0 || s.Sampling != "" {
		t.Errorf("RestoreSaved = %+v, want the given time and nothing else", s)
	}
}

func TestComparisonsWantInputs(t *testing.T) {
	ctx := context.Background()
	if _, err := Compare(ctx, CompareInputs{}, CompareConfig{}); !errors.Is(err, ErrUsage) {
		t.Errorf("Compare without inputs: %v, want ErrUsage", err)
	}
	if _, err := Canary(ctx, CanaryInputs{}, CanaryConfig{}); !errors.Is(err, ErrUsage) {
		t.Errorf("Canary without inputs: %v, want ErrUsage", err)
	}
	if _, err := Profile(ctx, ProfileInputs{Base: []string{"a"}}, ProfileConfig{}); !errors.Is(err, ErrUsage) {
		t.Errorf("Profile without CAND: %v, want ErrUsage", err)
	}
}
