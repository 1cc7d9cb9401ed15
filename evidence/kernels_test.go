package evidence

import (
	"math"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

func TestKernelEvidence(t *testing.T) {
	t0 := ingest.FromTime(time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC))
	gpu := ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-1", GPU: "GPU-1"}
	prof := func(kernel string, before, after float64) *ingest.Series {
		s := &ingest.Series{Name: "nsys_kernel_mean_duration_seconds", Labels: ingest.Labels{{Name: "kernel", Value: kernel}},
			Entity: gpu, Unit: "s", Source: "p.sqlite"}
		for i := 0; i < 20; i++ {
			s.T = append(s.T, t0.Add(time.Duration(i)*100*time.Millisecond))
			v := before
			if i >= 10 {
				v = after
			}
			s.V = append(s.V, v)
		}
		return s
	}
	other := prof("gemm", 1e-3, 5e-3)
	other.Entity = ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-2"}
	aligned := prof("gemm", 1e-3, 9e-3)
	aligned.Aligned = true
	b := &ingest.Bundle{Series: []*ingest.Series{prof("flash_attn", 2e-3, 6e-3), prof("gemm", 1e-3, 1.1e-3), other, aligned}}
	inc := tcg.Incident{BaselineStart: t0, WindowStart: t0.Add(time.Second), WindowEnd: t0.Add(3 * time.Second)}
	ev := Kernels(b, "GPU-1", inc, 5)
	if len(ev) != 2 {
		t.Fatalf("%d items, want 2 (other GPUs and aligned series excluded): %+v", len(ev), ev)
	}
	if ev[0].Series.Labels.Get("kernel") != "flash_attn" || math.Abs(ev[0].Incident-6e-3) > 1e-12 || math.Abs(ev[0].Baseline-2e-3) > 1e-12 {
		t.Errorf("largest change first: %+v", ev[0])
	}
	if math.Abs(ev[0].Ratio-3) > 1e-9 {
		t.Errorf("ratio %v, want 3", ev[0].Ratio)
	}
	// A profile that covers only the incident is summarised as is.
	inc.WindowStart = t0.Add(-time.Minute)
	ev = Kernels(b, "GPU-1", inc, 1)
	if len(ev) != 1 || !math.IsNaN(ev[0].Baseline) || !math.IsNaN(ev[0].Ratio) {
		t.Errorf("incident-only profile: %+v", ev)
	}
}
