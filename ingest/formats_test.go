package ingest_test

// The core's tests read every format: this external test file imports every
// decoder package, and go test links internal and external tests into one
// binary, so the decoders register with the package under test (an internal
// test file importing them would be an import cycle).
import _ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
