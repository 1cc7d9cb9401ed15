package ingest

import (
	"strings"
	"testing"
)

// lbls builds sorted Labels from "name=value" strings.
func clsLabels(kv ...string) Labels {
	var ls Labels
	for _, s := range kv {
		n, v, _ := strings.Cut(s, "=")
		ls = append(ls, Label{Name: n, Value: v})
	}
	SortLabels(ls)
	return ls
}

func TestClassifySeries(t *testing.T) {
	const uuid = "GPU-9f3c5e2a-1b2c-4d5e-8f90-123456789abc"
	dcgm := []string{"gpu=0", "UUID=" + uuid, "device=nvidia0", "modelName=NVIDIA H100 80GB HBM3", "Hostname=gpu-node-1",
		"pod=vllm-llama-6d9f8b7c5-x2kq9", "namespace=llm", "container=vllm"}
	tests := []struct {
		name   string
		metric string
		labels Labels
		signal SignalKind
		stat   string
		unit   string
		entity Entity
	}{
		// vLLM, old and new spellings.
		{"vllm old kv cache", "vllm:gpu_cache_usage_perc", clsLabels("model_name=llama", "pod=vllm-0"), SignalKVCache, "ratio", "ratio",
			Entity{Kind: KindPod, Name: "vllm-0", Service: "vllm"}},
		{"vllm new kv cache", "vllm:kv_cache_usage_perc", clsLabels("model_name=llama", "job=vllm"), SignalKVCache, "ratio", "ratio",
			Entity{Kind: KindService, Name: "vllm", Service: "vllm"}},
		{"vllm model_name alone is no service", "vllm:num_preemptions_total", clsLabels("model_name=llama"), SignalKVCache, "count", "", Entity{}},
		{"vllm ttft", "vllm:time_to_first_token_seconds_bucket", clsLabels("le=0.5", "job=vllm"), SignalLatency, "bucket", "s",
			Entity{Kind: KindService, Name: "vllm", Service: "vllm"}},
		{"vllm old tpot", "vllm:time_per_output_token_seconds_sum", nil, SignalLatency, "sum", "s", Entity{}},
		{"vllm new itl", "vllm:inter_token_latency_seconds_count", nil, SignalLatency, "count", "s", Entity{}},
		{"vllm e2e p99 quantile", "vllm:e2e_request_latency_seconds", clsLabels("quantile=0.99"), SignalLatency, "p99", "s", Entity{}},
		{"vllm waiting", "vllm:num_requests_waiting", nil, SignalQueue, "", "", Entity{}},
		{"vllm running is queue", "vllm:num_requests_running", nil, SignalQueue, "", "", Entity{}},
		{"vllm success counter is traffic", "vllm:request_success_total", nil, SignalTraffic, "count", "", Entity{}},
		// DCGM, old and 4.6 names.
		{"dcgm util", "DCGM_FI_DEV_GPU_UTIL", clsLabels(dcgm...), SignalGPUUtil, "", "%",
			Entity{Kind: KindGPU, Name: uuid, GPU: uuid, Node: "gpu-node-1", Service: "vllm-llama"}},
		{"dcgm gr engine", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", clsLabels(dcgm...), SignalGPUUtil, "", "ratio",
			Entity{Kind: KindGPU, Name: uuid, GPU: uuid, Node: "gpu-node-1", Service: "vllm-llama"}},
		{"dcgm sm active", "DCGM_FI_PROF_SM_ACTIVE", nil, SignalGPUUtil, "", "ratio", Entity{}},
		{"dcgm mem copy", "DCGM_FI_DEV_MEM_COPY_UTIL", nil, SignalGPUMemBW, "", "%", Entity{}},
		{"dcgm dram", "DCGM_FI_PROF_DRAM_ACTIVE", nil, SignalGPUMemBW, "", "ratio", Entity{}},
		{"dcgm sm clock", "DCGM_FI_DEV_SM_CLOCK", nil, SignalGPUClock, "", "MHz", Entity{}},
		{"dcgm mem clock", "DCGM_FI_DEV_MEM_CLOCK", nil, SignalGPUClock, "", "MHz", Entity{}},
		{"dcgm throttle old", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", nil, SignalGPUThrottle, "", "", Entity{}},
		{"dcgm throttle 4.6", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", nil, SignalGPUThrottle, "", "", Entity{}},
		{"dcgm gpu temp", "DCGM_FI_DEV_GPU_TEMP", nil, SignalTemperature, "", "C", Entity{}},
		{"dcgm memory temp", "DCGM_FI_DEV_MEMORY_TEMP", nil, SignalTemperature, "", "C", Entity{}},
		{"dcgm power", "DCGM_FI_DEV_POWER_USAGE", nil, SignalPower, "", "W", Entity{}},
		{"dcgm xid", "DCGM_FI_DEV_XID_ERRORS", nil, SignalXID, "", "", Entity{}},
		{"dcgm ecc", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", nil, SignalXID, "count", "", Entity{}},
		{"dcgm fb used", "DCGM_FI_DEV_FB_USED", nil, SignalGPUMemory, "", "MiB", Entity{}},
		{"dcgm fb free", "DCGM_FI_DEV_FB_FREE", nil, SignalGPUMemory, "", "MiB", Entity{}},
		{"dcgm nvlink", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", nil, SignalNVLink, "count", "", Entity{}},
		{"dcgm gpu index without uuid", "DCGM_FI_DEV_GPU_UTIL", clsLabels("gpu=3", "Hostname=h1"), SignalGPUUtil, "", "%",
			Entity{Kind: KindGPU, Name: "h1/3", GPU: "h1/3", Node: "h1"}},
		{"dcgm exporter pod is not the workload", "DCGM_FI_DEV_GPU_UTIL",
			clsLabels("UUID=GPU-1", "pod=dcgm-exporter-x7k2p", "exported_pod=trainer-0", "instance=10.0.0.5:9400"), SignalGPUUtil, "", "%",
			Entity{Kind: KindGPU, Name: "GPU-1", GPU: "GPU-1", Node: "10.0.0.5", Service: "trainer"}},
		// cAdvisor and kube-state-metrics.
		{"cadvisor cpu", "container_cpu_usage_seconds_total", clsLabels("container=cartservice", "pod=cartservice-579f59597d-wc2lz", "instance=10.0.0.9:10250"),
			SignalCPU, "count", "s", Entity{Kind: KindPod, Name: "cartservice-579f59597d-wc2lz", Service: "cartservice", Node: "10.0.0.9"}},
		{"cadvisor throttle", "container_cpu_cfs_throttled_periods_total", nil, SignalCPUThrottle, "count", "", Entity{}},
		{"cadvisor working set", "container_memory_working_set_bytes", nil, SignalMemory, "", "bytes", Entity{}},
		{"cadvisor fs reads", "container_fs_reads_bytes_total", nil, SignalDiskIO, "count", "bytes", Entity{}},
		{"cadvisor net rx", "container_network_receive_bytes_total", nil, SignalNetwork, "count", "bytes", Entity{}},
		{"restarts", "kube_pod_container_status_restarts_total", clsLabels("pod=redis-0", "container=redis"), SignalRestarts, "count", "",
			Entity{Kind: KindPod, Name: "redis-0", Service: "redis"}},
		// node-exporter.
		{"node cpu", "node_cpu_seconds_total", clsLabels("instance=10.0.0.7:9100", "job=node-exporter", "mode=idle"), SignalCPU, "count", "s",
			Entity{Kind: KindNode, Name: "10.0.0.7", Node: "10.0.0.7"}},
		{"node mem available", "node_memory_MemAvailable_bytes", clsLabels("instance=10.0.0.7:9100"), SignalMemory, "", "bytes",
			Entity{Kind: KindNode, Name: "10.0.0.7", Node: "10.0.0.7"}},
		{"node disk", "node_disk_io_time_seconds_total", nil, SignalDiskIO, "count", "s", Entity{}},
		// nezha recording rules: node series are per-pod copies.
		{"nezha node cpu", "node:cpu_usage:ratio", clsLabels("namespace=hipster", "node=33.33.33.115", "pod=paymentservice-9cdb6588f-554sm"),
			SignalCPU, "ratio", "ratio", Entity{Kind: KindNode, Name: "33.33.33.115", Node: "33.33.33.115", Service: "paymentservice"}},
		{"nezha pod cpu rate", "pod:container_cpu_usage:rate1m", clsLabels("container=adservice", "node=33.33.33.76", "pod=adservice-5f6585d649-fnmft"),
			SignalCPU, "rate", "cores", Entity{Kind: KindPod, Name: "adservice-5f6585d649-fnmft", Service: "adservice", Node: "33.33.33.76"}},
		{"nezha pod requests", "pod:requests:rate1m", clsLabels("pod=adservice-5f6585d649-fnmft"), SignalTraffic, "rate", "1/s",
			Entity{Kind: KindPod, Name: "adservice-5f6585d649-fnmft", Service: "adservice"}},
		{"nezha success ratio", "service:request_success:ratio", clsLabels("namespace=hipster", "service=frontend"), SignalErrors, "success_ratio", "ratio",
			Entity{Kind: KindService, Name: "frontend", Service: "frontend"}},
		{"nezha net rate", "node:network_receive_bytes:rate1m", nil, SignalNetwork, "rate", "bytes/s", Entity{}},
		// Istio.
		{"istio edge p50", "istio:request_duration_seconds:p50",
			clsLabels("destination_workload=adservice", "namespace=hipster", "reporter=source", "source_workload=frontend"), SignalLatency, "p50", "s",
			Entity{Kind: KindEdge, Name: "frontend->adservice", Caller: "frontend", Callee: "adservice", Service: "adservice"}},
		{"istio requests", "istio_requests_total", clsLabels("source_workload=frontend", "destination_workload=cartservice", "response_code=200"),
			SignalTraffic, "count", "", Entity{Kind: KindEdge, Name: "frontend->cartservice", Caller: "frontend", Callee: "cartservice", Service: "cartservice"}},
		{"istio 5xx is errors", "istio_requests_total", clsLabels("destination_workload=cartservice", "response_code=503"), SignalErrors, "count", "",
			Entity{Kind: KindService, Name: "cartservice", Service: "cartservice"}},
		{"istio histogram", "istio_request_duration_milliseconds_bucket", clsLabels("le=100"), SignalLatency, "bucket", "ms", Entity{}},
		// Tempo / Grafana service graph.
		{"service graph total", "traces_service_graph_request_total", clsLabels("client=frontend", "server=checkoutservice"), SignalTraffic, "count", "",
			Entity{Kind: KindEdge, Name: "frontend->checkoutservice", Caller: "frontend", Callee: "checkoutservice", Service: "checkoutservice"}},
		{"service graph failed", "traces_service_graph_request_failed_total", clsLabels("client=frontend", "server=checkoutservice"), SignalErrors, "count", "",
			Entity{Kind: KindEdge, Name: "frontend->checkoutservice", Caller: "frontend", Callee: "checkoutservice", Service: "checkoutservice"}},
		{"service graph server seconds", "traces_service_graph_request_server_seconds_bucket", clsLabels("client=a", "server=b", "le=0.1"), SignalLatency, "bucket", "s",
			Entity{Kind: KindEdge, Name: "a->b", Caller: "a", Callee: "b", Service: "b"}},
		// Generic.
		{"grpc handled unavailable", "grpc_server_handled_total", clsLabels("grpc_code=Unavailable", "job=cart"), SignalErrors, "count", "",
			Entity{Kind: KindService, Name: "cart", Service: "cart"}},
		{"file base name", "pod_request_duration_seconds_p99", nil, SignalLatency, "p99", "s", Entity{}},
		{"unknown kept", "go_goroutines", clsLabels("job=prometheus"), SignalOther, "", "", Entity{Kind: KindService, Name: "prometheus", Service: "prometheus"}},
		{"instance only is node", "probe_success_ratio_x", clsLabels("instance=h2:80"), SignalErrors, "success_ratio", "ratio",
			Entity{Kind: KindNode, Name: "h2", Node: "h2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Series{Name: tt.metric, Labels: tt.labels}
			ClassifySeries(s)
			if s.Signal != tt.signal || s.Stat != tt.stat || s.Unit != tt.unit {
				t.Errorf("%s: got signal=%v stat=%q unit=%q, want %v %q %q", tt.metric, s.Signal, s.Stat, s.Unit, tt.signal, tt.stat, tt.unit)
			}
			if s.Entity != tt.entity {
				t.Errorf("%s: entity %+v, want %+v", tt.metric, s.Entity, tt.entity)
			}
			// Idempotent: a second call changes nothing.
			before := *s
			ClassifySeries(s)
			if s.Signal != before.Signal || s.Stat != before.Stat || s.Unit != before.Unit || s.Entity != before.Entity {
				t.Errorf("second ClassifySeries changed the series")
			}
		})
	}
}

func TestClassifySeriesKeepsPreset(t *testing.T) {
	s := &Series{Name: "utilization.gpu", Signal: SignalGPUUtil, Unit: "%", Labels: clsLabels("uuid=GPU-1")}
	ClassifySeries(s)
	if s.Signal != SignalGPUUtil || s.Unit != "%" || s.Entity.Kind != KindGPU || s.Entity.GPU != "GPU-1" {
		t.Errorf("preset fields not kept or entity missing: %+v", s)
	}
}

func TestBadDirection(t *testing.T) {
	tests := []struct {
		name   string
		metric string
		want   int
	}{
		{"success ratio down is bad", "service:request_success:ratio", -1},
		{"sm clock down is bad", "DCGM_FI_DEV_SM_CLOCK", -1},
		{"mem clock down is bad", "DCGM_FI_DEV_MEM_CLOCK", -1},
		{"fb free down is bad", "DCGM_FI_DEV_FB_FREE", -1},
		{"mem available down is bad", "node_memory_MemAvailable_bytes", -1},
		{"up down is bad", "up", -1},
		{"latency up is bad", "pod:request_duration_seconds:p99", +1},
		{"xid up is bad", "DCGM_FI_DEV_XID_ERRORS", +1},
		{"kv cache up is bad", "vllm:kv_cache_usage_perc", +1},
		{"cpu up is bad", "pod:container_cpu_usage:ratio", +1},
		{"traffic unknown", "pod:requests:rate1m", 0},
		{"other unknown", "go_goroutines", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Series{Name: tt.metric}
			ClassifySeries(s)
			if got := BadDirection(s); got != tt.want {
				t.Errorf("BadDirection(%s [%v %s]) = %d, want %d", tt.metric, s.Signal, s.Stat, got, tt.want)
			}
		})
	}
}
