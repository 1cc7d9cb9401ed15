package tcg

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// gpuPIDBundle: gateway → vllm; the GPU's DRAM bandwidth rises at cell 80,
// vllm latency at 81, gateway at 82. The GPU is tied to vllm only by a PID:
// its per-process series carries pid 4242, and, when traced is true, the
// traces name vllm's process 4242 on the GPU's host.
func gpuPIDBundle(t *testing.T, traced bool) *ingest.Bundle {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	gpu := ingest.Entity{Kind: ingest.KindGPU, Name: "GPU-1111", GPU: "GPU-1111", Node: "host-b"}
	proc := series("nvml_process_used_memory_bytes", gpu, ingest.SignalGPUMemory, "bytes", 100, 4e10, 1e8, 0, -1, rng)
	proc.Labels = ingest.Labels{{Name: "pid", Value: "4242"}}
	b := &ingest.Bundle{
		Deps: []ingest.Dependency{{Parent: "gateway", Child: "vllm", CallCount: 10}},
		Series: []*ingest.Series{
			series("nvml_mem_bw_utilization_percent", gpu, ingest.SignalGPUMemBW, "%", 100, 40, 2, 50, 80, rng),
			proc,
			series("vllm_latency", svc("vllm"), ingest.SignalLatency, "s", 100, 0.5, 0.02, 2, 81, rng),
			series("gateway_latency", svc("gateway"), ingest.SignalLatency, "s", 100, 0.6, 0.02, 2, 82, rng),
		},
	}
	if traced {
		b.Processes = []ingest.Process{{Service: "vllm", Host: "host-b", PID: 4242, Source: "traces.json"}}
	}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	return b
}

func TestPIDPlacementEdges(t *testing.T) {
	for _, traced := range []bool{true, false} {
		b := gpuPIDBundle(t, traced)
		at := t0.Add(84 * 15 * time.Second)
		inc := Incident{Target: Target{Service: "gateway", Signal: ingest.SignalLatency}, At: at,
			WindowStart: at - ingest.Time(150*time.Second), WindowEnd: at + ingest.Time(150*time.Second), BaselineStart: b.Start}
		g, err := Build(b, inc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var bw, lat = -1, -1
		for i, n := range g.Nodes {
			switch {
			case n.Entity.Kind == ingest.KindGPU && n.Signal == ingest.SignalGPUMemBW:
				bw = i
			case n.Entity.Name == "vllm" && n.Signal == ingest.SignalLatency && n.Facet == FacetNone:
				lat = i
			}
		}
		if bw < 0 || lat < 0 {
			t.Fatalf("traced=%v: nodes missing (bw %d, vllm latency %d)", traced, bw, lat)
		}
		var edge *Edge
		for k, e := range g.Edges {
			if e.From == bw && e.To == lat {
				edge = &g.Edges[k]
			}
		}
		switch {
		case traced && (edge == nil || edge.Kind != EdgePlacement || !strings.Contains(edge.Reason, "PID 4242 of vllm on host-b")):
			t.Errorf("traced: GPU DRAM → vllm latency edge = %+v, want a placement edge naming PID 4242", edge)
		case traced && g.Nodes[bw].State != Propagating:
			t.Errorf("traced: GPU DRAM state %v, want PROPAGATING (vllm followed it over the placement edge)", g.Nodes[bw].State)
		case !traced && edge != nil && edge.Kind == EdgePlacement:
			t.Errorf("untraced: placement edge %+v without any PID match", edge)
		}
	}
}
