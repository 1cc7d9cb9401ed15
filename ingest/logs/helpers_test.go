package logs

import (
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// fuzzLimits keep fuzzed inputs small: every bound is hit by a few KB (as
// the core's fuzz targets do).
var fuzzLimits = ingest.Limits{MaxFileBytes: 1 << 20, MaxDepth: 32, MaxStringBytes: 256, MaxSpans: 500, MaxSeries: 50, MaxPoints: 2000, MaxLogRecords: 500}
