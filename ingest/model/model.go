package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Time is an instant in nanoseconds since the Unix epoch (UTC). Every source
// is converted to this clock at the boundary.
type Time int64

// FromUnixMicro converts Jaeger's integer microseconds. Times beyond what
// Time can hold (before 1677 or after 2262) saturate at the extremes rather
// than wrap into a plausible date; ReadFile drops them with a warning.
func FromUnixMicro(us int64) Time {
	switch {
	case us > math.MaxInt64/1000:
		return math.MaxInt64
	case us < math.MinInt64/1000:
		return math.MinInt64
	}
	return Time(us * 1000)
}

// FromUnixSeconds converts float seconds (Prometheus) rounding to milliseconds,
// the precision Prometheus has. Out-of-range (and NaN) times saturate like
// FromUnixMicro's.
func FromUnixSeconds(s float64) Time {
	ms := s*1000 + 0.5*sign(s)
	switch {
	case ms != ms || ms >= math.MaxInt64/1e6:
		return math.MaxInt64
	case ms <= math.MinInt64/1e6:
		return math.MinInt64
	}
	return Time(int64(ms) * int64(time.Millisecond))
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// FromTime converts a time.Time; times outside 1678..2262 saturate like
// FromUnixMicro's (time.UnixNano is undefined there).
func FromTime(t time.Time) Time {
	switch {
	case t.Before(minStdTime):
		return math.MinInt64
	case t.After(maxStdTime):
		return math.MaxInt64
	}
	return Time(t.UnixNano())
}

var minStdTime, maxStdTime = time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)

// Std returns t as a time.Time in UTC.
func (t Time) Std() time.Time { return time.Unix(0, int64(t)).UTC() }

// String renders t as RFC3339 with millisecond precision, or "-" for zero.
func (t Time) String() string {
	if t == 0 {
		return "-"
	}
	return t.Std().Format("2006-01-02T15:04:05.000Z07:00")
}

// Add returns t+d, saturated at the extremes of Time (see SatAdd).
func (t Time) Add(d time.Duration) Time { return Time(SatAdd(int64(t), int64(d))) }

// Sub returns t-u as a duration, saturated at the extremes of Duration.
func (t Time) Sub(u Time) time.Duration { return time.Duration(SatSub(int64(t), int64(u))) }

// EntityKind is the kind of component an Entity names.
type EntityKind uint8

// Entity kinds, from coarse to specific.
const (
	KindUnknown EntityKind = iota
	KindService
	KindPod
	KindNode
	KindGPU
	KindEdge // a call edge caller→callee
	// KindRollout is a new version of a workload beside its old one (package
	// peers): its name is the new version's workload or ReplicaSet.
	KindRollout
)

var entityKindNames = [...]string{"unknown", "service", "pod", "node", "gpu", "edge", "rollout"}

