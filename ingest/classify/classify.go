package classify

import (
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
)

// nameTokens lowercases a metric name and splits it into words at every
// character that is not a letter or digit ("vllm:e2e_request_latency_seconds"
// → vllm e2e request latency seconds). It also returns the name with all
// separators folded to "_" (for multi-word substring rules).
func nameTokens(name string) (toks []string, folded string) {
	lower := strings.ToLower(name)
	var sb strings.Builder
	sb.Grow(len(lower) + 2)
	sb.WriteByte('_')
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			sb.WriteByte(c)
		} else {
			sb.WriteByte('_')
		}
	}
	sb.WriteByte('_')
	folded = sb.String()
	toks = strings.FieldsFunc(folded, func(r rune) bool { return r == '_' })
	return toks, folded
}

// nameInfo is a tokenised metric name with its labels, the input of the rules.
type nameInfo struct {
	toks []string
	// perPod is set when a recording rule's name says its output keeps a
	// pod or container label ("node_namespace_pod_container:metric:op":
	// the level before the first colon lists the labels aggregated by,
	// Prometheus' naming convention): a per-pod series whatever its
	// level's first word.
	perPod bool
	folded string // "_a_b_c_": separators folded, wrapped in "_"
	labels model.Labels
	gpu    bool // GPU context: DCGM/nvidia-smi name or GPU labels
}

// tok reports whether any of words is a whole token of the name.
func (n *nameInfo) tok(words ...string) bool {
	for _, t := range n.toks {
		for _, w := range words {
			if t == w {
				return true
			}
		}
	}
	return false
}

// sub reports whether any of parts occurs in the folded name. Parts are
// written with "_" separators; wrap a part in "_" to anchor it at word edges.
func (n *nameInfo) sub(parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(n.folded, p) {
			return true
		}
	}
	return false
}

// suffix reports whether the name's last token is w.
func (n *nameInfo) suffix(w string) bool {
	return len(n.toks) > 0 && n.toks[len(n.toks)-1] == w
}

// FirstLabel returns the first non-empty value among the named labels.
func FirstLabel(ls model.Labels, names ...string) string {
	for _, n := range names {
		if v := ls.Get(n); v != "" {
			return v
		}
	}
	return ""
}

var gpuLabelNames = []string{"UUID", "uuid", "gpu_uuid", "GPU_UUID"}

// signalRule is one name rule of classifySignal; the first that matches wins.
type signalRule struct {
	kind model.SignalKind
	tok  []string // any whole token
	sub  []string // any folded substring
	gpu  bool     // rule applies only in GPU context
}

// signalRules are ordered most specific first: GPU fields before the generic
// cpu/memory words, vLLM cache and token latencies before queue and latency,
// errors before latency and traffic.
var signalRules = []signalRule{
	{kind: model.SignalGPUThrottle, sub: []string{"throttle_reason", "clocks_event_reason", "clock_event_reason", "clocks_throttle"}},
	{kind: model.SignalXID, tok: []string{"xid", "ecc"}, sub: []string{"retired_pages", "row_remap"}},
	{kind: model.SignalOther, tok: []string{"pcie"}},
	{kind: model.SignalGPUClock, sub: []string{"_sm_clock_", "_mem_clock_", "_clocks_sm_", "_clocks_mem_", "_clocks_gr_", "_clocks_current_", "_clocks_video_"}},
	{kind: model.SignalGPUClock, tok: []string{"clock", "clocks"}, gpu: true},
	{kind: model.SignalTemperature, tok: []string{"temp", "temperature", "celsius"}},
	{kind: model.SignalPower, tok: []string{"power", "energy", "watts"}},
	{kind: model.SignalNVLink, tok: []string{"nvlink"}},
	{kind: model.SignalGPUMemory, sub: []string{"_fb_used", "_fb_free", "_fb_total", "_fb_reserved"}},
	{kind: model.SignalGPUMemory, sub: []string{"_memory_used", "_memory_free", "_memory_total", "_memory_reserved"}, gpu: true},
	{kind: model.SignalGPUMemBW, sub: []string{"mem_copy_util", "dram_active", "utilization_memory"}},
	{kind: model.SignalGPUUtil, sub: []string{"gpu_util", "gr_engine_active", "sm_active", "sm_occupancy", "utilization_gpu", "tensor_active", "_fp16_active", "_fp32_active", "_fp64_active", "_enc_util", "_dec_util"}},
	{kind: model.SignalKVCache, sub: []string{"cache_usage_perc", "kv_cache", "kvcache", "num_preemption", "preemptions", "prefix_cache"}},
	{kind: model.SignalLatency, sub: []string{"time_to_first_token", "time_per_output_token", "inter_token_latency", "e2e_request_latency",
		"request_prefill_time", "request_decode_time", "request_inference_time"}, tok: []string{"ttft", "tpot", "itl"}},
	{kind: model.SignalQueue, sub: []string{"num_requests_waiting", "num_requests_running", "num_requests_swapped", "queue_time", "in_flight", "inflight"},
		tok: []string{"queue", "queued", "pending", "waiting", "backlog"}},
	{kind: model.SignalRestarts, sub: []string{"restart"}},
	{kind: model.SignalCPUThrottle, sub: []string{"throttled", "throttling"}},
	{kind: model.SignalCPU, tok: []string{"cpu"}},
	{kind: model.SignalMemory, tok: []string{"memory", "mem", "rss", "heap", "oom"}, sub: []string{"working_set", "memavailable", "memfree"}},
	{kind: model.SignalDiskIO, tok: []string{"fs", "disk", "io", "iops", "filesystem", "blkio"}},
	{kind: model.SignalNetwork, tok: []string{"network", "net", "receive", "transmit", "rx", "tx", "packets", "tcp"}},
	{kind: model.SignalTraffic, sub: []string{"_success_total_", "_success_count_"}},
	{kind: model.SignalErrors, tok: []string{"error", "errors", "failed", "failure", "failures", "fail", "exception", "exceptions", "5xx", "success", "availability", "apdex"}},
	{kind: model.SignalLatency, tok: []string{"duration", "latency", "latencies", "elapsed"}, sub: []string{"response_time", "request_time", "_rt_"}},
	// Traffic must stay last: classifySignal checks seconds-valued
	// histograms just before it.
	{kind: model.SignalTraffic, tok: []string{"requests", "request", "calls", "rps", "qps", "throughput", "hits", "tokens", "reqs", "handled"}},
}

