package profdiff

import (
	"runtime"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/profgen"
)

// BenchmarkCompare1M compares two captures of a million kernels each
// (layer 17 of the candidate ×1.5; internal/profgen writes them), Kineto
// JSON and Nsight SQLite, and reports the seconds of one comparison and the
// memory the Go runtime took from the system (the peak RSS of the real
// binary is checked by the driver's TestProfileMillionBinary).
func BenchmarkCompare1M(b *testing.B) {
	for _, format := range []string{"kineto", "nsight"} {
		b.Run(format, func(b *testing.B) {
			dir := b.TempDir()
			base, err := profgen.Write(dir, format, "base", profgen.Million, -1, 1)
			if err != nil {
				b.Fatal(err)
			}
			cand, err := profgen.Write(dir, format, "cand", profgen.Million, 17, 1.5)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				r, err := Compare([]string{base}, []string{cand}, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(t0).Seconds(), "s/compare")
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.Sys)/(1<<20), "MiB-sys")
				if rw, _ := rowOf(r, KindLayer, "model.layers.17"); rw.Verdict != Slower {
					b.Fatalf("layer 17: %s %s", rw.Verdict, fmtRatio(rw.Ratio))
				}
			}
		})
	}
}
