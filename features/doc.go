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
// a ranked cause (logevidence.go). The names of the series it derives are ingest's
// vocabulary (ingest/derived.go), since every later stage reads them.
// It must not know about graphs, ranking or reports, never reads the wall
// clock, and names no dataset, service or fault.
//
// # How it runs
//
// Inside ingest's Finalize, as ingest.Options.Derive: after the repairs,
// the grid step and entity matching, before the series are aligned onto the
// grid, so that derived series are aligned like the rest. Read and Finalize
// set the hook; everything that reads data for analysis calls
// features.Read (driver, compare, bench, tests), so none forgets the stage.
//
// # Parameters
//
//	name               value  where       why
//	maxMixOps          20     opmix.go    operations followed per service; rarer ones pooled (routes with IDs)
//	ingest.MinMixSpans (core) ingest/mix.go fewest spans in a cell for its mix to count
//	ingest.ParallelMinSpans 20,000 ingest/finalize.go fewest spans for which derive and the mix run side by side
//
// Options has no fields yet: its zero value is the stage's only setting.
//
// DeriveLogSeries and DerivePatternSeries derive the log series again once
// the incident's baseline is known (driver's analyzeIncident); LogEvidence
// is what causal's ranking quotes of a cause's logs.
//
// Still in ingest (issue 29): classification (classify.go), which the
// Prometheus decoder needs at read time: the series' entity it sets decides
// their keys, sort order, limits and per-input counts before Finalize, so
// moving it after reading would change outputs.
package features
