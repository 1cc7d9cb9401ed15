// Package formats registers every input format with package ingest: import
// it for its side effect, as a program imports image/png,
//
//	import _ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
//
// wherever data is read (the driver, compare, the benchmarks, tests), so
// that no reader meets a format it cannot decode. Each decoder package
// registers itself from its init function (ingest.RegisterFormat); the sniff
// order is the priority table in ingest/sniff.go, independent of the order
// of the imports below.
package formats

import (
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/alertmanager"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/changes"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/gpu/kineto"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/gpu/nsight"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/gpu/nvidiasmi"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/gpu/nvml"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/jaeger"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/k8sevents"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/k8sobjects"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/logs"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/logs/container"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/logs/loki"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/logs/otlplogs"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/logs/victorialogs"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/otlp"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/prometheus"
)
