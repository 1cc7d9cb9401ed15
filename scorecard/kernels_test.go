package scorecard

import (
	"math"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestKernelEvidence(t *testing.T) {
	s := &ingest.Series{Name: "nsys_kernel_mean_duration_seconds", Labels: ingest.Labels{{Name: "kernel", Value: "flash_attn"}}, Unit: "s"}
	ev := kernelEvidence([]evidence.Kernel{
		{Series: s, Baseline: 2e-3, Incident: 6e-3, Ratio: 3},
		{Series: s, Baseline: math.NaN(), Incident: 6e-3, Ratio: math.NaN()},
	})
	if len(ev) != 2 || ev[0].Kind != EvidenceKernel || ev[0].Baseline != 2e-3 || ev[0].Incident != 6e-3 {
		t.Fatalf("evidence %+v", ev)
	}
	if !strings.Contains(ev[0].Text, "kernel flash_attn") || !strings.Contains(ev[0].Text, "×3.00") {
		t.Errorf("kernel or ratio missing: %q", ev[0].Text)
	}
	if !strings.Contains(ev[1].Text, "no baseline") || !math.IsNaN(ev[1].Baseline) {
		t.Errorf("incident-only profile: %+v", ev[1])
	}
}
