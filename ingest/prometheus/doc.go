// Package prometheus decodes Prometheus query_range and query responses
// (format "prometheus-query-range"; LogQL metric results too) into
// classified ingest.Series (package ingest/classify, classify.Series). Its fast path
// (promfast.go) reads regular files with the fast JSON scanner (package
// ingest/fastjson) and declines with ingest.ErrSlowPath on anything the
// general reader must handle. VictoriaLogs lines appended after a response
// are read through the registry (ingest.Decoder). It registers itself with
// package ingest from its init function; import ingest/formats to have every
// format. It imports only the core and the fastjson library.
package prometheus