// classifySignal picks the signal kind of a tokenised name (rules above,
// then the "_seconds" histogram/summary fallback).
func classifySignal(n *nameInfo) model.SignalKind {
	for i, r := range signalRules {
		if r.gpu && !n.gpu {
			continue
		}
		if i == len(signalRules)-1 && secondsHistogram(n) {
			// Before the generic traffic words: a seconds-valued histogram
			// or summary ("..._request_server_seconds_bucket") is a latency.
			return model.SignalLatency
		}
		if n.tok(r.tok...) || n.sub(r.sub...) {
			return r.kind
		}
	}
	return model.SignalOther
}

// secondsHistogram reports a time-valued histogram, summary or quantile.
func secondsHistogram(n *nameInfo) bool {
	return n.tok("seconds", "milliseconds", "ms", "microseconds") &&
		(n.suffix("bucket") || n.suffix("sum") || n.suffix("count") || quantileStat(n) != "" || n.labels.Get("le") != "")
}

// quantileStat returns "p50", "p99", ... named by a token or the quantile label.
func quantileStat(n *nameInfo) string {
	if q := n.labels.Get("quantile"); q != "" {
		if s := quantileName(q); s != "" {
			return s
		}
	}
	for i := len(n.toks) - 1; i >= 0; i-- {
		t := n.toks[i]
		if len(t) >= 3 && len(t) <= 5 && t[0] == 'p' && model.IsDigits(t[1:]) {
			return t
		}
		if t == "median" {
			return "p50"
		}
	}
	return ""
}

// quantileName maps "0.99" → "p99", "0.5" → "p50", "0.999" → "p999".
func quantileName(q string) string {
	q = strings.TrimSpace(q)
	if !strings.HasPrefix(q, "0.") || !model.IsDigits(q[2:]) {
		return ""
	}
	d := q[2:]
	if len(d) == 1 {
		d += "0"
	}
	return "p" + d
}

// isRateToken reports rate1m, rate5m, irate, rate, ... tokens.
func isRateToken(t string) bool {
	switch t {
	case "rate", "irate", "rps", "qps", "persecond":
		return true
	}
	return strings.HasPrefix(t, "rate") && len(t) > 4 && t[4] >= '0' && t[4] <= '9'
}