func (k EntityKind) String() string {
	if int(k) < len(entityKindNames) {
		return entityKindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Entity identifies one component across sources. Name is the canonical name
// of the entity of its Kind (service/workload name, pod name, node/host name,
// GPU UUID, or "caller->callee" for edges). The other fields place it: the
// workload it belongs to, the node it runs on, the GPU index on that node.
type Entity struct {
	Kind    EntityKind
	Name    string
	Service string // owning workload; for an edge the callee; for a service itself
	Node    string // host, when known
	GPU     string // GPU UUID (or "host/index" when the UUID is unknown), when placed on one
	Caller  string // edges only
	Callee  string // edges only
}

// ID is the stable identifier "kind/name" used as a map key and node ID prefix.
func (e Entity) ID() string { return e.Kind.String() + "/" + e.Name }

// SignalKind classifies what a series measures.
type SignalKind uint8

// Signal kinds. The zero value is SignalOther: unknown series are kept, never dropped.
const (
	SignalOther SignalKind = iota
	SignalLatency
	SignalErrors
	SignalTraffic
	SignalCPU
	SignalCPUThrottle
	SignalMemory
	SignalDiskIO
	SignalNetwork
	SignalQueue
	SignalKVCache
	SignalGPUUtil
	SignalGPUMemBW
	SignalGPUClock
	SignalGPUThrottle // clock event / throttle reasons
	SignalTemperature
	SignalPower
	SignalXID // XID and ECC errors
	SignalGPUMemory
	SignalNVLink
	SignalRestarts
	SignalChange // deployments and configuration changes (from events)
	SignalLogs   // series derived from log records (log_* series, features/logfeatures.go)
	numSignalKinds
)

var signalNames = [...]string{"other", "latency", "errors", "traffic", "cpu", "cpu_throttle", "memory",
	"disk_io", "network", "queue", "kv_cache", "gpu_util", "gpu_mem_bw", "gpu_clock", "gpu_throttle",
	"temperature", "power", "xid", "gpu_memory", "nvlink", "restarts", "change", "logs"}

func (s SignalKind) String() string {
	if int(s) < len(signalNames) {
		return signalNames[s]
	}
	return fmt.Sprintf("signal(%d)", s)
}

// ParseSignalKind is the inverse of String; ok is false for unknown names.
func ParseSignalKind(name string) (SignalKind, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for i, n := range signalNames {
		if n == name {
			return SignalKind(i), true
		}
	}
	switch name {
	case "lat", "duration", "ttft", "tpot", "p99", "p95", "p90", "p50":
		return SignalLatency, true
	case "error", "err", "failures":
		return SignalErrors, true
	case "rate", "requests", "qps", "load":
		return SignalTraffic, true
	}
	return SignalOther, false
}

// Saturation reports whether the signal is a resource-saturation kind.
func (s SignalKind) Saturation() bool {
	return s >= SignalCPU && s <= SignalNVLink
}

// Label is one name=value pair of a series.
type Label struct{ Name, Value string }

// Labels is a set of labels sorted by name.
type Labels []Label

// Get returns the value of label name or "".
func (ls Labels) Get(name string) string {
	for _, l := range ls {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// String renders {a="b",c="d"}.
func (ls Labels) String() string {
	n := 2
	for _, l := range ls {
		n += len(l.Name) + len(l.Value) + 4
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '{')
	for i, l := range ls {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, l.Name...)
		buf = append(buf, '=')
		buf = strconv.AppendQuote(buf, l.Value) // as fmt's %q
	}
	buf = append(buf, '}')
	return string(buf)
}

// SortLabels sorts ls in place by name then value.
func SortLabels(ls Labels) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Name != ls[j].Name {
			return ls[i].Name < ls[j].Name
		}
		return ls[i].Value < ls[j].Value
	})
}

// Series is one time series: a metric from Prometheus, a GPU recording, or a
// RED series derived from spans. T is strictly increasing after Finalize; V may
// hold NaN for a missing sample (never ±Inf after Finalize).
type Series struct {
	Name   string // metric name, or the file's base name when __name__ is absent
	Labels Labels // sorted, without __name__
	Entity Entity
	Signal SignalKind
	Stat   string // aggregation: "p50", "p90", "p99", "mean", "rate", "ratio", "count", "" ...
	Unit   string // "s", "bytes", "ratio", "%", "W", "C", "MHz", "" ...
	Source string // the input file it came from ("derived:traces" for span-derived series)
	T      []Time
	V      []float64
	// Every is the series' own sampling interval before alignment (0 when
	// unknown): on a finer grid each sample fills Every/Step cells.
	Every time.Duration
	// Aligned is set by ingest.Align when T is the bundle's common grid
	// (Bundle.Grid); sub-second profile series (Nsight, Kineto) keep their
	// own timeline and stay unaligned.
	Aligned bool
}

// Key is a unique, stable identifier: name + labels + source.
func (s *Series) Key() string { return s.Name + s.Labels.String() + "@" + s.Source }

