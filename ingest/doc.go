// Package ingest reads what an on-call engineer has — traces, metrics, GPU
// data, logs, change events and the alert — and turns it into one aligned,
// validated *Bundle that the analysis stages can trust.
//
// # What it owns, what it must not do
//
// It is the core of reading: paths and reading (paths.go, read.go), limits
// and guards (options.go, guard.go), errors with positions (errors.go,
// position.go), the format registry and the sniff order (registry.go,
// sniff.go), merging, Prepare's repairs and grid and Align's alignment
// (finalize.go, spancheck.go, clockskew.go, counterreset.go, timebounds.go,
// sanity.go), and the helpers the span decoders share (placement tags and processes,
// process.go). Around it, each in a package of its own:
//
//   - ingest/model, the data model: the Bundle, spans, series, entities,
//     Syms and the interner, the one clock (Time, ns), log records, warnings,
//     the names of the series the features stage derives, and what a bundle
//     can say of itself (Validate, LogSpans, KnownServices, CountInto,
//     CollectEntities). Every name of it is also a name of ingest, as an
//     alias (model.go): ingest.Bundle is model.Bundle.
//   - ingest/classify, classification: a series' signal kind, statistic,
//     unit and entity from its name and labels (ClassifySeries here). The
//     Prometheus decoder calls it at read time: the entity it sets decides
//     the series' keys, order, limits and per-input counts.
//   - the decoders: one package per format or family (ingest/jaeger,
//     ingest/otlp, ingest/prometheus, ingest/logs/loki, ingest/logs/otlplogs,
//     ingest/logs/container and ingest/logs/victorialogs over the log
//     family's shared package ingest/logs, ingest/gpu/nvidiasmi,
//     ingest/gpu/nvml, ingest/gpu/nsight and ingest/gpu/kineto over the GPU
//     family's shared package ingest/gpu, ingest/k8sevents,
//     ingest/k8sobjects, ingest/changes, ingest/alertmanager) that registers
//     its formats from its init function
//     with RegisterFormat, as image/png registers with image; ingest/formats
//     imports them all, and whoever reads data imports it. ingest/logs
//     registers no format: it holds the log sink the log readers (and the
//     OTLP trace decoder) feed and the log budgets, and registers Prepare's
//     log step (RegisterLogFinalizer). The fast paths' JSON scanner is a library, ingest/fastjson.
//   - the features stage (package features) runs after ingest, never
//     called by it: features.Read is ReadUnaligned, features.Derive, then
//     UnalignedRead.Align (features.Finalize is Prepare, Derive, Align), so
//     data flows one way, ingest → features → tcg. The one hook ingest
//     calls while reading is Options.Stream, the features stage's digest of
//     a file's spans above the span budget, which must run before all but
//     a sample of them are dropped. Read and Finalize are the same without
//     the stage (the decoders' own tests, a program that needs only what
//     the inputs say).
//
// It must not know about graphs, ranking or reports, never reads the wall
// clock, and names no dataset, service or fault: rules are keywords and
// structure. docs/architecture.md says how to add a format.
//
// The walk through one run:
//
//  1. ReadUnaligned (and so Read) expands paths (directories recursed,
//     hidden entries skipped, "-" = stdin; pipes and FIFOs read as streams;
//     devices, dangling and looping symlinks named as skipped inputs:
//     expandPaths) and hands each file to ReadFile.
//  2. ReadFile gunzips transparently, bounds the decompressed stream
//     (Limits.MaxFileBytes; tokenGuard on every JSON input), sniffs the
//     format from the first 64 KiB (never the file name: Sniff tries the
//     registered rules in the priority order of sniff.go's table), hashes
//     the raw bytes (sha256 for the rerun manifest) and calls that format's
//     registered decoder, which streams the input into a fresh Bundle; checkValues then
//     drops impossible times and repairs overflowing durations and
//     self-parents, with warnings. Malformed input is an *InputError with
//     file and position; a valid prefix followed by garbage is kept with an
//     ErrPartialInput warning; an unreadable file is skipped, reported as a
//     skipped Input, and the rest is still read. Inputs whose data is far in
//     time from all the others are left out and named (disjointInputs).
//  3. Prepare(b, opt) sorts and cleans series and spans (duplicate IDs,
//     orphans, clock skew and bad values become Warnings counted per kind),
//     runs the log step (ingest/logs) and chooses one step and grid (Time
//     is nanoseconds since the epoch everywhere); ReadUnaligned returns the
//     bundle so.
//  4. The features stage, when the caller runs it (features.Derive),
//     matches entities across sources — a trace service "ts-order-service"
//     and a series {pod="ts-order-service-5d8f7c9b4-x2kq9"} are one
//     workload: WorkloadOf, MatchService —, places processes on GPUs and
//     derives per-service, per-pod and per-call-edge RED series from spans
//     and the log series.
//  5. Align(b, lim) (UnalignedRead.Align after a read, which also records
//     the input files' hashes) aligns every series onto the grid and
//     builds the entity list.
//
// Logs (the model in ingest/model/logs.go; the sink and the log step in
// package ingest/logs, one reader per package below it) become compact
// LogRecords: each file's lines are folded into multi-line records per
// stream, their level and trace context read, and their templates mined
// (package logtemplate, one Drain miner per service, sequentially per
// file); Prepare's log step merges the templates of all files
// deterministically, sorts the records and links them to spans; the features stage derives per-service and
// per-pod log series (features.DeriveLogSeries re-derives them for the
// incident's baseline and features.LogEvidence summarises a cause's
// templates).
//
// Every metric series is classified into a SignalKind (ClassifySeries) and
// attached to the most specific Entity it describes: a GPU, a call edge, a
// pod, a node or a service. Unknown series are kept as SignalOther.
//
// Limits bound what hostile input can make the readers allocate; Validate
// checks a bundle's invariants.
package ingest
