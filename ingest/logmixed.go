package ingest

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/plog"
)

// Mixed formats in one file are said, never silently dropped, and what can
// be read is read:
//   - JSON lines after a Prometheus response (a VictoriaLogs query's output
//     appended to it) are read as VictoriaLogs records; anything else after
//     the response is dropped with a warning giving its size;
//   - OTLP logs documents among OTLP span documents are read as logs, and
//     span documents among logs documents are skipped, each with a warning;
//   - a Loki input whose results are not log streams (a Prometheus matrix
//     whose labels happen to be named "stream" and "values") is warned, not
//     read as zero records in silence.

// otlpLogsAmongSpans reads an OTLP logs document found among span
// documents into the reader's log sink (created on first use).
func (or *otlpReader) otlpLogsAmongSpans(raw []byte, off int64) error {
	var um plog.JSONUnmarshaler
	ld, err := um.UnmarshalLogs(raw)
	if err != nil {
		return ErrorAt(or.name, off, fmt.Errorf("otlp logs document among spans: %w", err))
	}
	if or.logs == nil {
		or.logs = newLogSink(or.name, or.lim, or.b)
	}
	or.logDocs++
	or.logs.otlpLogs(ld, or.logDocs)
	return nil
}

// finishLogs finishes the log sink of otlpLogsAmongSpans, with its warning.
func (or *otlpReader) finishLogs() {
	if or.logs == nil {
		return
	}
	or.logs.finish()
	or.b.Warn(ErrSourceWarning, or.name, or.logDocs, "%d OTLP logs documents among the span documents read as logs (%d records; mixed formats in one file)", or.logDocs, len(or.b.Logs))
}
