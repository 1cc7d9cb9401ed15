package ingest

import (
	"testing"
)

// Bridges for the external tests (package ingest_test), which read through
// the registered decoders (ingest/formats) and so cannot live in package
// ingest: an internal test importing a decoder package would be an import
// cycle.

// EnforceLimits is enforceLimits.
func EnforceLimits(b *Bundle, lim Limits, source string) { enforceLimits(b, lim, source) }

// Records is records.
func Records(b *Bundle) int { return records(b) }

// CheckValues is checkValues.
func CheckValues(b *Bundle, source string) { checkValues(b, source) }

// CheckParents is checkParents.
func CheckParents(t *testing.T, b *Bundle) { checkParents(t, b) }

// FuzzLimits keep fuzzed inputs small: every bound is hit by a few KB.
var FuzzLimits = Limits{MaxFileBytes: 1 << 20, MaxDepth: 32, MaxStringBytes: 256, MaxSpans: 500, MaxSeries: 50, MaxPoints: 2000, MaxLogRecords: 500}

// fuzzLimits is FuzzLimits, for the internal fast-path fuzz targets.
var fuzzLimits = FuzzLimits
