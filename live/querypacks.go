package live

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
)

// Query is one PromQL query_range request. Name becomes the saved file name
// (prometheus/qr_<Name>.json); results without __name__ (rate,
// histogram_quantile, ...) take it as their series name, so names follow the
// metric naming the classifier knows (..._p99, ..._rate).
type Query struct {
	Pack string // "vllm", "dcgm", ... or "user"
	Name string
	Expr string // PromQL with the __SEL__ and __RATE__ placeholders (packs only)
}

// Placeholders in pack queries: __SEL__ stands where the --selector matchers
// go inside every vector selector's braces, __RATE__ for the rate window.
const (
	selPH  = "__SEL__"
	ratePH = "__RATE__"
)

// packs are the built-in query packs. Both old and new metric names are
// queried where exporters renamed them (vLLM V0/V1, DCGM < 4.6 / >= 4.6); a
// name that does not exist simply returns nothing.
var packs = []Query{
	// vLLM (gauges keep __name__; quantiles are named after the histogram).
	{"vllm", "vllm_num_requests_running", `vllm:num_requests_running{__SEL__}`},
	{"vllm", "vllm_num_requests_waiting", `vllm:num_requests_waiting{__SEL__}`},
	{"vllm", "vllm_gpu_cache_usage_perc", `vllm:gpu_cache_usage_perc{__SEL__}`},
	{"vllm", "vllm_kv_cache_usage_perc", `vllm:kv_cache_usage_perc{__SEL__}`},
	{"vllm", "vllm_num_preemptions_rate", `sum by (namespace, pod, model_name) (rate(vllm:num_preemptions_total{__SEL__}[__RATE__]))`},
	{"vllm", "vllm_time_to_first_token_seconds_p99", `histogram_quantile(0.99, sum by (le, namespace, pod, model_name) (rate(vllm:time_to_first_token_seconds_bucket{__SEL__}[__RATE__])))`},
	{"vllm", "vllm_time_per_output_token_seconds_p99", `histogram_quantile(0.99, sum by (le, namespace, pod, model_name) (rate(vllm:time_per_output_token_seconds_bucket{__SEL__}[__RATE__])))`},
	{"vllm", "vllm_inter_token_latency_seconds_p99", `histogram_quantile(0.99, sum by (le, namespace, pod, model_name) (rate(vllm:inter_token_latency_seconds_bucket{__SEL__}[__RATE__])))`},
	{"vllm", "vllm_e2e_request_latency_seconds_p99", `histogram_quantile(0.99, sum by (le, namespace, pod, model_name) (rate(vllm:e2e_request_latency_seconds_bucket{__SEL__}[__RATE__])))`},
	// DCGM exporter gauges (both spellings of the renamed fields).
	{"dcgm", "DCGM_FI_DEV_GPU_UTIL", `DCGM_FI_DEV_GPU_UTIL{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_FB_USED", `DCGM_FI_DEV_FB_USED{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_GPU_TEMP", `DCGM_FI_DEV_GPU_TEMP{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_POWER_USAGE", `DCGM_FI_DEV_POWER_USAGE{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_SM_CLOCK", `DCGM_FI_DEV_SM_CLOCK{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_XID_ERRORS", `DCGM_FI_DEV_XID_ERRORS{__SEL__}`},
	{"dcgm", "DCGM_FI_PROF_DRAM_ACTIVE", `DCGM_FI_PROF_DRAM_ACTIVE{__SEL__}`},
	{"dcgm", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", `DCGM_FI_PROF_GR_ENGINE_ACTIVE{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{__SEL__}`},
	{"dcgm", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", `DCGM_FI_DEV_CLOCKS_EVENT_REASONS{__SEL__}`},
	// cAdvisor / kubelet / kube-state-metrics.
	{"cadvisor", "container_cpu_usage_seconds_rate", `sum by (namespace, pod, container, node) (rate(container_cpu_usage_seconds_total{container!="",container!="POD",__SEL__}[__RATE__]))`},
	{"cadvisor", "container_cpu_cfs_throttled_periods_rate", `sum by (namespace, pod, container, node) (rate(container_cpu_cfs_throttled_periods_total{container!="",container!="POD",__SEL__}[__RATE__]))`},
	{"cadvisor", "container_memory_working_set_bytes", `container_memory_working_set_bytes{container!="",container!="POD",__SEL__}`},
	{"cadvisor", "kube_pod_container_status_restarts_total", `kube_pod_container_status_restarts_total{__SEL__}`},
	// node-exporter.
	{"node", "node_cpu_utilisation", `1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle",__SEL__}[__RATE__]))`},
	{"node", "node_memory_MemAvailable_bytes", `node_memory_MemAvailable_bytes{__SEL__}`},
	{"node", "node_load1", `node_load1{__SEL__}`},
	// Istio (Envoy sidecar) RED per destination service.
	{"istio", "istio_requests_rate", `sum by (destination_service_name, source_workload, response_code) (rate(istio_requests_total{reporter="destination",__SEL__}[__RATE__]))`},
	{"istio", "istio_request_duration_milliseconds_p99", `histogram_quantile(0.99, sum by (le, destination_service_name, source_workload) (rate(istio_request_duration_milliseconds_bucket{reporter="destination",__SEL__}[__RATE__])))`},
	// OpenTelemetry Collector servicegraph connector.
	{"servicegraph", "traces_service_graph_request_rate", `sum by (client, server) (rate(traces_service_graph_request_total{__SEL__}[__RATE__]))`},
	{"servicegraph", "traces_service_graph_request_failed_rate", `sum by (client, server) (rate(traces_service_graph_request_failed_total{__SEL__}[__RATE__]))`},
	{"servicegraph", "traces_service_graph_request_server_seconds_p99", `histogram_quantile(0.99, sum by (le, client, server) (rate(traces_service_graph_request_server_seconds_bucket{__SEL__}[__RATE__])))`},
	// OpenTelemetry Collector spanmetrics connector (what Jaeger SPM reads;
	// Tempo's metrics generator spells it traces_spanmetrics_*, latency in s).
	{"spanmetrics", "traces_span_metrics_calls_rate", `sum by (service_name) (rate({__name__=~"traces_span_metrics_calls_total|traces_spanmetrics_calls_total",__SEL__}[__RATE__]))`},
	{"spanmetrics", "traces_span_metrics_calls_error_rate", `sum by (service_name) (rate({__name__=~"traces_span_metrics_calls_total|traces_spanmetrics_calls_total",status_code="STATUS_CODE_ERROR",__SEL__}[__RATE__]))`},
	{"spanmetrics", "traces_span_metrics_duration_milliseconds_p99", `histogram_quantile(0.99, sum by (le, service_name) (rate(traces_span_metrics_duration_milliseconds_bucket{__SEL__}[__RATE__])))`},
	{"spanmetrics", "traces_span_metrics_duration_seconds_p99", `histogram_quantile(0.99, sum by (le, service_name) (rate({__name__=~"traces_span_metrics_duration_seconds_bucket|traces_spanmetrics_latency_bucket",__SEL__}[__RATE__])))`},
}

// PackNames lists the built-in packs in order.
func PackNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, q := range packs {
		if !seen[q.Pack] {
			seen[q.Pack] = true
			names = append(names, q.Pack)
		}
	}
	return names
}

var matcherRE = regexp.MustCompile(`^\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*$`)

// ParseSelector validates a --selector such as `{namespace="llm",pod=~"vllm-.*"}`
// (braces optional) and returns its matchers without braces.
func ParseSelector(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}"))
	if inner == "" {
		return "", nil
	}
	for _, m := range splitMatchers(inner) {
		if !matcherRE.MatchString(m) {
			return "", fmt.Errorf("--selector %q: %q is not a label matcher like name=\"value\"", s, strings.TrimSpace(m))
		}
	}
	return inner, nil
}

// splitMatchers splits on commas outside quotes.
func splitMatchers(s string) []string {
	var out []string
	start, inQ, esc := 0, false, false
	for i, r := range s {
		switch {
		case esc:
			esc = false
		case r == '\\':
			esc = true
		case r == '"':
			inQ = !inQ
		case r == ',' && !inQ:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, s[start:])
	}
	return out
}

// RateWindow is the range used inside rate(): four steps, at least 1m.
func RateWindow(step time.Duration) string {
	w := max(4*step, time.Minute)
	return promDuration(w)
}

// promDuration renders d as a PromQL duration ("90s", "2m").
func promDuration(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", (d+time.Second-1)/time.Second)
}

// Render fills the placeholders of a pack query.
func Render(expr, selector string, step time.Duration) string {
	if selector == "" {
		expr = strings.ReplaceAll(expr, ","+selPH, "")
		expr = strings.ReplaceAll(expr, selPH, "")
	} else {
		expr = strings.ReplaceAll(expr, selPH, selector)
	}
	return strings.ReplaceAll(expr, ratePH, RateWindow(step))
}

// Queries returns the queries to run: the chosen packs ("all", "none" or a
// comma list), rendered with the selector and step, then the user's own
// queries named query1, query2, ... in order.
func Queries(packList string, selector string, step time.Duration, user []string) ([]Query, error) {
	want := map[string]bool{}
	switch strings.TrimSpace(packList) {
	case "", "all":
		for _, p := range PackNames() {
			want[p] = true
		}
	case "none":
	default:
		known := map[string]bool{}
		for _, p := range PackNames() {
			known[p] = true
		}
		for _, p := range strings.Split(packList, ",") {
			p = strings.TrimSpace(p)
			if !known[p] {
				return nil, fmt.Errorf("--packs: unknown pack %q (known: %s, all, none)", p, strings.Join(PackNames(), ", "))
			}
			want[p] = true
		}
	}
	var out []Query
	for _, q := range packs {
		if want[q.Pack] {
			out = append(out, Query{Pack: q.Pack, Name: q.Name, Expr: Render(q.Expr, selector, step)})
		}
	}
	for i, e := range user {
		if strings.TrimSpace(e) == "" {
			return nil, fmt.Errorf("--query %d is empty", i+1)
		}
		out = append(out, Query{Pack: "user", Name: fmt.Sprintf("query%d", i+1), Expr: e})
	}
	names := map[string]bool{}
	for _, q := range out {
		if names[q.Name] {
			return nil, fmt.Errorf("query name %q used twice", q.Name)
		}
		names[q.Name] = true
	}
	return out, nil
}

// WriteQueries writes queries as a table (PACK, NAME, QUERY), as
// --list-queries prints them.
func WriteQueries(w io.Writer, qs []Query) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACK\tNAME\tQUERY")
	for _, q := range qs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", q.Pack, q.Name, q.Expr)
	}
	return tw.Flush()
}
