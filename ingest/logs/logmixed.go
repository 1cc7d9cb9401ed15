package logs

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
