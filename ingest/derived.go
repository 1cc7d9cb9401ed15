package ingest

// The vocabulary of the series the features stage derives (package
// features): their names and Source, read by every later stage. The
// derivation itself is package features'.

// Names of the series derived from spans. Latencies are in seconds, rates
// per second. Each cell g of the grid aggregates spans starting in (g-step, g],
// matching Prometheus' "value at t covers the step before t".
const (
	TraceRequests   = "trace_requests_per_second"   // entry spans of a service/pod (traffic)
	TraceErrors     = "trace_errors_per_second"     // entry spans marked error (errors)
	TraceErrorRatio = "trace_error_ratio"           // errors / requests (errors)
	TraceLatency    = "trace_latency_seconds"       // entry span duration; Stat p50/p90/p99/mean
	TraceSelf       = "trace_self_seconds"          // exclusive time of the service's spans per request
	EdgeClient      = "trace_edge_client_seconds"   // caller-side duration of calls on an edge
	EdgeServer      = "trace_edge_server_seconds"   // callee-side duration of calls on an edge
	EdgeGap         = "trace_edge_gap_seconds"      // client minus server: network and queueing
	EdgeCalls       = "trace_edge_calls_per_second" // calls on an edge (traffic)
	EdgeErrors      = "trace_edge_errors_per_second"
)

// TraceOpMix is the derived series of how far each step's mix of a
// service's span operations is from the service's usual mix: a code fault
// that returns early or throws skips some of the work (and downstream calls)
// a request normally does, often without errors or latency to show for it.
const TraceOpMix = "trace_operation_mix_shift"

// DerivedSource is the Source of series derived from spans.
const DerivedSource = "derived:traces"
