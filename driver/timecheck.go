package driver

import (
	"fmt"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// maxRelativeTime bounds the offset of a relative time ("now-15m"): no
// incident's data spans a century.
const maxRelativeTime = 100 * 365 * 24 * time.Hour

// checkTimeSpec range-checks a time the user typed: an absolute time must be
// one data can have (ingest.PlausibleTime), an offset from "now" at most a
// century, so a window never wraps around the int64 clock ("2262-04-11 →
// 1677-09-21"). The error is one line naming the flag's value.
func checkTimeSpec(ts timeSpec) error {
	switch {
	case !ts.present:
		return nil
	case ts.isRel:
		if ts.rel > maxRelativeTime || ts.rel < -maxRelativeTime {
			return fmt.Errorf("--at %q: the offset from now is over a century", ts.raw)
		}
	case !ingest.PlausibleTime(ts.abs):
		return fmt.Errorf("--at %q: outside the times incident data can have (%s)", ts.raw, ingest.PlausibleRange)
	}
	return nil
}
