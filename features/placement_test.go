package features

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// placementTrace is a Jaeger trace from two processes with PIDs: the
// gateway on host-a and the vLLM server on host-b, PID 4242.
const placementTrace = `{"data":[{"traceID":"a1","spans":[
 {"traceID":"a1","spanID":"01","operationName":"POST /v1/chat","startTime":1700000000000000,"duration":900000,"processID":"p1","references":[]},
 {"traceID":"a1","spanID":"02","operationName":"generate","startTime":1700000000001000,"duration":800000,"processID":"p2",
  "references":[{"refType":"CHILD_OF","traceID":"a1","spanID":"01"}]}],
 "processes":{
  "p1":{"serviceName":"gateway","tags":[{"key":"hostname","type":"string","value":"host-a"},{"key":"process.pid","type":"int64","value":4242}]},
  "p2":{"serviceName":"vllm","tags":[{"key":"hostname","type":"string","value":"HOST-B.example.com"},{"key":"process.pid","type":"int64","value":4242}]}}}]}`

// nvmlRecording returns a record-gpu file of host with GPU 0 used by pids.
func nvmlRecording(host string, pids ...string) string {
	var procs []string
	for _, p := range pids {
		procs = append(procs, `{"pid":`+p+`,"used_memory_bytes":1e9}`)
	}
	return `{"pipeline_analyze_nvml":1,"host":"` + host + `","devices":[]}
{"t_ns":1700000000000000000,"gpu":0,"uuid":"GPU-1111","util_gpu_pct":50,"processes":[` + strings.Join(procs, ",") + `]}
{"t_ns":1700000001000000000,"gpu":0,"uuid":"GPU-1111","util_gpu_pct":55,"processes":[` + strings.Join(procs, ",") + `]}
`
}

