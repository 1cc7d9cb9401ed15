package logs

import (
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Labels place a stream and give its records' level and trace context, in
// every format that has them: Loki stream labels and metadata, VictoriaLogs
// "_stream" labels and fields, OTLP resource attributes, fluent-bit's
// Kubernetes labels.

// Label names that place a log stream, in order of preference. Loki and
// promtail/Alloy write underscores; OTLP-derived labels keep dots.
var (
	serviceLabels   = []string{"service_name", "service.name", "service", "app_kubernetes_io_name", "app.kubernetes.io/name", "app", "k8s_deployment_name", "k8s.deployment.name", "k8s_app"}
	podLabels       = []string{"pod", "pod_name", "k8s_pod_name", "k8s.pod.name"}
	namespaceLabels = []string{"namespace", "namespace_name", "k8s_namespace_name", "k8s.namespace.name"}
	nodeLabels      = []string{"node", "node_name", "k8s_node_name", "k8s.node.name", "host", "hostname", "host.name", "nodename"}
	containerLabels = []string{"container", "container_name", "k8s_container_name", "k8s.container.name"}
	levelLabels     = []string{"level", "detected_level", "severity", "severity_text", "lvl", "loglevel"}
)

// FirstLabel returns the first of the labels names that get gives a value
// that is not blank (trimmed), "" when none does.
func FirstLabel(get func(string) string, names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(get(n)); v != "" {
			return v
		}
	}
	return ""
}

// StreamFromLabels places a stream by its labels: the service from
// serviceLabels, else (with no pod either) the last path segment of "job"
// (promtail's "namespace/app"); pod, namespace, node and container from
// their labels.
func StreamFromLabels(get func(string) string) ingest.LogStream {
	ls := ingest.LogStream{
		Service:   FirstLabel(get, serviceLabels),
		Pod:       FirstLabel(get, podLabels),
		Namespace: FirstLabel(get, namespaceLabels),
		Node:      FirstLabel(get, nodeLabels),
		Container: FirstLabel(get, containerLabels),
	}
	if ls.Service == "" && ls.Pod == "" {
		if job := get("job"); job != "" {
			ls.Service = job[strings.LastIndexByte(job, '/')+1:]
		}
	}
	return ls
}

// LabelSeverity is the severity a stream's labels give all its records.
func LabelSeverity(get func(string) string) ingest.Severity {
	sev, _ := ingest.ParseSeverity(FirstLabel(get, levelLabels))
	return sev
}

// MetaFields fills f from per-record metadata: level, trace and span IDs.
func MetaFields(f *Fields, get func(string) string) {
	if s, ok := ingest.ParseSeverity(FirstLabel(get, levelLabels)); ok {
		f.Severity = s
	}
	if v := FirstLabel(get, []string{"trace_id", "traceid", "traceId", "traceID", "trace.id"}); v != "" {
		if id, err := ingest.ParseTraceID(v); err == nil && id != (ingest.TraceID{}) {
			f.Trace = id
		}
	}
	if v := FirstLabel(get, []string{"span_id", "spanid", "spanId", "spanID", "span.id"}); v != "" {
		if id, err := ingest.ParseSpanID(v); err == nil {
			f.Span = id
		}
	}
}
