package features

import (
	"slices"
	"testing"
	"time"
)

// TestForWindowLeavesTheBundle: the window's series and pattern evidence
// are returned, the bundle they were derived from is as it was — its
// series list (the same series, in the same order) and its evidence — so
// a second window (the onset moved, compare's other side) starts from
// what was read.
func TestForWindowLeavesTheBundle(t *testing.T) {
	b := patternCase(t, true, false)
	series, patterns, warnings := slices.Clone(b.Series), slices.Clone(b.Patterns), len(b.Warnings)
	t0 := b.Grid[0]
	w := ForWindow(b, t0, t0.Add(20*time.Minute), t0.Add(29*time.Minute), Options{})
	if !slices.Equal(b.Series, series) || len(b.Patterns) != len(patterns) {
		t.Fatalf("the bundle changed: %d series (was %d), %d patterns (was %d)", len(b.Series), len(series), len(b.Patterns), len(patterns))
	}
	for i := range patterns {
		if b.Patterns[i].Service != patterns[i].Service || b.Patterns[i].WindowN != patterns[i].WindowN {
			t.Errorf("pattern %d changed: %+v, was %+v", i, b.Patterns[i], patterns[i])
		}
	}
	v := w.View(b)
	if len(b.Warnings) != warnings || len(v.Warnings) != warnings+len(w.Warnings) {
		t.Errorf("warnings: the bundle's %d (was %d), the view's %d, want the bundle's and the window's %d", len(b.Warnings), warnings, len(v.Warnings), len(w.Warnings))
	}
	if patternSeries(v, "orders") == nil || len(w.Patterns) == 0 {
		t.Fatalf("the window has no pattern series or evidence for orders")
	}
	if patternSeries(v, "orders") == patternSeries(b, "orders") {
		t.Errorf("the window's pattern series is the bundle's: it was not derived for the window")
	}
	if v.Spans == nil || len(v.Spans) != len(b.Spans) {
		t.Errorf("the view does not share the bundle's spans")
	}
}
