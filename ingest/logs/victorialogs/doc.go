// Package victorialogs decodes VictoriaLogs /select/logsql/query output
// (format "victorialogs-jsonl"): JSON Lines, every value a string, the stream
// placed by the labels of "_stream". Records are stored whole, so the
// family's sink (ingest/logs) keeps each as it is (LogSink.NoFold). It
// registers itself with package ingest from its init function and imports
// only the core and the family's package.
package victorialogs
