package ingest

import "testing"

func TestMatchGPUs(t *testing.T) {
	dcgm := &Series{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: Labels{{"Hostname", "gpu-node-a"}, {"UUID", "GPU-abc"}, {"gpu", "1"}},
		Entity: Entity{Kind: KindGPU, Name: "GPU-abc", GPU: "GPU-abc", Node: "gpu-node-a"}}
	smi := &Series{Name: "nvidia_smi_utilization_gpu", Labels: Labels{{"gpu", "gpu-node-a/gpu1"}},
		Entity: Entity{Kind: KindGPU, Name: "gpu-node-a/gpu1", GPU: "gpu-node-a/gpu1", Node: "gpu-node-a"}}
	other := &Series{Name: "nvidia_smi_utilization_gpu", Labels: Labels{{"gpu", "gpu-node-a/gpu2"}},
		Entity: Entity{Kind: KindGPU, Name: "gpu-node-a/gpu2", GPU: "gpu-node-a/gpu2", Node: "gpu-node-a"}}
	b := &Bundle{Series: []*Series{dcgm, smi, other}}
	b.matchGPUs()
	if smi.Entity.Name != "GPU-abc" || smi.Entity.GPU != "GPU-abc" {
		t.Errorf("host+index not matched to the DCGM UUID: %+v", smi.Entity)
	}
	if other.Entity.Name != "gpu-node-a/gpu2" {
		t.Errorf("an unknown index must stay as it is: %+v", other.Entity)
	}
	// Two UUIDs for one (host, index): ambiguous, nothing renamed.
	dup := &Series{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: Labels{{"gpu", "1"}},
		Entity: Entity{Kind: KindGPU, Name: "GPU-def", GPU: "GPU-def", Node: "gpu-node-a"}}
	smi2 := &Series{Entity: Entity{Kind: KindGPU, Name: "gpu-node-a/gpu1", Node: "gpu-node-a"}}
	b = &Bundle{Series: []*Series{dcgm, dup, smi2}}
	b.matchGPUs()
	if smi2.Entity.Name != "gpu-node-a/gpu1" {
		t.Errorf("ambiguous index renamed: %+v", smi2.Entity)
	}
}