// classifyStat picks the aggregation of a series.
func classifyStat(n *nameInfo, sig model.SignalKind) string {
	if q := quantileStat(n); q != "" {
		return q
	}
	if sig == model.SignalErrors && n.tok("success") && !n.suffix("total") && !n.suffix("count") {
		return "success_ratio"
	}
	switch {
	case n.suffix("bucket") || n.labels.Get("le") != "":
		return "bucket"
	case n.suffix("sum"):
		return "sum"
	case n.suffix("count"):
		return "count"
	}
	for _, t := range n.toks {
		if isRateToken(t) {
			return "rate"
		}
	}
	switch {
	case n.tok("ratio", "perc", "percent", "percentage", "pct", "fraction"):
		return "ratio"
	case n.tok("avg", "mean", "average"):
		return "mean"
	case n.tok("max"):
		return "max"
	case n.tok("min"):
		return "min"
	case n.suffix("total"):
		return "count"
	}
	return ""
}

// classifyUnit picks the unit of a series from its signal, stat and name.
func classifyUnit(n *nameInfo, sig model.SignalKind, stat string) string {
	switch sig {
	case model.SignalTemperature:
		return "C"
	case model.SignalPower:
		if n.tok("energy") {
			return "mJ"
		}
		return "W"
	case model.SignalGPUClock:
		return "MHz"
	case model.SignalGPUMemory:
		if n.tok("bytes") {
			return "bytes"
		}
		return "MiB"
	case model.SignalGPUUtil, model.SignalGPUMemBW:
		if n.tok("prof") || n.tok("ratio") {
			return "ratio"
		}
		return "%"
	case model.SignalKVCache:
		if n.sub("usage_perc", "usage") {
			return "ratio" // vLLM reports the cache usage as a 0..1 fraction despite "perc"
		}
	}
	if stat == "ratio" || stat == "success_ratio" {
		if n.tok("percent", "percentage", "pct") {
			return "%"
		}
		return "ratio"
	}
	base := ""
	switch {
	case n.tok("seconds"):
		base = "s"
	case n.tok("milliseconds", "ms"):
		base = "ms"
	case n.tok("microseconds", "us"):
		base = "us"
	case n.tok("bytes"):
		base = "bytes"
	case n.tok("percent", "percentage", "pct"):
		base = "%"
	}
	if stat != "rate" {
		return base
	}
	switch {
	case base == "bytes":
		return "bytes/s"
	case sig == model.SignalCPU && (base == "s" || base == ""):
		return "cores"
	case base == "":
		return "1/s"
	}
	return base + "/s"
}

// errorCodeLabel reports whether a request counter carries an HTTP 5xx or a
// server-side gRPC failure code.
func errorCodeLabel(ls model.Labels) bool {
	for _, name := range []string{"code", "status", "status_code", "response_code", "http_status", "http_status_code", "http_response_status_code"} {
		if v := ls.Get(name); len(v) == 3 && v[0] == '5' && model.IsDigits(v) || strings.EqualFold(v, "5xx") {
			return true
		}
	}
	switch FirstLabel(ls, "grpc_code", "grpc_status", "rpc_grpc_status_code") {
	case "Unknown", "Internal", "Unavailable", "DeadlineExceeded", "DataLoss", "Unimplemented", "2", "4", "12", "13", "14", "15":
		return true
	}
	return false
}

// Series sets s.Signal, s.Stat, s.Unit and s.Entity from the series
// name and labels. Fields a reader already set (non-zero) are kept, so a
// reader that knows better can pre-fill them, and calling it twice is a
// no-op. It never fails: unknown series get SignalOther and are kept.
//
// Old and new spellings are both recognised: vLLM gpu_cache_usage_perc and
// kv_cache_usage_perc, time_per_output_token_seconds and
// inter_token_latency_seconds; DCGM CLOCK_THROTTLE_REASONS and the 4.6
// CLOCKS_EVENT_REASONS. Stat comes from a quantile label or a pNN token
// ("p99"), a histogram suffix ("bucket", "sum", "count"), a rate token
// ("rate1m" → "rate"), ratio words ("ratio"), mean words ("mean"), or a
// counter's "_total" ("count"). A success ratio is SignalErrors with Stat
// "success_ratio" (see BadDirection).
func Series(s *model.Series) {
	toks, folded := nameTokens(s.Name)
	n := &nameInfo{toks: toks, folded: folded, labels: s.Labels, perPod: levelKeepsPod(s.Name)}
	n.gpu = n.tok("dcgm", "nvidia", "gpu", "nvml", "smi") || FirstLabel(s.Labels, gpuLabelNames...) != ""
	if s.Signal == model.SignalOther {
		s.Signal = classifySignal(n)
		if s.Signal == model.SignalTraffic && errorCodeLabel(s.Labels) {
			s.Signal = model.SignalErrors
		}
	}
	if s.Stat == "" {
		s.Stat = classifyStat(n, s.Signal)
	}
	if s.Unit == "" {
		s.Unit = classifyUnit(n, s.Signal, s.Stat)
	}
	if s.Entity.Kind == model.KindUnknown && s.Entity.Name == "" {
		s.Entity = entityOf(n)
	}
}

