package logs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// sharedDir locates /work/shared relative to the package directory, skipping
// the test when it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared material not present: %v", err)
	}
	return d
}

// fuzzLimits keep fuzzed inputs small: every bound is hit by a few KB (as
// the core's fuzz targets do).
var fuzzLimits = ingest.Limits{MaxFileBytes: 1 << 20, MaxDepth: 32, MaxStringBytes: 256, MaxSpans: 500, MaxSeries: 50, MaxPoints: 2000, MaxLogRecords: 500}
