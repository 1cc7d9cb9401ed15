package analysis

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestAnalyzeLeavesTheBundleAsRead (issue 45: the Bundle is read-only
// after ingest): analysing a TrainTicket case, whose logs join its spans,
// derives the window's log and per-request pattern series into the
// Ranked's own view of the bundle; the bundle read keeps its series list
// and pattern evidence, so a second analysis of it (compare's sides,
// eval's methods) starts from what was read and ranks the same.
// Skipped where ../shared/data is absent.
func TestAnalyzeLeavesTheBundleAsRead(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "nezha-tt-dev", "tt-20230129-100434")
	if _, err := os.Stat(filepath.Join(dir, "label.json")); err != nil {
		t.Skip("development data not present")
	}
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	series, patterns := slices.Clone(b.Series), slices.Clone(b.Patterns)
	cfg := demoConfig()
	first, err := AnalyzeBundle(b, cfg.Incident, TimeSpec{}, cfg.Graph, cfg.Causal)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Series, series) || len(b.Patterns) != len(patterns) {
		t.Fatalf("the analysis changed the bundle read: %d series (read %d), %d patterns (read %d)", len(b.Series), len(series), len(b.Patterns), len(patterns))
	}
	if first.Bundle == b {
		t.Fatal("Ranked.Bundle is the bundle read, want the window's view")
	}
	shifts := 0
	for _, s := range first.Bundle.Series {
		if s.Name == ingest.LogPatternShift {
			shifts++
		}
	}
	if shifts == 0 || len(first.Bundle.Patterns) == 0 {
		t.Fatalf("the window's view has %d pattern series and %d pattern tests, want both", shifts, len(first.Bundle.Patterns))
	}
	second, err := AnalyzeBundle(b, cfg.Incident, TimeSpec{}, cfg.Graph, cfg.Causal)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Result.Candidates) == 0 || len(second.Result.Candidates) == 0 ||
		first.Result.Candidates[0].NodeID != second.Result.Candidates[0].NodeID || len(first.Bundle.Series) != len(second.Bundle.Series) {
		t.Errorf("a second analysis of the same bundle differs: first cause %v / %v, %d / %d series",
			first.Result.Candidates[:min(1, len(first.Result.Candidates))], second.Result.Candidates[:min(1, len(second.Result.Candidates))],
			len(first.Bundle.Series), len(second.Bundle.Series))
	}
}
