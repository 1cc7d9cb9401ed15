// Package otlplogs decodes OTLP/JSON logs files (format "otlp-logs"): one
// LogsData document or a stream of them (the Collector's file exporter),
// each bounded by --max-document-size, decoded by pdata and fed to the log
// family's sink (LogSink.OTLPLogs in ingest/logs, which the OTLP trace
// decoder shares for logs documents among spans); span documents among
// them are skipped with a warning. A fast path splits documents by brace
// matching and declines anything unusual with ingest.ErrSlowPath; a fuzz
// target checks that both readers agree. It registers itself with package
// ingest from its init function and imports only the core, the family's
// package and ingest/fastjson.
package otlplogs
