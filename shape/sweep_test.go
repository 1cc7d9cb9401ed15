package shape

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/llmgen"
)

// TestShapeSweep reads 80 generated cases — the four scenarios, ten seeds
// each, a ×2 slowdown at 4 requests a second, from spans and from
// histograms — and counts wrong readings (none when it was written). It
// takes two minutes on two cores: run it with PIPELINE_ANALYZE_SWEEP=1.
func TestShapeSweep(t *testing.T) {
	if os.Getenv("PIPELINE_ANALYZE_SWEEP") == "" {
		t.Skip("set PIPELINE_ANALYZE_SWEEP=1 to run the 80-case sweep")
	}
	want := map[llmgen.Scenario]Kind{llmgen.Prefill: KindPrefill, llmgen.Decode: KindDecode, llmgen.Everything: KindEverything, llmgen.None: KindUnchanged}
	wrong := 0
	for _, hist := range []bool{false, true} {
		for _, sc := range []llmgen.Scenario{llmgen.Prefill, llmgen.Decode, llmgen.Everything, llmgen.None} {
			for seed := uint64(20); seed < 30; seed++ {
				dir := filepath.Join(t.TempDir(), "case")
				c := llmgen.Config{Scenario: sc, Rate: 4, Seed: seed, Factor: 2}
				if err := llmgen.WriteCase(dir, c, hist, !hist); err != nil {
					t.Fatal(err)
				}
				b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ws := ingest.FromTime(c.WindowStart())
				m := ForIncident(b, "gateway", b.Start, ws, ingest.FromTime(c.End()), Options{Seed: seed})
				if m == nil || m.Reading.Kind != want[sc] {
					wrong++
					if m != nil {
						t.Logf("histograms %v, %s, seed %d: %s", hist, sc, seed, m.Reading.Text)
					}
				}
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of 80 readings wrong", wrong)
	}
}
