// Package features is the stage between ingest and tcg: what is computed
// from the data once it is read, rather than read from it.
//
// # What it owns, what it must not do
//
// Today: matching entities across sources (entitymatch.go: a series,
// event, alert or log stream naming a pod or workload belongs to its traced
// service), matching GPU series to the pods and processes that use them
// (gpumatch.go), placing processes on GPUs by host and PID (placement.go),
// the per-service, per-pod and per-call-edge RED series derived from spans
// (derive.go: caller- and callee-side latency of every edge and the gap
// between them, exclusive "self" time), the operation mix of each
// service (opmix.go), the log series per service and pod (logfeatures.go:
// records, errors, new and missing templates, the template mix), the log
// pattern series (logpattern.go: how the transitions between a request's
// log events and calls depart from the baseline's) and the log evidence of
// a ranked cause (logevidence.go); the mix statistics the operation and
// template mixes share are in mix.go. The names of the series it derives
// are the model's vocabulary (ingest/model/derived.go, ingest.TraceLatency
// and the rest), since every later stage reads them.
// It must not know about graphs, ranking or reports, never reads the wall
// clock, and names no dataset, service or fault.
//
// # How it runs
//
// The stage runs once, between two steps of ingest, called from this
// package, never from ingest: data flows one way, ingest → features →
// tcg. Read is
// ingest.ReadUnaligned (inputs read and merged, the repairs, the log step
// and the grid step: ingest.Prepare), then Derive, then the read's Align
// (every series, the derived ones too, aligned onto the grid; the entity
// list built: ingest.Align). Finalize is the same for a bundle built in
// memory (ingest.Prepare, Derive, ingest.Align). Everything that reads data
// for analysis calls Read (analysis, mcp, eval, bench, tests).
//
// The one part that runs inside the read is the span digest of a read over
// the span budget (stream.go): Read sets ingest.Options.Stream to Streamer,
// which ingest calls on each file's spans before all but a sample of them
// are dropped; Derive then derives the trace series from the digests.
//
// # Parameters
//
// Options holds the stage's parameters; a zero field takes its default
// (DefaultOptions), so Options{} is today's behaviour. Every caller in the
// module passes Options{} (driver, compare, bench, tests).
//
//	field               default  where           why
//	MaxMixOps           20       opmix.go        operations followed per service; rarer ones pooled (routes with IDs)
//	MinMixSpans         5        opmix.go, logfeatures.go  fewest spans (records) in a step for its operation (template) mix to be scored
//	MaxMixTemplates     20       logfeatures.go  templates followed per entity in the template mix; rarer ones pooled
//	ReferenceShare      0.6      logfeatures.go  share of the grid Derive's log series take as reference, before the incident is known
//	SteadyShare         0.5      logfeatures.go  least share of reference steps a template appears in to be steady (log_missing_templates)
//	MinSteadySteps      3        logfeatures.go  fewest reference steps for steadiness to be judged
//	MinPatternBaseline  5        logpattern.go   fewest baseline transitions from an (operation, event) pair for it to be tested
//	MinPatternWindow    3        logpattern.go   fewest window transitions from a pair for it to be tested
//
// Fixed, not options: maxPatternZ (12, the deviate of a p-value too small to
// represent), maxEvidenceTraces (3, traces quoted per template in
// LogEvidence), ingest.ParallelMinSpans (20,000, in the core: the fewest
// spans for which derive and the mix run side by side).
//
// ForWindow derives the log series again once the incident's baseline is
// known, and the per-request patterns (DeriveLogSeries, DerivePatternSeries),
// returning them as values for that window (Window) and leaving the bundle
// as it was read (analysis's analyzeIncidentWith), with the same Options; LogEvidence is what causal's ranking quotes of a cause's
// logs.
//
// Not here: classification (package ingest/classify), which the Prometheus
// decoder calls at read time: the series' entity it sets decides their
// keys, sort order, limits and per-input counts before ingest.Prepare, so
// moving it after reading would change outputs. The entity list and the
// service matching every stage shares (Bundle.CollectEntities,
// KnownServices, MatchService, WorkloadOf) are the model's (ingest/model),
// since ingest.Align builds the list whether or not the stage runs.
package features
