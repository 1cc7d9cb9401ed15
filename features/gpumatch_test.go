package features

import (
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestMatchGPUs(t *testing.T) {
	dcgm := &ingest.Series{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: ingest.Labels{{Name: "Hostname", Value: "gpu-node-a"}, {Name: "UUID", Value: "GPU-abc"}, {Name: "gpu", Value: "1"}},
		Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-abc", GPU: "GPU-abc", Node: "gpu-node-a"}}
	smi := &ingest.Series{Name: "nvidia_smi_utilization_gpu", Labels: ingest.Labels{{Name: "gpu", Value: "gpu-node-a/gpu1"}},
		Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "gpu-node-a/gpu1", GPU: "gpu-node-a/gpu1", Node: "gpu-node-a"}}
	other := &ingest.Series{Name: "nvidia_smi_utilization_gpu", Labels: ingest.Labels{{Name: "gpu", Value: "gpu-node-a/gpu2"}},
		Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "gpu-node-a/gpu2", GPU: "gpu-node-a/gpu2", Node: "gpu-node-a"}}
	b := &ingest.Bundle{Series: []*ingest.Series{dcgm, smi, other}}
	matchGPUs(b)
	if smi.Entity.Name != "GPU-abc" || smi.Entity.GPU != "GPU-abc" {
		t.Errorf("host+index not matched to the DCGM UUID: %+v", smi.Entity)
	}
	if other.Entity.Name != "gpu-node-a/gpu2" {
		t.Errorf("an unknown index must stay as it is: %+v", other.Entity)
	}
	// Two UUIDs for one (host, index): ambiguous, nothing renamed.
	dup := &ingest.Series{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: ingest.Labels{{Name: "gpu", Value: "1"}},
		Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-def", GPU: "GPU-def", Node: "gpu-node-a"}}
	smi2 := &ingest.Series{Entity: ingest.Entity{Kind: ingest.KindGPU, Name: "gpu-node-a/gpu1", Node: "gpu-node-a"}}
	b = &ingest.Bundle{Series: []*ingest.Series{dcgm, dup, smi2}}
	matchGPUs(b)
	if smi2.Entity.Name != "gpu-node-a/gpu1" {
		t.Errorf("ambiguous index renamed: %+v", smi2.Entity)
	}
}
