package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TimeSpec is the incident time as the user gave it (--at, the MCP tool's
// at): absolute, or relative to the end of the data ("now"). The zero
// value is "not given".
type TimeSpec struct {
	Abs     ingest.Time   // the absolute time (when not IsRel)
	Rel     time.Duration // the offset from the end of the data (when IsRel)
	IsRel   bool          // relative to the end of the data ("now-15m")
	Raw     string        // the text as typed
	Present bool          // a time was given
	Unit    string        // the unit of a unix epoch, read from its magnitude ("s", "ms", "µs", "ns")
}

// Source is how the incident time was given, for the scorecard:
// "--at 1796008320000 (unix ms)".
func (ts TimeSpec) Source() string {
	if ts.Unit != "" {
		return "--at " + ts.Raw + " (unix " + ts.Unit + ")"
	}
	return "--at " + ts.Raw
}

// ParseTime accepts RFC3339, a unix epoch in seconds, milliseconds,
// microseconds or nanoseconds (told apart by magnitude, see epochUnit), and
// "now", "now-15m", "now+1m" where now is the end of the data.
func ParseTime(s string) (TimeSpec, error) {
	ts := TimeSpec{Raw: s, Present: s != ""}
	if s == "" {
		return ts, nil
	}
	if strings.HasPrefix(s, "now") {
		rest := s[3:]
		ts.IsRel = true
		if rest == "" {
			return ts, nil
		}
		d, err := time.ParseDuration(rest)
		if err != nil || (rest[0] != '-' && rest[0] != '+') {
			return ts, fmt.Errorf("--at %q: want now, now-DURATION or now+DURATION (e.g. now-15m)", s)
		}
		ts.Rel = d
		return ts, checkTimeSpec(ts)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		ts.Abs = ingest.FromTime(t)
		return ts, checkTimeSpec(ts)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		ts.Abs, ts.Unit = epochUnit(f)
		return ts, checkTimeSpec(ts)
	}
	return ts, fmt.Errorf("--at %q: want RFC3339 (2026-11-30T03:12:00Z), a unix epoch (s, ms, µs or ns), or now-15m", s)
}

// Resolve returns the absolute time given the end of the data.
func (ts TimeSpec) Resolve(end ingest.Time) ingest.Time {
	if !ts.Present {
		return 0
	}
	if ts.IsRel {
		return end.Add(ts.Rel)
	}
	return ts.Abs
}

// maxRelativeTime bounds the offset of a relative time ("now-15m"): no
// incident's data spans a century.
const maxRelativeTime = 100 * 365 * 24 * time.Hour

// checkTimeSpec range-checks a time the user typed: an absolute time must be
// one data can have (ingest.PlausibleTime), an offset from "now" at most a
// century, so a window never wraps around the int64 clock ("2262-04-11 →
// 1677-09-21"). The error is one line naming the flag's value.
func checkTimeSpec(ts TimeSpec) error {
	switch {
	case !ts.Present:
		return nil
	case ts.IsRel:
		if ts.Rel > maxRelativeTime || ts.Rel < -maxRelativeTime {
			return fmt.Errorf("--at %q: the offset from now is over a century", ts.Raw)
		}
	case !ingest.PlausibleTime(ts.Abs):
		return fmt.Errorf("--at %q: outside the times incident data can have (%s)", ts.Raw, ingest.PlausibleRange)
	}
	return nil
}

// epochUnit reads a unix epoch number by its magnitude: seconds (up to
// 1e11, the year 5138), milliseconds (up to 1e14), microseconds (up to
// 1e17), else nanoseconds. It returns the instant and the unit's name.
func epochUnit(f float64) (ingest.Time, string) {
	a := math.Abs(f)
	switch {
	case a < 1e11:
		return ingest.FromUnixSeconds(f), "s"
	case a < 1e14:
		return ingest.FromUnixSeconds(f / 1e3), "ms"
	case a < 1e17:
		return ingest.FromUnixSeconds(f / 1e6), "µs"
	}
	return ingest.FromUnixSeconds(f / 1e9), "ns"
}
