// Package ingest reads what an on-call engineer has — traces, metrics, GPU
// data, change events and the alert — and turns it into one aligned,
// validated *Bundle that the analysis stages can trust.
//
// # What it owns, what it must not do
//
// It owns the data model (model.go, one clock ingest.Time, one entity
// model), format sniffing, one decoder per format (the decoders table in
// read.go; a fast path is a field of its format's decoder), the repairs and
// checks of Finalize and Validate, and, for now, the features computed in
// Finalize: classification (classify.go), span-derived series (derive.go,
// opmix.go), log series (logfeatures.go) and GPU placement (placement.go,
// gpumatch.go). It must not know about graphs, ranking or reports, never
// reads the wall clock, and names no dataset, service or fault: rules are
// keywords and structure. docs/architecture.md says how to add a format.
//
// The walk through one run:
//
//  1. Read expands paths (directories recursed, hidden entries skipped,
//     "-" = stdin; pipes and FIFOs read as streams; devices, dangling and
//     looping symlinks named as skipped inputs: expandPaths) and hands each
//     file to ReadFile.
//  2. ReadFile gunzips transparently, bounds the decompressed stream
//     (Limits.MaxFileBytes; tokenGuard on every JSON input), sniffs the
//     format from the first 64 KiB (never the file name: Sniff), hashes the
//     raw bytes (sha256 for the rerun manifest) and calls that format's
//     decoder, which streams the input into a fresh Bundle; checkValues then
//     drops impossible times and repairs overflowing durations and
//     self-parents, with warnings. Malformed input is an *InputError with
//     file and position; a valid prefix followed by garbage is kept with an
//     ErrPartialInput warning; an unreadable file is skipped, reported as a
//     skipped Input, and the rest is still read. Inputs whose data is far in
//     time from all the others are left out and named (disjointInputs).
//  3. Finalize sorts and cleans series and spans (duplicate IDs, orphans,
//     clock skew and bad values become Warnings counted per kind), chooses
//     one step and grid (Time is nanoseconds since the epoch everywhere),
//     matches entities across sources (a trace service "ts-order-service"
//     and a series {pod="ts-order-service-5d8f7c9b4-x2kq9"} are one
//     workload: WorkloadOf, matchService), derives per-service, per-pod and
//     per-call-edge RED series from spans (derive.go: caller- and callee-side
//     latency of every edge and the gap between them, exclusive "self" time),
//     and aligns every series onto the grid.
//
// Logs (logs.go, logsink.go and the readers loki.go, otlplogs.go,
// containerlogs.go, vlogs.go) become compact LogRecords: each file's lines
// are folded into multi-line records per stream, their level and trace
// context read, and their templates mined (package logtemplate, one Drain
// miner per service, sequentially per file); Finalize merges the templates
// of all files deterministically, sorts the records, links them to spans
// (logfinalize.go) and derives per-service and per-pod log series
// (logfeatures.go); DeriveLogSeries re-derives them for the incident's
// baseline and LogEvidence summarises a cause's templates (logevidence.go).
//
// Every metric series is classified into a SignalKind (ClassifySeries) and
// attached to the most specific Entity it describes: a GPU, a call edge, a
// pod, a node or a service. Unknown series are kept as SignalOther.
//
// Limits bound what hostile input can make the readers allocate; Validate
// checks a bundle's invariants.
package ingest
