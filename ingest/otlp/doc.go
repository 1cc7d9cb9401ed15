// Package otlp decodes OTLP/JSON traces (format "otlp-json": TracesData
// documents, one or many, as the Collector's file exporter and Jaeger's v3
// API write them) into ingest.Spans, with their placement tags. OTLP logs
// documents found among the span documents are read as logs through the
// shared log machinery (package ingest/logs). It registers itself with
// package ingest from its init function; import ingest/formats to have
// every format. It imports only the core and ingest/logs.
package otlp
