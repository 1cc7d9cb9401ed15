package driver

import (
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/spf13/pflag"
)

// registerLimitFlags adds the resource-limit flags, which bound what hostile
// or runaway input can make the readers allocate, filling l. Defaults come
// from ingest.DefaultLimits; a limit hit on spans, series or points keeps
// what fits with a warning, one on size or nesting rejects the file.
func registerLimitFlags(fs *pflag.FlagSet, l *ingest.Limits) {
	d := ingest.DefaultLimits()
	fs.Int64Var(&l.MaxFileBytes, "max-file-size", d.MaxFileBytes, "largest input file in bytes, after decompression")
	fs.IntVar(&l.MaxDepth, "max-depth", d.MaxDepth, "deepest JSON nesting accepted")
	fs.IntVar(&l.MaxStringBytes, "max-string", d.MaxStringBytes, "longest name or label kept in bytes (longer ones are truncated with a warning)")
	fs.IntVar(&l.MaxSpans, "max-spans", d.MaxSpans, "spans kept over all inputs")
	fs.IntVar(&l.MaxSeries, "max-series", d.MaxSeries, "series kept over all inputs")
	fs.IntVar(&l.MaxPoints, "max-points", d.MaxPoints, "points kept over all inputs")
	fs.Int64Var(&l.MaxTokenBytes, "max-token", d.MaxTokenBytes, "longest JSON string, number or run of whitespace in bytes (a longer one rejects the file)")
	fs.Int64Var(&l.MaxDocumentBytes, "max-document-size", d.MaxDocumentBytes, "largest input decoded as one JSON document (alerts, Kubernetes events, dependencies, OTLP logs), in bytes")
	fs.IntVar(&l.MaxEvents, "max-events", d.MaxEvents, "alerts and change events kept of one input")
	fs.IntVar(&l.MaxTraceSpans, "max-trace-spans", d.MaxTraceSpans, "spans kept of one trace")
	fs.IntVar(&l.MaxCells, "max-cells", d.MaxCells, "aligned series cells (series × grid steps) over all inputs; series with the fewest points are dropped first")
	fs.Int64Var(&l.MaxTempBytes, "max-temp-size", d.MaxTempBytes, "largest temporary copy of a compressed or piped SQLite export, in bytes")
	fs.DurationVar(&l.QueryTimeout, "query-timeout", d.QueryTimeout, "longest time the queries of one SQLite input may run")
	fs.DurationVar(&l.StallTimeout, "stall-timeout", d.StallTimeout, "longest wait for the next byte of a pipe or FIFO input, and for a FIFO's first writer (that wait is said on stderr at once, not with -q)")
	fs.Int64Var(&l.SpanBudget, "span-budget", d.SpanBudget, "trace files (Jaeger, OTLP, JSON or protobuf; gzip uncompressed) read with every span kept, in bytes; above it spans are streamed: "+
		"the span-derived series count every span, and a sample of whole traces a quarter of this size is kept for evidence (the card says so)")
	// The log budgets (ingest/logs/budget.go): what they cut is kept out with
	// a warning naming the flag.
	fs.IntVar(&l.MaxLogRecords, "max-log-records-per-input", d.MaxLogRecords, "log records kept of one input")
	fs.IntVar(&l.MaxLogRecordBytes, "max-log-record-size", d.MaxLogRecordBytes, "bytes kept of one log record's text (with its folded lines)")
	fs.IntVar(&l.MaxLogStreams, "max-log-streams", d.MaxLogStreams, "log streams kept of one input; records of further streams go to one unlabelled stream")
	fs.IntVar(&l.MaxLogEntities, "max-log-entities", d.MaxLogEntities, "services and pods with log series; the busiest are kept")
	fs.IntVar(&l.MaxLogTemplates, "max-log-templates", d.MaxLogTemplates, "log templates mined per service of one input")
	fs.IntVar(&l.MaxLogTemplatesTotal, "max-log-templates-total", d.MaxLogTemplatesTotal, "log templates of one input, and of all inputs once merged")
	clihelp.SetGroup(fs, clihelp.GroupInputs, "max-file-size", "max-depth", "max-string", "max-spans", "max-series", "max-points", "max-token",
		"max-document-size", "max-events", "max-trace-spans", "max-cells", "max-temp-size", "query-timeout", "stall-timeout", "span-budget",
		"max-log-records-per-input", "max-log-record-size", "max-log-streams", "max-log-entities", "max-log-templates", "max-log-templates-total")
}
