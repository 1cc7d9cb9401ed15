// Package evidence gathers, once, what the raw telemetry says about the
// ranked causes of an analysis: the slowest traces through a cause's
// service, the operation-mix shift behind an operation-mix node, the
// profiler kernels of a GPU, the workloads placed on it, the target's
// request-shape map (package shape; shape.go) with what its reading says
// of each cause, and the bundle's inputs, warnings and entities. The
// driver runs Collect after the ranking and hands the Set to
// scorecard.Build, so that the report stage renders and never re-reads the
// *ingest.Bundle (pprof's internal/graph → internal/report split).
//
// It owns the scans of spans and unaligned profile series that produce
// evidence. It must not rank, score or format text: ranking is causal's,
// wording is scorecard's. Everything it returns is deterministic (sorted
// with a unique last key).
package evidence
