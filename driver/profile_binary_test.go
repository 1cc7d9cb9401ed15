package driver

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/profgen"
)

// TestProfileMillionBinary runs compare --profile on two captures of a
// million kernels each (internal/profgen: 50 steps × 200 layers × 100
// kernels; the candidate's layer 17 ×1.5), Kineto JSON (455 MB a side) and
// Nsight SQLite (56 MB a side), through the real binary: it finds the
// slowed layer, within the hostile suites' memory bound (1 GiB peak RSS).
// The wall time is logged (issue 43's aim: 10 s on two idle cores; the
// machine's load decides what this run sees).
func TestProfileMillionBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1 GB of captures and compares a million kernels a side")
	}
	realBinary(t)
	for _, format := range []string{"kineto", "nsight"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			base, err := profgen.Write(dir, format, "base", profgen.Million, -1, 1)
			if err != nil {
				t.Fatal(err)
			}
			cand, err := profgen.Write(dir, format, "cand", profgen.Million, 17, 1.5)
			if err != nil {
				t.Fatal(err)
			}
			r := runBinary(t, 5*time.Minute, nil, "compare", "--profile", "-q", "-o", "json", base, cand)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			t.Logf("%s: wall %v, peak RSS %.0f MiB", filepath.Base(base), r.wall.Round(10*time.Millisecond), float64(r.rss)/(1<<20))
			if r.rss > maxRunRSS {
				t.Errorf("peak RSS %d bytes, over %d", r.rss, maxRunRSS)
			}
			var rep struct {
				Layers []struct {
					Name, Verdict string
					Ratio         float64
				} `json:"layers"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range rep.Layers {
				switch {
				case l.Name == "model.layers.17":
					found = l.Verdict == "slower" && l.Ratio > 1.45 && l.Ratio < 1.55
				case l.Verdict == "slower" || l.Verdict == "faster":
					t.Errorf("layer %s %s ×%.2f: only layer 17 changed", l.Name, l.Verdict, l.Ratio)
				}
			}
			if !found {
				t.Error("layer 17 (×1.5) not found slower")
			}
		})
	}
}
