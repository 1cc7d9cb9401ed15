// Package logs is the log family's shared code, and each log format is a
// package below it that registers itself with package ingest from its init
// function: loki (Loki query results and push bodies, with a fast path),
// otlplogs (OTLP/JSON logs, with a fast path), container (Docker
// json-file, fluent-bit, CRI and timestamped text container logs) and
// victorialogs (VictoriaLogs JSON lines); import ingest/formats to have
// every format. It registers no format itself.
//
// What the formats share, and the OTLP trace decoder (ingest/otlp) uses for
// logs documents among span documents:
//
//   - the LogSink (logsink.go) that every reader feeds: it folds lines into
//     multi-line records per stream, reads their level and trace context
//     (logline.go) and mines their templates (package logtemplate, one Drain
//     miner per service), within the log budgets of ingest.Limits
//     (budget.go), and ends with the summary warnings. Its API for a
//     format: NewLogSink, Stream (a stream from its labels), Line (a line or
//     record of a stream, with the Fields its source gives), Flush (the end
//     of a stream's lines), Malformed (a line that could not be read), Full
//     (the record limit), Count (a format's own Condition, stated in one
//     summary warning), NoFold (records stored whole), Name, Limits and
//     Finish;
//   - what places a stream and reads a record's level and trace context
//     from labels and metadata (labels.go: StreamFromLabels, LabelSeverity,
//     MetaFields, FirstLabel); the line reader of line-oriented files and
//     the bound on one JSON document (linereader.go: LineReader, DocBound);
//     OTLP log records (otlp.go: LogSink.OTLPLogs, shared with ingest/otlp);
//   - the log step of ingest.Prepare (finalize.go: the templates of all
//     inputs merged deterministically, records sorted and linked to spans,
//     the entity cap), which it registers with ingest.RegisterLogFinalizer.
//
// It imports only the core, the model and the Drain miner (logtemplate).
package logs
