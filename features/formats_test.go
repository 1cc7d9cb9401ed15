package features_test

// The features tests read traces, metrics and GPU recordings: this external
// test file imports every decoder package, and go test links it with the
// internal tests into one binary, so every format is registered.
import _ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
