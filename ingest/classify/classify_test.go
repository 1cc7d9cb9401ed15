package classify

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
)

// lbls builds sorted Labels from "name=value" strings.
func clsLabels(kv ...string) model.Labels {
	var ls model.Labels
	for _, s := range kv {
		n, v, _ := strings.Cut(s, "=")
		ls = append(ls, model.Label{Name: n, Value: v})
	}
	model.SortLabels(ls)
	return ls
}

func TestClassifySeries(t *testing.T) {
	const uuid = "GPU-9f3c5e2a-1b2c-4d5e-8f90-123456789abc"
	dcgm := []string{"gpu=0", "UUID=" + uuid, "device=nvidia0", "modelName=NVIDIA H100 80GB HBM3", "Hostname=gpu-node-1",
		"pod=vllm-llama-6d9f8b7c5-x2kq9", "namespace=llm", "container=vllm"}
	tests := []struct {
		name   string
		metric string
		labels model.Labels
		signal model.SignalKind
		stat   string
		unit   string
		entity model.Entity
	}{
		// vLLM, old and new spellings.
		{"vllm old kv cache", "vllm:gpu_cache_usage_perc", clsLabels("model_name=llama", "pod=vllm-0"), model.SignalKVCache, "ratio", "ratio",
			model.Entity{Kind: model.KindPod, Name: "vllm-0", Service: "vllm"}},
		{"vllm new kv cache", "vllm:kv_cache_usage_perc", clsLabels("model_name=llama", "job=vllm"), model.SignalKVCache, "ratio", "ratio",
			model.Entity{Kind: model.KindService, Name: "vllm", Service: "vllm"}},
		{"vllm model_name alone is no service", "vllm:num_preemptions_total", clsLabels("model_name=llama"), model.SignalKVCache, "count", "", model.Entity{}},
		{"vllm ttft", "vllm:time_to_first_token_seconds_bucket", clsLabels("le=0.5", "job=vllm"), model.SignalLatency, "bucket", "s",
			model.Entity{Kind: model.KindService, Name: "vllm", Service: "vllm"}},
		{"vllm old tpot", "vllm:time_per_output_token_seconds_sum", nil, model.SignalLatency, "sum", "s", model.Entity{}},
		{"vllm new itl", "vllm:inter_token_latency_seconds_count", nil, model.SignalLatency, "count", "s", model.Entity{}},
		{"vllm e2e p99 quantile", "vllm:e2e_request_latency_seconds", clsLabels("quantile=0.99"), model.SignalLatency, "p99", "s", model.Entity{}},
		{"vllm waiting", "vllm:num_requests_waiting", nil, model.SignalQueue, "", "", model.Entity{}},
		{"vllm running is queue", "vllm:num_requests_running", nil, model.SignalQueue, "", "", model.Entity{}},
		{"vllm success counter is traffic", "vllm:request_success_total", nil, model.SignalTraffic, "count", "", model.Entity{}},
		// DCGM, old and 4.6 names.
		{"dcgm util", "DCGM_FI_DEV_GPU_UTIL", clsLabels(dcgm...), model.SignalGPUUtil, "", "%",
			model.Entity{Kind: model.KindGPU, Name: uuid, GPU: uuid, Node: "gpu-node-1", Service: "vllm-llama"}},
		{"dcgm gr engine", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", clsLabels(dcgm...), model.SignalGPUUtil, "", "ratio",
			model.Entity{Kind: model.KindGPU, Name: uuid, GPU: uuid, Node: "gpu-node-1", Service: "vllm-llama"}},
		{"dcgm sm active", "DCGM_FI_PROF_SM_ACTIVE", nil, model.SignalGPUUtil, "", "ratio", model.Entity{}},
		{"dcgm mem copy", "DCGM_FI_DEV_MEM_COPY_UTIL", nil, model.SignalGPUMemBW, "", "%", model.Entity{}},
		{"dcgm dram", "DCGM_FI_PROF_DRAM_ACTIVE", nil, model.SignalGPUMemBW, "", "ratio", model.Entity{}},
		{"dcgm sm clock", "DCGM_FI_DEV_SM_CLOCK", nil, model.SignalGPUClock, "", "MHz", model.Entity{}},
		{"dcgm mem clock", "DCGM_FI_DEV_MEM_CLOCK", nil, model.SignalGPUClock, "", "MHz", model.Entity{}},
		{"dcgm throttle old", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", nil, model.SignalGPUThrottle, "", "", model.Entity{}},
		{"dcgm throttle 4.6", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", nil, model.SignalGPUThrottle, "", "", model.Entity{}},
		{"dcgm gpu temp", "DCGM_FI_DEV_GPU_TEMP", nil, model.SignalTemperature, "", "C", model.Entity{}},
		{"dcgm memory temp", "DCGM_FI_DEV_MEMORY_TEMP", nil, model.SignalTemperature, "", "C", model.Entity{}},
		{"dcgm power", "DCGM_FI_DEV_POWER_USAGE", nil, model.SignalPower, "", "W", model.Entity{}},
		{"dcgm xid", "DCGM_FI_DEV_XID_ERRORS", nil, model.SignalXID, "", "", model.Entity{}},
		{"dcgm ecc", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", nil, model.SignalXID, "count", "", model.Entity{}},
		{"dcgm fb used", "DCGM_FI_DEV_FB_USED", nil, model.SignalGPUMemory, "", "MiB", model.Entity{}},
		{"dcgm fb free", "DCGM_FI_DEV_FB_FREE", nil, model.SignalGPUMemory, "", "MiB", model.Entity{}},
		{"dcgm nvlink", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", nil, model.SignalNVLink, "count", "", model.Entity{}},
		{"dcgm gpu index without uuid", "DCGM_FI_DEV_GPU_UTIL", clsLabels("gpu=3", "Hostname=h1"), model.SignalGPUUtil, "", "%",
			model.Entity{Kind: model.KindGPU, Name: "h1/3", GPU: "h1/3", Node: "h1"}},
		{"dcgm exporter pod is not the workload", "DCGM_FI_DEV_GPU_UTIL",
			clsLabels("UUID=GPU-1", "pod=dcgm-exporter-x7k2p", "exported_pod=trainer-0", "instance=10.0.0.5:9400"), model.SignalGPUUtil, "", "%",
			model.Entity{Kind: model.KindGPU, Name: "GPU-1", GPU: "GPU-1", Node: "10.0.0.5", Service: "trainer"}},
		// cAdvisor and kube-state-metrics.
		{"cadvisor cpu", "container_cpu_usage_seconds_total", clsLabels("container=cartservice", "pod=cartservice-579f59597d-wc2lz", "instance=10.0.0.9:10250"),
			model.SignalCPU, "count", "s", model.Entity{Kind: model.KindPod, Name: "cartservice-579f59597d-wc2lz", Service: "cartservice", Node: "10.0.0.9"}},
		{"cadvisor throttle", "container_cpu_cfs_throttled_periods_total", nil, model.SignalCPUThrottle, "count", "", model.Entity{}},
		{"cadvisor working set", "container_memory_working_set_bytes", nil, model.SignalMemory, "", "bytes", model.Entity{}},
		{"cadvisor fs reads", "container_fs_reads_bytes_total", nil, model.SignalDiskIO, "count", "bytes", model.Entity{}},
		{"cadvisor net rx", "container_network_receive_bytes_total", nil, model.SignalNetwork, "count", "bytes", model.Entity{}},
		{"restarts", "kube_pod_container_status_restarts_total", clsLabels("pod=redis-0", "container=redis"), model.SignalRestarts, "count", "",
			model.Entity{Kind: model.KindPod, Name: "redis-0", Service: "redis"}},
		// node-exporter.
		{"node cpu", "node_cpu_seconds_total", clsLabels("instance=10.0.0.7:9100", "job=node-exporter", "mode=idle"), model.SignalCPU, "count", "s",
			model.Entity{Kind: model.KindNode, Name: "10.0.0.7", Node: "10.0.0.7"}},
		{"node mem available", "node_memory_MemAvailable_bytes", clsLabels("instance=10.0.0.7:9100"), model.SignalMemory, "", "bytes",
			model.Entity{Kind: model.KindNode, Name: "10.0.0.7", Node: "10.0.0.7"}},
		{"node disk", "node_disk_io_time_seconds_total", nil, model.SignalDiskIO, "count", "s", model.Entity{}},
		// nezha recording rules: node series are per-pod copies.
		{"nezha node cpu", "node:cpu_usage:ratio", clsLabels("namespace=hipster", "node=33.33.33.115", "pod=paymentservice-9cdb6588f-554sm"),
			model.SignalCPU, "ratio", "ratio", model.Entity{Kind: model.KindNode, Name: "33.33.33.115", Node: "33.33.33.115", Service: "paymentservice"}},
		{"nezha pod cpu rate", "pod:container_cpu_usage:rate1m", clsLabels("container=adservice", "node=33.33.33.76", "pod=adservice-5f6585d649-fnmft"),
			model.SignalCPU, "rate", "cores", model.Entity{Kind: model.KindPod, Name: "adservice-5f6585d649-fnmft", Service: "adservice", Node: "33.33.33.76"}},
		{"nezha pod requests", "pod:requests:rate1m", clsLabels("pod=adservice-5f6585d649-fnmft"), model.SignalTraffic, "rate", "1/s",
			model.Entity{Kind: model.KindPod, Name: "adservice-5f6585d649-fnmft", Service: "adservice"}},
		{"nezha success ratio", "service:request_success:ratio", clsLabels("namespace=hipster", "service=frontend"), model.SignalErrors, "success_ratio", "ratio",
			model.Entity{Kind: model.KindService, Name: "frontend", Service: "frontend"}},
		{"nezha net rate", "node:network_receive_bytes:rate1m", nil, model.SignalNetwork, "rate", "bytes/s", model.Entity{}},
		// Istio.
		{"istio edge p50", "istio:request_duration_seconds:p50",
			clsLabels("destination_workload=adservice", "namespace=hipster", "reporter=source", "source_workload=frontend"), model.SignalLatency, "p50", "s",
			model.Entity{Kind: model.KindEdge, Name: "frontend->adservice", Caller: "frontend", Callee: "adservice", Service: "adservice"}},
		{"istio requests", "istio_requests_total", clsLabels("source_workload=frontend", "destination_workload=cartservice", "response_code=200"),
			model.SignalTraffic, "count", "", model.Entity{Kind: model.KindEdge, Name: "frontend->cartservice", Caller: "frontend", Callee: "cartservice", Service: "cartservice"}},
		{"istio 5xx is errors", "istio_requests_total", clsLabels("destination_workload=cartservice", "response_code=503"), model.SignalErrors, "count", "",
			model.Entity{Kind: model.KindService, Name: "cartservice", Service: "cartservice"}},
		{"istio histogram", "istio_request_duration_milliseconds_bucket", clsLabels("le=100"), model.SignalLatency, "bucket", "ms", model.Entity{}},
		// Tempo / Grafana service graph.
		{"service graph total", "traces_service_graph_request_total", clsLabels("client=frontend", "server=checkoutservice"), model.SignalTraffic, "count", "",
			model.Entity{Kind: model.KindEdge, Name: "frontend->checkoutservice", Caller: "frontend", Callee: "checkoutservice", Service: "checkoutservice"}},
		{"service graph failed", "traces_service_graph_request_failed_total", clsLabels("client=frontend", "server=checkoutservice"), model.SignalErrors, "count", "",
			model.Entity{Kind: model.KindEdge, Name: "frontend->checkoutservice", Caller: "frontend", Callee: "checkoutservice", Service: "checkoutservice"}},
		{"service graph server seconds", "traces_service_graph_request_server_seconds_bucket", clsLabels("client=a", "server=b", "le=0.1"), model.SignalLatency, "bucket", "s",
			model.Entity{Kind: model.KindEdge, Name: "a->b", Caller: "a", Callee: "b", Service: "b"}},
		// Generic.
		{"grpc handled unavailable", "grpc_server_handled_total", clsLabels("grpc_code=Unavailable", "job=cart"), model.SignalErrors, "count", "",
			model.Entity{Kind: model.KindService, Name: "cart", Service: "cart"}},
		{"file base name", "pod_request_duration_seconds_p99", nil, model.SignalLatency, "p99", "s", model.Entity{}},
		{"unknown kept", "go_goroutines", clsLabels("job=prometheus"), model.SignalOther, "", "", model.Entity{Kind: model.KindService, Name: "prometheus", Service: "prometheus"}},
		{"instance only is node", "probe_success_ratio_x", clsLabels("instance=h2:80"), model.SignalErrors, "success_ratio", "ratio",
			model.Entity{Kind: model.KindNode, Name: "h2", Node: "h2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &model.Series{Name: tt.metric, Labels: tt.labels}
			Series(s)
			if s.Signal != tt.signal || s.Stat != tt.stat || s.Unit != tt.unit {
				t.Errorf("%s: got signal=%v stat=%q unit=%q, want %v %q %q", tt.metric, s.Signal, s.Stat, s.Unit, tt.signal, tt.stat, tt.unit)
			}
			if s.Entity != tt.entity {
				t.Errorf("%s: entity %+v, want %+v", tt.metric, s.Entity, tt.entity)
			}
			// Idempotent: a second call changes nothing.
			before := *s
			Series(s)
			if s.Signal != before.Signal || s.Stat != before.Stat || s.Unit != before.Unit || s.Entity != before.Entity {
				t.Errorf("second Series changed the series")
			}
		})
	}
}

func TestClassifySeriesKeepsPreset(t *testing.T) {
	s := &model.Series{Name: "utilization.gpu", Signal: model.SignalGPUUtil, Unit: "%", Labels: clsLabels("uuid=GPU-1")}
	Series(s)
	if s.Signal != model.SignalGPUUtil || s.Unit != "%" || s.Entity.Kind != model.KindGPU || s.Entity.GPU != "GPU-1" {
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
			s := &model.Series{Name: tt.metric}
			Series(s)
			if got := BadDirection(s); got != tt.want {
				t.Errorf("BadDirection(%s [%v %s]) = %d, want %d", tt.metric, s.Signal, s.Stat, got, tt.want)
			}
		})
	}
}

// TestRecordingRuleLevelKeepsPod: a recording rule whose level keeps the
// pod (kube-prometheus' node_namespace_pod_container:…) measures a pod's
// container, not the node; a node-level rule copied per pod (node:…) stays
// the node's.
func TestRecordingRuleLevelKeepsPod(t *testing.T) {
	for _, tt := range []struct {
		name string
		ls   model.Labels
		kind model.EntityKind
		ent  string
	}{
		{"node_namespace_pod_container:container_cpu_usage_seconds_total:sum_irate",
			model.Labels{{Name: "container", Value: "tokenizer"}, {Name: "node", Value: "cpu-node-1"}, {Name: "pod", Value: "tokenizer-xn27c9qcg-l9rdw"}},
			model.KindPod, "tokenizer-xn27c9qcg-l9rdw"},
		{"node:cpu_usage:ratio",
			model.Labels{{Name: "node", Value: "33.33.33.115"}, {Name: "pod", Value: "paymentservice-9cdb6588f-554sm"}},
			model.KindNode, "33.33.33.115"},
		{"node_cpu_seconds_total", model.Labels{{Name: "instance", Value: "h2:9100"}}, model.KindNode, "h2"},
	} {
		s := &model.Series{Name: tt.name, Labels: tt.ls}
		Series(s)
		if s.Entity.Kind != tt.kind || s.Entity.Name != tt.ent {
			t.Errorf("%s: entity %s/%s, want %s/%s", tt.name, s.Entity.Kind, s.Entity.Name, tt.kind, tt.ent)
		}
	}
}