// SpanKind is the OpenTelemetry span kind.
type SpanKind uint8

// Span kinds.
const (
	SpanUnspecified SpanKind = iota
	SpanInternal
	SpanServer
	SpanClient
	SpanProducer
	SpanConsumer
)

// SpanKindNames are the names of the SpanKinds, in their order.
var SpanKindNames = [...]string{"unspecified", "internal", "server", "client", "producer", "consumer"}

func (k SpanKind) String() string {
	if int(k) < len(SpanKindNames) {
		return SpanKindNames[k]
	}
	return fmt.Sprintf("spankind(%d)", k)
}

// TraceID is a 128-bit trace ID; 64-bit IDs occupy the low 8 bytes (High = 0).
type TraceID struct{ High, Low uint64 }

// String renders 32 hex chars, or 16 when High is zero (as Jaeger does).
func (id TraceID) String() string {
	if id.High == 0 {
		return fmt.Sprintf("%016x", id.Low)
	}
	return fmt.Sprintf("%016x%016x", id.High, id.Low)
}

// SpanID is a 64-bit span ID; zero means "none".
type SpanID uint64

func (id SpanID) String() string { return fmt.Sprintf("%016x", uint64(id)) }

// Span is the compact internal span. Its names are Syms (interned by the
// readers, so millions of spans share one copy of each): a span holds no
// pointer, so the garbage collector never scans the span arrays nor puts
// write barriers on their stores and sorts, and a span is 80 bytes (it was
// 168 with strings; a million spans are held twice while Read merges the
// files' runs).
type Span struct {
	TraceID   TraceID
	SpanID    SpanID
	ParentID  SpanID // 0 for a root span (or when the parent reference is to another trace)
	Start     Time
	Duration  time.Duration
	Service   Sym
	Operation Sym
	Pod       Sym // k8s.pod.name / pod / hostname-as-pod, when known
	Node      Sym // k8s.node.name / host.name, when known
	GPU       Sym // gpu uuid attribute, when present
	Peer      Sym // peer.service (or server.address) of a client span, when present
	Source    Sym // the input file
	Kind      SpanKind
	Error     bool
}

// End returns Start+Duration.
func (s *Span) End() Time { return s.Start.Add(s.Duration) }

// EventKind classifies a change or lifecycle event.
type EventKind uint8

// Event kinds.
const (
	EventOther   EventKind = iota
	EventDeploy            // rollout, scaling, image or config change
	EventConfig            // configuration change without a rollout
	EventRestart           // container restart, pod killed/recreated
	EventOOMKill
	EventBackOff
	EventXID // GPU XID / ECC error
	EventSchedule
	EventWarning // any other Warning-type event
)

var eventKindNames = [...]string{"other", "deploy", "config", "restart", "oom_kill", "backoff", "xid", "schedule", "warning"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("event(%d)", k)
}

// ChangeLike reports whether the event is a change (config drift evidence).
func (k EventKind) ChangeLike() bool { return k == EventDeploy || k == EventConfig }

// Event is a change or lifecycle event on an entity.
type Event struct {
	Time    Time
	Entity  Entity
	Kind    EventKind
	Reason  string // e.g. "ScalingReplicaSet", "OOMKilled", "BackOff"
	Message string
	// Object is the object the event is about as its source names it,
	// "Kind/name" ("Deployment/cartservice-v2"), before the entity model
	// matched it to a service; "" when unknown.
	Object string
	Count  int
	Source string
}

// Alert is one firing (or resolved) alert from an Alertmanager payload.
type Alert struct {
	Name     string
	Status   string // "firing" or "resolved"
	StartsAt Time
	Labels   Labels
	Summary  string
	Service  string     // from service/job/app label ("" when absent)
	Signal   SignalKind // derived from alertname/annotations, SignalOther when unknown
	Stat     string     // e.g. "p99" when the alert names a quantile
	Source   string
	// RunbookURL is the alert's runbook_url annotation ("" when none).
	RunbookURL string
	// Expr is the alerting rule's PromQL expression, from the alert's
	// generator URL (Prometheus' /graph?g0.expr=...; "" when absent).
	Expr string
	// EndsAt is when the alert resolved or, for a firing one, when
	// Alertmanager will consider it resolved unless re-sent (zero when
	// absent or the zero time).
	EndsAt Time
}

