// Package ingest reads what an on-call engineer has — traces, metrics, GPU
// data, change events and the alert — and turns it into one aligned,
// validated *Bundle that the analysis stages can trust.
//
// # What it owns, what it must not do
//
// It is the core of reading: the data model (model.go, one clock
// ingest.Time, one entity model; derived.go names the series the features
// stage derives), paths and reading (paths.go, read.go), limits and guards
// (options.go, guard.go), errors with positions (errors.go, position.go),
// the format registry and the sniff order (registry.go, sniff.go), merging,
// the repairs and grid of Finalize, and Validate; and the helpers every
// decoder shares (the interner, placement tags in process.go, the log
// budget). The fast paths' JSON scanner is a library of its own,
// ingest/fastjson. The decoders are not here:
// each family is a package of its own (ingest/jaeger, ingest/otlp,
// ingest/prometheus, ingest/logs, ingest/gpu, ingest/k8sevents,
// ingest/alertmanager) that registers its formats from its init function
// with RegisterFormat, as image/png registers with image; ingest/formats
// imports them all, and whoever reads data imports it. The features stage
// (package features) runs inside Finalize through Options.Derive. Still
// here: classification (classify.go), which the Prometheus decoder needs
// at read time (the entity it sets decides series keys, order, limits and
// per-input counts), and the service matching log finalization shares
// (entitymatch.go: KnownServices, MatchService, the entity list).
//
// It must not know about graphs, ranking or reports, never reads the wall
// clock, and names no dataset, service or fault: rules are keywords and
// structure. docs/architecture.md says how to add a format.
//
// The walk through one run:
//
//  1. Read expands paths (directories recursed, hidden entries skipped,
//     "-" = stdin; pipes and FIFOs read as streams; devices, dangling and
//     looping symlinks named as skipped inputs: expandPaths) and hands each
//     file to ReadFile.
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
//  3. Finalize sorts and cleans series and spans (duplicate IDs, orphans,
//     clock skew and bad values become Warnings counted per kind), chooses
//     one step and grid (Time is nanoseconds since the epoch everywhere),
//     runs the features stage (Options.Derive: package features matches
//     entities across sources — a trace service "ts-order-service" and a
//     series {pod="ts-order-service-5d8f7c9b4-x2kq9"} are one workload:
//     WorkloadOf, MatchService —, places processes on GPUs and derives
//     per-service, per-pod and per-call-edge RED series from spans and the
//     log series), and aligns every series onto the grid.
//
// Logs (the model in logs.go; the sink and the readers in package
// ingest/logs) become compact LogRecords: each file's lines
// are folded into multi-line records per stream, their level and trace
// context read, and their templates mined (package logtemplate, one Drain
// miner per service, sequentially per file); Finalize merges the templates
// of all files deterministically, sorts the records, links them to spans
// (logfinalize.go); the features stage derives per-service and per-pod log
// series (features.DeriveLogSeries re-derives them for the incident's
// baseline and features.LogEvidence summarises a cause's templates).
//
// Every metric series is classified into a SignalKind (ClassifySeries) and
// attached to the most specific Entity it describes: a GPU, a call edge, a
// pod, a node or a service. Unknown series are kept as SignalOther.
//
// Limits bound what hostile input can make the readers allocate; Validate
// checks a bundle's invariants.
package ingest
