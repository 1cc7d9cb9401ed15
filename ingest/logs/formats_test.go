package logs_test

// Some tests here read other formats beside this package's (a Prometheus
// response beside Loki streams, the same trace as OTLP and as Jaeger): this
// external test file imports every decoder package, and go test links it
// with the internal tests into one binary, so every format is registered.
import _ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