// Dependency is one caller→callee edge of a service call graph.
type Dependency struct {
	Parent, Child string
	CallCount     int64
	Source        string
}

// Format is a sniffed input format.
type Format uint8

// Input formats.
const (
	FormatUnknown Format = iota
	FormatJaegerJSON
	FormatOTLPJSON
	FormatJaegerDependencies
	FormatPromQueryRange
	FormatAlertmanager
	FormatK8sEvents
	FormatNvidiaSmiCSV
	FormatNvidiaSmiDmon
	FormatNVMLRecording
	FormatNsightSQLite
	FormatKineto
	FormatLabel // ground-truth label.json, read only by eval; skipped by ingest
	FormatManifest
	FormatLokiStreams   // Loki query_range / query with resultType "streams"
	FormatOTLPLogs      // OTLP/JSON LogsData
	FormatDockerJSONLog // Docker json-file lines, fluent-bit records with a "log" field
	FormatCRILog        // CRI container log lines
	FormatTextLog       // timestamped text lines (kubectl logs --timestamps, ...)
	FormatVictoriaLogs  // VictoriaLogs /select/logsql/query JSON Lines
	FormatChangeRecords // change records the user supplies (deploys, config commits): JSON, JSON Lines or CSV
	FormatK8sObjects    // kubectl get deploy,rs,cm,sts,ds -o json: ReplicaSet revisions, workload and ConfigMap updates
	FormatJaegerProto   // Jaeger span model protobuf (api_v2 SpansResponseChunk, model.Trace, model.Span streams)
	FormatOTLPProto     // OTLP protobuf TracesData (.binpb, the Collector file exporter's format: proto)
	FormatOTLPLogsProto // OTLP protobuf LogsData
)

var formatNames = []string{"unknown", "jaeger-json", "otlp-json", "jaeger-dependencies", "prometheus-query-range",
	"alertmanager", "k8s-events", "nvidia-smi-csv", "nvidia-smi-dmon", "nvml-recording", "nsight-sqlite", "kineto-trace",
	"label", "manifest", "loki-streams", "otlp-logs", "docker-json-log", "cri-log", "text-log", "victorialogs-jsonl",
	"change-records", "k8s-objects",
	"jaeger-proto", "otlp-proto", "otlp-logs-proto"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", f)
}

// Counts are what one input contributed.
type Counts struct {
	Spans, Traces, Services, Series, Points, Events, Alerts, Dependencies, Samples int
	Logs                                                                           int // log records (a folded multi-line record counts once)
}

// Input describes one file that was read (or skipped).
type Input struct {
	Path       string
	Format     Format
	SHA256     string
	Size       int64
	Start, End Time // data time range, zero when none
	Counts     Counts
	Skipped    bool   // not analysed (unknown format, label, error)
	Error      string // why it was skipped, "" when read
}

