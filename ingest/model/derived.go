package model

import "math"

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

// Log series: per service and per pod that has log records, on the common
// grid, Source DerivedSource, Signal SignalLogs. The reference period is
// the incident's baseline, known only once the incident is placed, so
// DeriveLogSeries takes it; features.Derive derives them once with a default
// reference (the first 60% of the grid) so that a bundle always has them.
// Cells outside the logs' time range are NaN (no logs is not zero logs).
const (
	// LogRecords is records per step.
	LogRecords = "log_records"
	// LogErrors is error- and fatal-level records per step.
	LogErrors = "log_errors"
	// LogNewTemplates is records per step whose template the entity never
	// logged in the reference period. In a reference step, "never" means in
	// no reference step farther than about a minute from it
	// (cross-validated novelty): judged against the reference it is part of,
	// a reference step would count 0 by construction, and its baseline would
	// say nothing of how often unseen templates turn up in normal operation
	// (with a short baseline, most templates are unseen).
	LogNewTemplates = "log_new_templates"
	// LogMixShift is how far the step's mix of templates is from the
	// reference mix: the chi-square statistic over the entity's most
	// frequent templates (the rest pooled) as a standard normal deviate
	// (Wilson–Hilferty), as TraceOpMix does for span operations; NaN where a
	// step has fewer than MinMixSpans records.
	LogMixShift = "log_template_mix_shift"
	// LogMissingTemplates scores templates that fired steadily in the
	// reference period and stop ("disappearing" log statements: an early
	// return or an exception skips them). Counts are taken over trailing
	// windows of about a minute (request-driven statements are sparse per
	// step): for each template present in at least steadyShare of the
	// reference windows in which the entity logged at all (services log in
	// bursts), with mean window count λ there,
	// the Poisson deficit −ln(2·P(X ≤ x)) (floored at 0: a step at about its
	// usual count scores nothing) of the step's count x under
	// X ~ Poisson(λ·s), summed over such templates, where s = the window's
	// record count over the reference mean (so a quiet window is not a
	// deficit); NaN where the entity logged nothing in the window.
	LogMissingTemplates = "log_missing_templates"
)

// PatternShift is the evidence of one owner's most broken pattern over the
// incident window: after event After in requests of Operation, the next
// event used to be Expected in BaselineHits of BaselineN, and is so in
// WindowHits of WindowN; Instead is the next event that gained most.
type PatternShift struct {
	Service   string // the service whose requests these are
	Callee    string // the call after which it happens ("" for the service's own events)
	Operation string
	After     string // the event followed, in words: `log "…"`, "a call to X", "the request's start"
	// AfterCall is X when the event followed is a call to service X (the
	// step begins at X's answer), "" otherwise.
	AfterCall string
	Expected  string
	Instead   string
	// BaselineHits of BaselineN transitions from After went to Expected;
	// WindowHits of WindowN in the window.
	BaselineHits, BaselineN, WindowHits, WindowN int
	P                                            float64 // the G-test's p-value, Bonferroni-adjusted over the owner's pairs
	Z                                            float64
	Traces                                       []TraceID // window traces that broke it (up to 2)
}

// ShareChange is how far the share of the requests that followed After
// with Expected moved between the baseline and the window (0..1; NaN
// without requests in either): 1 when every request did it before and
// none does now.
func (p *PatternShift) ShareChange() float64 {
	if p.BaselineN <= 0 || p.WindowN <= 0 {
		return math.NaN()
	}
	return math.Abs(float64(p.WindowHits)/float64(p.WindowN) - float64(p.BaselineHits)/float64(p.BaselineN))
}

// LogTraceLink is a trace a log record links to, resolved to its span's
// service and operation when that span is in the bundle.
type LogTraceLink struct {
	TraceID   TraceID
	SpanID    SpanID
	Service   string // "" when the span is not in the bundle
	Operation string
}

// LogTemplateEvidence is what one template of an entity says about an
// incident: its rate in the baseline and in the window.
type LogTemplateEvidence struct {
	Template       int32 // index in Bundle.LogTemplates
	Pattern        string
	Example        string // one record's message, truncated (render it escaped)
	Severity       Severity
	BaselineCount  int
	WindowCount    int
	BaselinePerMin float64
	WindowPerMin   float64
	First          Time // the entity's first record of this template (over all data)
	FirstInWindow  Time // its first record in the window (0 when none)
	New            bool // absent from the baseline, present in the window
	Missing        bool // present in the baseline, absent from the window
	// Surprise is −ln of the Poisson probability of a window count at least
	// this far from what the baseline rate predicts (the ranking key).
	Surprise float64
	Traces   []LogTraceLink // up to maxEvidenceTraces window records' traces, earliest first
}

// The log pattern series (package features, logpattern.go).
const (
	// LogPatternShift is, per service, how far the transitions between the
	// events of its requests
	// depart from the baseline's, over the trailing incident window: for
	// each (operation, event), a G-test of the next events' counts against
	// the baseline's (all baseline cells but the trailing window's own), the
	// smallest p-value Bonferroni-adjusted over the owner's (operation,
	// event) pairs, as a standard normal deviate (0 when nothing departs;
	// a pair whose requests stopped logging an error line and went back to
	// a step the baseline knew recovered, and departs in nothing).
	// NaN where no pair could be tested. Only spans in cells where logs were
	// collected at all count.
	LogPatternShift = "log_pattern_shift"
)