// levelKeepsPod reports whether a recording rule's name
// ("level:metric:operations") has a level that keeps the pod or container
// label ("node_namespace_pod_container", "namespace_pod").
func levelKeepsPod(name string) bool {
	level, rest, ok := strings.Cut(name, ":")
	if !ok || !strings.Contains(rest, ":") && rest == "" {
		return false
	}
	for _, t := range strings.Split(level, "_") {
		if t == "pod" || t == "container" {
			return true
		}
	}
	return false
}

// BadDirection tells which way a series moves when something is wrong: +1
// when a rise is bad (latency, errors, saturation, temperature, XID counts),
// -1 when a fall is bad (success ratios, GPU SM/memory clocks, free or
// available memory, "up"), 0 when unknown or both (traffic, other).
func BadDirection(s *model.Series) int {
	toks, folded := nameTokens(s.Name)
	n := &nameInfo{toks: toks, folded: folded, labels: s.Labels}
	if s.Stat == "success_ratio" || s.Name == "up" || n.tok("success", "availability", "apdex") && s.Signal != model.SignalTraffic {
		return -1
	}
	switch s.Signal {
	case model.SignalGPUClock:
		return -1
	case model.SignalMemory, model.SignalGPUMemory:
		if n.tok("free", "available", "memavailable", "memfree") {
			return -1
		}
		return +1
	case model.SignalTraffic, model.SignalOther, model.SignalNVLink:
		return 0
	}
	return +1
}

// edgeLabelPairs are caller/callee label pairs, in order of preference:
// Istio workloads, Istio canonical services and apps, the Tempo/Grafana
// service graph, and generic caller/callee names.
var edgeLabelPairs = [][2]string{
	{"source_workload", "destination_workload"},
	{"source_canonical_service", "destination_canonical_service"},
	{"source_app", "destination_app"},
	{"client", "server"},
	{"caller", "callee"},
	{"source_service", "destination_service_name"},
	{"src_service", "dst_service"},
}

// podLabelNames are the labels naming a pod; exported_pod first, as the
// exporter's own pod lands in pod when Prometheus renames on conflict.
var podLabelNames = []string{"exported_pod", "pod", "pod_name", "k8s_pod_name", "kubernetes_pod_name"}

// nodeLabelNames are the labels naming a node or host (instance excluded).
var NodeLabelNames = []string{"node", "kubernetes_node", "node_name", "k8s_node_name", "nodename", "Hostname", "hostname", "host"}

// serviceLabelNames are the labels naming a service, most explicit first.
var serviceLabelNames = []string{"service", "service_name", "app_kubernetes_io_name", "app", "k8s_app", "destination_workload",
	"destination_service_name", "exported_container", "container", "job"}

// usableWorkloadLabel filters container-like label values that do not name
// a workload (the pause container, sidecars).
func usableWorkloadLabel(v string) bool {
	switch v {
	case "", "POD", "istio-proxy", "linkerd-proxy", "envoy":
		return false
	}
	return true
}

// podService is the workload a pod belongs to: WorkloadOf(pod) when the pod
// name looks generated, else an app or container label, else the pod name.
func podService(pod string, ls model.Labels) string {
	if w := model.WorkloadOf(pod); w != pod {
		return w
	}
	for _, name := range []string{"app_kubernetes_io_name", "app", "exported_container", "container"} {
		if v := ls.Get(name); usableWorkloadLabel(v) {
			return v
		}
	}
	return pod
}