// Bundle is one aligned, validated incident: everything read from the inputs.
// Readers fill a fresh Bundle per file; Merge combines them in input order;
// ingest.Prepare sorts, repairs and chooses the grid; the features stage
// matches entities and derives span RED series; and ingest.Align aligns the
// series onto the grid and builds the entity list.
type Bundle struct {
	Spans    []Span
	Series   []*Series
	Events   []Event
	Alerts   []Alert
	Deps     []Dependency
	Inputs   []Input
	Warnings []Warning
	// Processes are the OS processes traces name with a PID (Jaeger process
	// tags, OTLP resource attributes), deduplicated and sorted by the
	// features stage.
	Processes []Process
	// Patterns are, after DerivePatternSeries, each service's (and call
	// edge's) most broken per-request pattern over the incident window:
	// one for every owner whose requests could be tested, Z 0 (P 1) where
	// nothing departs, so that a correction over the owners counts them
	// all.
	Patterns []PatternShift
	// PodVersions are the versions trace sources say pods run (OTLP's
	// service.version resource attribute, a Jaeger process tag of that
	// name), deduplicated and sorted by the features stage.
	PodVersions []PodVersion
	// LLM are the LLM requests spans describe (token counts and token
	// latencies, see LLMRequest), in reading order: one per span that names
	// them, keyed by the span.
	LLM []LLMRequest
	// Logs are the log records, sorted by time by ingest.Prepare; LogStreams are
	// their sources (entities) and LogTemplates their mined templates (see
	// logs.go). Records index both.
	Logs         []LogRecord
	LogStreams   []LogStream
	LogTemplates []LogTemplate

	// Start, End, Step, Grid and Parent are set by ingest.Prepare,
	// Entities by ingest.Align, Placements by the features stage.
	Start, End Time          // the data's time range
	Step       time.Duration // the common step of the aligned series
	Grid       []Time        // the common time grid: Start-aligned multiples of Step
	// Parent[i] is the index in Spans of span i's parent, -1 for a root or
	// an orphan (same length as Spans).
	Parent   []int32
	Entities []Entity // every entity, sorted by ID
	// Placements are the pods and services found running on a GPU by the
	// PID of one of their processes (see placeProcesses), sorted.
	Placements []Placement

	// Digest and SpanSample are set by a streamed read (above the span
	// budget): Digest summarises every span read, Spans are the sample
	// SpanSample describes. Both nil otherwise.
	Digest     SpanDigest
	SpanSample *SpanSample
}

// Process is an operating-system process a trace source names: the service
// (and pod) it serves, the host it runs on and its PID ("process.pid" or
// "pid", host from "k8s.node.name"/"host.name"/"node", else "hostname").
type Process struct {
	Service string
	Pod     string
	Host    string
	PID     uint32
	Source  string
}

// PodVersion says that a trace source saw a pod of a service run a
// version.
type PodVersion struct {
	Service, Pod, Version string
	Source                string
}

// Placement says that a pod or service runs on a GPU: a GPU source (NVML
// recording, nvidia-smi per-process query or pmon) saw PID on Host using the
// GPU, and a trace source names the same host and PID as a process of the
// service (and pod).
type Placement struct {
	GPU     string // the GPU entity's name
	Service string
	Pod     string // "" when the traces name no pod
	Host    string
	PID     uint32
}

// Entity is the pod of the placement, or its service when no pod is known.
func (p Placement) Entity() Entity {
	if p.Pod != "" {
		return Entity{Kind: KindPod, Name: p.Pod, Service: p.Service}
	}
	return Entity{Kind: KindService, Name: p.Service, Service: p.Service}
}

// Merge appends everything of o to b (o's Inputs too). o's log records
// may be adopted rather than copied: o is not to be used afterwards.
func (b *Bundle) Merge(o *Bundle) {
	b.Spans = append(b.Spans, o.Spans...)
	b.Series = append(b.Series, o.Series...)
	b.Events = append(b.Events, o.Events...)
	b.Alerts = append(b.Alerts, o.Alerts...)
	b.Deps = append(b.Deps, o.Deps...)
	b.Inputs = append(b.Inputs, o.Inputs...)
	b.Warnings = append(b.Warnings, o.Warnings...)
	b.Processes = append(b.Processes, o.Processes...)
	b.PodVersions = append(b.PodVersions, o.PodVersions...)
	switch {
	case o.Digest == nil:
	case b.Digest == nil:
		b.Digest = o.Digest
	default:
		b.Digest.Merge(o.Digest)
	}
	switch {
	case o.SpanSample == nil:
	case b.SpanSample == nil:
		c := *o.SpanSample
		b.SpanSample = &c
	default:
		b.SpanSample.Merge(o.SpanSample)
	}
	b.LLM = append(b.LLM, o.LLM...)
	if len(o.Logs) > 0 || len(o.LogStreams) > 0 {
		ns, nt := int32(len(b.LogStreams)), int32(len(b.LogTemplates))
		at := len(b.Logs)
		if cap(b.Logs) == 0 && ns == 0 && nt == 0 {
			b.Logs = o.Logs // the first input's records are adopted, not copied (10M records are 480 MB)
		} else {
			b.Logs = append(b.Logs, o.Logs...)
		}
		for i := at; i < len(b.Logs); i++ {
			b.Logs[i].Stream += ns
			b.Logs[i].Template += nt
		}
		b.LogStreams = append(b.LogStreams, o.LogStreams...)
		b.LogTemplates = append(b.LogTemplates, o.LogTemplates...)
	}
}

