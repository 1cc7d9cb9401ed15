package features

import (
	"slices"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Window is what the features stage derives for one incident window: the
// bundle's series as that window sees them (the log series derived again
// against the incident's baseline, the per-request pattern series, and
// the volume-based content series of services that have patterns left
// out) and each service's pattern evidence. The bundle it was derived
// from is not changed: a caller that reuses it — compare's two sides,
// eval's methods, a second window after the first moved — sees what was
// read.
type Window struct {
	Series   []*ingest.Series
	Patterns []ingest.PatternShift
	// Warnings are the data-quality problems the derivation found (log
	// records that join no request), beside the bundle's own.
	Warnings []ingest.Warning
}

// ForWindow derives the window's values from b, with [baselineStart,
// windowStart) as the baseline and [windowStart, windowEnd) as the window
// (DeriveLogSeries, DerivePatternSeries). b's own series, spans and logs
// are read, never written; the series that do not depend on the window
// are shared with b. Deterministic. fo's zero fields take their defaults.
func ForWindow(b *ingest.Bundle, baselineStart, windowStart, windowEnd ingest.Time, fo Options) Window {
	// The derivations work on a shallow copy with its own series list
	// (the series themselves are shared, never written) and no pattern
	// evidence yet; only the lists are returned.
	v := *b
	v.Series = slices.Clone(b.Series)
	v.Patterns = slices.Clone(b.Patterns)
	v.Warnings = nil // the derivation's own, returned apart
	DeriveLogSeries(&v, baselineStart, windowStart, fo)
	DerivePatternSeries(&v, baselineStart, windowStart, windowEnd, fo)
	return Window{Series: v.Series, Patterns: v.Patterns, Warnings: v.Warnings}
}

// View returns b as window w sees it: the same data with w's series,
// pattern evidence and warnings after b's; b is not changed.
func (w Window) View(b *ingest.Bundle) *ingest.Bundle {
	v := *b
	v.Series, v.Patterns = w.Series, w.Patterns
	v.Warnings = append(slices.Clip(b.Warnings), w.Warnings...)
	return &v
}