func readPlacementBundle(t *testing.T, files map[string]string) *ingest.Bundle {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Read([]string{dir}, nil, ingest.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func warned(b *ingest.Bundle, sub string) bool {
	return slices.ContainsFunc(b.Warnings, func(w ingest.Warning) bool { return strings.Contains(w.Message, sub) })
}

func TestPlaceProcessesByHostAndPID(t *testing.T) {
	// PID 4242 runs on both hosts; only host-b's (the GPU host, spelled
	// differently) is the vLLM process on the GPU.
	b := readPlacementBundle(t, map[string]string{"traces.json": placementTrace, "gpu.jsonl": nvmlRecording("host-b", "4242", "77")})
	if len(b.Processes) != 2 {
		t.Fatalf("processes = %+v, want gateway and vllm", b.Processes)
	}
	want := []ingest.Placement{{GPU: "GPU-1111", Service: "vllm", Host: "HOST-B.example.com", PID: 4242}}
	if !slices.Equal(b.Placements, want) {
		t.Fatalf("placements = %+v, want %+v", b.Placements, want)
	}
	if got := b.Placements[0].String(); got != "PID 4242 of vllm on HOST-B.example.com" {
		t.Errorf("String() = %q", got)
	}
	if e := b.Placements[0].Entity(); e.Kind != ingest.KindService || e.Name != "vllm" {
		t.Errorf("Entity() = %+v", e)
	}
}

func TestPlaceProcessesNoMatchWarns(t *testing.T) {
	b := readPlacementBundle(t, map[string]string{"traces.json": placementTrace, "gpu.jsonl": nvmlRecording("host-c", "4242")})
	if len(b.Placements) != 0 {
		t.Fatalf("placements = %+v, want none (no traced process on host-c)", b.Placements)
	}
	if !warned(b, "none of the 1 GPU processes matched") {
		t.Errorf("no warning about unmatched GPU processes: %v", b.Warnings)
	}
}

func TestPlaceProcessesHostless(t *testing.T) {
	// Traces without host tags and one host in all: a single machine, so a
	// PID alone places the process; with two services on PID 4242 it is
	// ambiguous and places nothing.
	one := strings.ReplaceAll(placementTrace, `{"key":"hostname","type":"string","value":"host-a"},`, "")
	one = strings.ReplaceAll(one, `{"key":"hostname","type":"string","value":"HOST-B.example.com"},`, "")
	b := readPlacementBundle(t, map[string]string{"traces.json": one, "gpu.jsonl": nvmlRecording("box", "4242")})
	if len(b.Placements) != 0 || !warned(b, "more than one service") {
		t.Fatalf("placements %+v warnings %v: want an ambiguity warning", b.Placements, b.Warnings)
	}
	one = strings.Replace(one, `"value":4242}]},
  "p2"`, `"value":17}]},
  "p2"`, 1)
	b = readPlacementBundle(t, map[string]string{"traces.json": one, "gpu.jsonl": nvmlRecording("box", "4242")})
	want := []ingest.Placement{{GPU: "GPU-1111", Service: "vllm", Host: "box", PID: 4242}}
	if !slices.Equal(b.Placements, want) {
		t.Fatalf("placements = %+v, want %+v", b.Placements, want)
	}
}

func TestPlaceProcessesOTLPResource(t *testing.T) {
	otlp := `{"resourceSpans":[{"resource":{"attributes":[
  {"key":"service.name","value":{"stringValue":"vllm"}},
  {"key":"host.name","value":{"stringValue":"host-b"}},
  {"key":"k8s.pod.name","value":{"stringValue":"vllm-0"}},
  {"key":"process.pid","value":{"intValue":"4242"}}]},
 "scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"generate",
  "kind":2,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000800000000"}]}]}]}`
	b := readPlacementBundle(t, map[string]string{"traces.json": otlp, "gpu.jsonl": nvmlRecording("host-b.example.com", "4242")})
	want := []ingest.Placement{{GPU: "GPU-1111", Service: "vllm", Pod: "vllm-0", Host: "host-b", PID: 4242}}
	if !slices.Equal(b.Placements, want) {
		t.Fatalf("placements = %+v, want %+v", b.Placements, want)
	}
	if e := b.Placements[0].Entity(); e.Kind != ingest.KindPod || e.Name != "vllm-0" {
		t.Errorf("Entity() = %+v", e)
	}
}

// TestPlaceProcessesHostFromAnotherSource: nvidia-smi's compute-apps query
// names GPUs by UUID only; DCGM's series for the same UUID give the host.
func TestPlaceProcessesHostFromAnotherSource(t *testing.T) {
	apps := "timestamp, gpu_uuid, pid, process_name, used_memory [MiB]\n" +
		"2023/11/14 22:13:20.000, GPU-1111, 4242, python3, 70000 MiB\n" +
		"2023/11/14 22:13:21.000, GPU-1111, 4242, python3, 70010 MiB\n"
	dcgm := `{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","UUID":"GPU-1111","Hostname":"host-b","gpu":"0"},"values":[[1700000000,"50"],[1700000001,"55"]]}]}}`
	b := readPlacementBundle(t, map[string]string{"traces.json": placementTrace, "apps.csv": apps, "dcgm.json": dcgm})
	want := []ingest.Placement{{GPU: "GPU-1111", Service: "vllm", Host: "HOST-B.example.com", PID: 4242}}
	if !slices.Equal(b.Placements, want) {
		t.Fatalf("placements = %+v, want %+v (warnings %v)", b.Placements, want, b.Warnings)
	}
	// Without DCGM the GPU's host is unknown and the traces name two hosts:
	// no placement, and a warning.
	b = readPlacementBundle(t, map[string]string{"traces.json": placementTrace, "apps.csv": apps})
	if len(b.Placements) != 0 || !warned(b, "none of the 1 GPU processes matched") {
		t.Fatalf("placements %+v warnings %v: want none, warned", b.Placements, b.Warnings)
	}
}