// Warn records a data-quality warning.
func (b *Bundle) Warn(kind error, source string, count int, format string, args ...any) {
	b.Warnings = append(b.Warnings, Warning{Kind: kind, Source: source, Count: count, Message: fmt.Sprintf(format, args...)})
}

// RelabelSources rewrites every source name in the bundle (inputs, spans,
// series, events, alerts, dependencies, warnings) through f, e.g. to show a
// temporary directory's files as "demo/<file>" so reports stay
// deterministic. Derived sources are left alone.
func (b *Bundle) RelabelSources(f func(string) string) {
	g := func(s string) string {
		if s == "" || s == DerivedSource {
			return s
		}
		return f(s)
	}
	for i := range b.Inputs {
		b.Inputs[i].Path = g(b.Inputs[i].Path)
	}
	relabeled := map[Sym]Sym{} // a file's spans share one Source
	for i := range b.Spans {
		src := b.Spans[i].Source
		to, ok := relabeled[src]
		if !ok {
			to = Intern(g(src.String()))
			relabeled[src] = to
		}
		b.Spans[i].Source = to
	}
	for _, s := range b.Series {
		s.Source = g(s.Source)
	}
	for i := range b.Events {
		b.Events[i].Source = g(b.Events[i].Source)
	}
	for i := range b.Alerts {
		b.Alerts[i].Source = g(b.Alerts[i].Source)
	}
	for i := range b.Deps {
		b.Deps[i].Source = g(b.Deps[i].Source)
	}
	for i := range b.Processes {
		b.Processes[i].Source = g(b.Processes[i].Source)
	}
	for i := range b.PodVersions {
		b.PodVersions[i].Source = g(b.PodVersions[i].Source)
	}
	for i := range b.LogStreams {
		b.LogStreams[i].Source = g(b.LogStreams[i].Source)
	}
	for i := range b.LogTemplates {
		b.LogTemplates[i].ExampleSource = g(b.LogTemplates[i].ExampleSource)
	}
	for i := range b.Warnings {
		w := &b.Warnings[i]
		old := w.Source
		w.Source = g(old)
		if old != "" && old != w.Source {
			w.Message = strings.ReplaceAll(w.Message, old, w.Source)
		}
	}
}

// SatAdd returns a+b, saturated at the extremes of int64 instead of
// wrapping around.
func SatAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// SatSub returns a-b, saturated at the extremes of int64 instead of
// wrapping around.
func SatSub(a, b int64) int64 {
	s := a - b
	switch {
	case b < 0 && s < a:
		return math.MaxInt64
	case b > 0 && s > a:
		return math.MinInt64
	}
	return s
}

// String describes the placement for evidence, e.g. "PID 4242 of
// vllm-0 on gpu-node-1".
func (p Placement) String() string {
	who := p.Service
	if p.Pod != "" {
		who = p.Pod
	}
	s := fmt.Sprintf("PID %d of %s", p.PID, who)
	if p.Host != "" {
		s += " on " + p.Host
	}
	return s
}
