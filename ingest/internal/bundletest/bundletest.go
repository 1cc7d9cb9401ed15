// Package bundletest holds what the decoders' tests ask of a read bundle —
// its warnings of a kind, a series by name and label, the sum of a series —
// shared by the GPU format packages' tests. Only tests import it.
package bundletest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// WarningsOf joins the messages of b's warnings of a kind.
func WarningsOf(b *ingest.Bundle, kind error) string {
	var msgs []string
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			msgs = append(msgs, w.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// FindSeries returns the series with the given name and label value (any
// label when label is "") or fails the test.
func FindSeries(t testing.TB, b *ingest.Bundle, name, label, value string) *ingest.Series {
	t.Helper()
	for _, s := range b.Series {
		if s.Name == name && (label == "" || s.Labels.Get(label) == value) {
			return s
		}
	}
	t.Fatalf("no series %s{%s=%q} among %d", name, label, value, len(b.Series))
	return nil
}

// SumSeries returns the sum of the non-NaN values of the series FindSeries
// finds, and the series.
func SumSeries(t testing.TB, b *ingest.Bundle, name, label, value string) (float64, *ingest.Series) {
	t.Helper()
	s := FindSeries(t, b, name, label, value)
	sum := 0.0
	for _, v := range s.V {
		if !math.IsNaN(v) {
			sum += v
		}
	}
	return sum, s
}

// Near reports whether a and b agree to 1e-9, relative to |b| when it is
// above 1.
func Near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