// entityOf places a series, most specific entity first: GPU, edge, node
// metric (node_ or node: prefix), pod, service, node.
func entityOf(n *nameInfo) model.Entity {
	ls := n.labels
	node := model.NormalizeHost(FirstLabel(ls, NodeLabelNames...))
	pod := FirstLabel(ls, podLabelNames...)
	if n.gpu {
		if p := ls.Get("pod"); pod == p && strings.Contains(model.WorkloadOf(p), "dcgm-exporter") {
			pod = "" // the exporter's own pod, not the GPU's workload
		}
	}
	svc := ""
	if pod != "" {
		svc = podService(pod, ls)
	}
	instanceHost := model.NormalizeHost(ls.Get("instance"))

	// GPU: a UUID label, or a gpu index label on a GPU metric.
	uuid := FirstLabel(ls, gpuLabelNames...)
	idx := FirstLabel(ls, "gpu", "GPU", "gpu_index", "minor_number")
	if uuid != "" || idx != "" && n.gpu {
		if node == "" {
			node = instanceHost
		}
		id := uuid
		if id == "" {
			id = node + "/" + idx
		}
		if svc == "" {
			if c := FirstLabel(ls, "exported_container", "container"); usableWorkloadLabel(c) {
				svc = c
			}
		}
		return model.Entity{Kind: model.KindGPU, Name: id, GPU: id, Node: node, Service: svc}
	}

	for _, p := range edgeLabelPairs {
		caller, callee := ls.Get(p[0]), ls.Get(p[1])
		if caller != "" && callee != "" {
			if p[1] == "destination_service_name" {
				callee, _, _ = strings.Cut(callee, ".")
			}
			return model.Entity{Kind: model.KindEdge, Name: caller + "->" + callee, Caller: caller, Callee: callee, Service: callee}
		}
	}

	// Node metrics; in some datasets copied per pod, placed via the pod.
	// A recording rule whose level keeps the pod is the pod's.
	if len(n.toks) > 0 && n.toks[0] == "node" && !(n.perPod && pod != "") {
		host := node
		if host == "" {
			host = instanceHost
		}
		if host != "" {
			return model.Entity{Kind: model.KindNode, Name: host, Node: host, Service: svc}
		}
	}

	if pod != "" {
		if node == "" && len(n.toks) > 0 && n.toks[0] == "container" {
			node = instanceHost // cAdvisor is scraped from the node's kubelet
		}
		return model.Entity{Kind: model.KindPod, Name: pod, Service: svc, Node: node}
	}

	for _, name := range serviceLabelNames {
		if v := ls.Get(name); usableWorkloadLabel(v) {
			return model.Entity{Kind: model.KindService, Name: v, Service: v, Node: node}
		}
	}

	if node == "" {
		node = instanceHost
	}
	if node != "" {
		return model.Entity{Kind: model.KindNode, Name: node, Node: node}
	}
	return model.Entity{}
}

// versionLabelNames are the labels naming the version of the code a pod
// runs (Kubernetes recommended labels, Istio's version, OpenTelemetry's
// service.version as exporters spell it) or the pod template it was made
// from (Deployments' pod-template-hash, Argo Rollouts', StatefulSets'
// controller revision).
var versionLabelNames = []string{"version", "app_version", "service_version", "service.version",
	"app_kubernetes_io_version", "app.kubernetes.io/version", "pod_template_hash", "rollouts_pod_template_hash",
	"controller_revision_hash"}

// VersionOf returns the version a series' labels give ("" when none).
func VersionOf(ls model.Labels) string { return FirstLabel(ls, versionLabelNames...) }

// PodOf returns the pod a series measures: its entity's name for a pod
// series, else a pod label (a call-edge series reported per pod, a node
// series copied per pod); "" when none.
func PodOf(s *model.Series) string {
	if s.Entity.Kind == model.KindPod {
		return s.Entity.Name
	}
	return FirstLabel(s.Labels, podLabelNames...)
}

// IdentityLabel reports whether a label names which instance a series is
// of (its pod, version, node, container or address) rather than what it
// measures: series that differ only in such labels measure the same thing
// of different instances.
func IdentityLabel(name string) bool {
	if slices.Contains(podLabelNames, name) || slices.Contains(versionLabelNames, name) || slices.Contains(NodeLabelNames, name) ||
		slices.Contains(gpuLabelNames, name) {
		return true
	}
	switch name {
	case "instance", "pod_ip", "ip", "uid", "pod_uid", "container_id", "id", "name", "image", "image_id",
		"gpu", "GPU", "gpu_index", "minor_number", "device", "pci_bus_id", "modelName", "DCGM_FI_DRIVER_VERSION":
		return true
	}
	return false
}

// ServiceLabel returns the service a series' labels name, most explicit
// label first ("" when none does).
func ServiceLabel(ls model.Labels) string {
	for _, name := range serviceLabelNames {
		if v := ls.Get(name); usableWorkloadLabel(v) {
			return v
		}
	}
	return ""
}

// MeasuresNode reports whether a series name measures the machine a pod
// runs on rather than the pod, whatever labels it carries: node_exporter's
// node_* metrics and recording rules over them ("pod:node_cpu_utilisation:ratio",
// "instance:node_cpu:rate5m"), whose middle part is the metric.
func MeasuresNode(name string) bool {
	metric := name
	if parts := strings.Split(name, ":"); len(parts) == 3 {
		metric = parts[1]
	}
	return strings.HasPrefix(metric, "node_")
}
