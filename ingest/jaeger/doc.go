// Package jaeger decodes Jaeger JSON traces (format "jaeger-json": the API
// envelope, bare traces, the UI's span arrays; jaeger.go, jaegertags.go)
// and Jaeger's dependency list ("jaeger-dependencies", deps.go). Its fast
// path (jaegerfast.go) reads regular files with the fast JSON scanner
// (package ingest/fastjson) and declines with ingest.ErrSlowPath on
// anything the general reader must handle; a differential fuzz test checks
// that the two agree. It registers itself with package ingest from its init
// functions; import ingest/formats to have every format. It imports only
// the core and the fastjson library.
package jaeger
