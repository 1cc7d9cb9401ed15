package driver

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writePIDCase writes a bare-metal incident whose GPU is tied to the vLLM
// service only by a PID: gateway (host-a) → vllm (host-b, PID 4242) traces
// every 3 s for 40 min, and an NVML recording of host-b's two GPUs. GPU-1
// (vllm's PID) has its DRAM bandwidth doubled from minute 29m50s; vllm and so
// the gateway slow down from minute 30. GPU-0 runs another process (PID 9999)
// and stays healthy. It returns the directory and the alert time.
func writePIDCase(t *testing.T) (string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	type tag struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	proc := func(svc, host string, pid int) map[string]any {
		return map[string]any{"serviceName": svc, "tags": []tag{{"hostname", "string", host}, {"process.pid", "int64", pid}}}
	}
	var traces []map[string]any
	for i := 0; i < 2400; i += 3 {
		start := t0.Add(time.Duration(i) * time.Second).UnixMicro()
		gen := 0.5 + 0.03*rng.NormFloat64()
		if i >= 1800 {
			gen += 1.5
		}
		tid := fmt.Sprintf("%032x", i+1)
		root, child := fmt.Sprintf("%016x", 2*i+1), fmt.Sprintf("%016x", 2*i+2)
		traces = append(traces, map[string]any{"traceID": tid, "processes": map[string]any{
			"p1": proc("gateway", "host-a", 1200), "p2": proc("vllm", "host-b", 4242)},
			"spans": []map[string]any{
				{"traceID": tid, "spanID": root, "operationName": "POST /v1/chat/completions", "references": []any{},
					"startTime": start, "duration": int64((gen + 0.05) * 1e6), "processID": "p1",
					"tags": []tag{{"span.kind", "string", "server"}}},
				{"traceID": tid, "spanID": child, "operationName": "generate", "startTime": start + 1000, "duration": int64(gen * 1e6),
					"processID": "p2", "tags": []tag{{"span.kind", "string", "server"}},
					"references": []map[string]string{{"refType": "CHILD_OF", "traceID": tid, "spanID": root}}},
			}})
	}
	dir := t.TempDir()
	js, err := json.Marshal(map[string]any{"data": traces})
	if err != nil {
		t.Fatal(err)
	}
	var rec strings.Builder
	rec.WriteString(`{"pipeline_analyze_nvml":1,"host":"host-b","devices":[]}` + "\n")
	for i := 0; i < 2400; i += 5 {
		for gpu, pid := range []int{9999, 4242} {
			bw, util := 40+2*rng.NormFloat64(), 70+2*rng.NormFloat64()
			if gpu == 1 && i >= 1790 {
				bw, util = bw+45, util+10
			}
			fmt.Fprintf(&rec, `{"t_ns":%d,"gpu":%d,"uuid":"GPU-%d","util_gpu_pct":%.2f,"mem_bw_util_pct":%.2f,"sm_clock_mhz":%.1f,"processes":[{"pid":%d,"used_memory_bytes":7e10}]}`+"\n",
				t0.Add(time.Duration(i)*time.Second).UnixNano(), gpu, gpu, util, bw, 1980+5*rng.NormFloat64(), pid)
		}
	}
	for name, body := range map[string][]byte{"traces.json": js, "gpu.jsonl": []byte(rec.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, t0.Add(31 * time.Minute).Format(time.RFC3339)
}

// TestRunGPUPlacedByPID: without Kubernetes labels, the GPU is tied to the
// service through the PID in its process list and in the trace's process
// tags; the contended GPU ranks first, the path runs through vllm, and the
// scorecard says how the GPU was placed.
func TestRunGPUPlacedByPID(t *testing.T) {
	dir, at := writePIDCase(t)
	r := runCmd(nil, "-q", "-o", "json", "--at", at, "--target", "gateway:latency:p99", dir)
	if r.code != 0 {
		t.Fatal(r)
	}
	var c struct {
		Causes []struct {
			Component string `json:"component"`
			Signal    string `json:"signal"`
			Evidence  []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"evidence"`
			Path []struct {
				Node string `json:"node"`
			} `json:"path"`
		} `json:"causes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || len(c.Causes) == 0 {
		t.Fatalf("no causes (%v): %s", err, r)
	}
	top := c.Causes[0]
	if top.Component != "GPU-1" || top.Signal != "gpu_mem_bw" {
		t.Fatalf("top cause %s %s, want GPU-1 gpu_mem_bw", top.Component, top.Signal)
	}
	placed, hosts := false, false
	for _, e := range top.Evidence {
		placed = placed || e.Kind == "placement" && strings.Contains(e.Text, "PID 4242 of vllm on host-b")
		hosts = hosts || e.Kind == "placement" && strings.Contains(e.Text, "this gpu hosts vllm")
	}
	if !placed {
		t.Errorf("no placement evidence naming PID 4242: %+v", top.Evidence)
	}
	if !hosts {
		t.Errorf("the GPU cause does not name the workload it hosts: %+v", top.Evidence)
	}
	var via []string
	for _, s := range top.Path {
		via = append(via, s.Node)
	}
	if len(via) < 3 || via[1] != "service/vllm" {
		t.Errorf("path %v, want GPU-1 → vllm → gateway", via)
	}
}
