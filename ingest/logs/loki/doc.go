// Package loki decodes Grafana Loki log streams (format "loki-streams"):
// query_range and query responses with resultType "streams" and push
// bodies ({"streams":[…]}, what promtail and Alloy send), one stream object
// at a time, each bounded by --max-document-size, its entries fed oldest
// first to the log family's sink (ingest/logs) with the stream's labels and
// each entry's metadata. Responses of the common shape take a fast path
// (lokifast.go, on the scanner of ingest/fastjson) that declines anything
// unusual with ingest.ErrSlowPath; a fuzz target checks that both readers
// agree. It registers itself with package ingest from its init function and
// imports only the core, the family's package and ingest/fastjson.
package loki
