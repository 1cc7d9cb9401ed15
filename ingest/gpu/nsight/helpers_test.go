package nsight

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Test helpers of the GPU decoders (each GPU format's package has this copy).

// warningsOf joins the messages of b's warnings of a kind.
func warningsOf(b *ingest.Bundle, kind error) string {
	var msgs []string
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			msgs = append(msgs, w.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// find returns the series with the given name and label value (pid) or fails.
func findSeries(t *testing.T, b *ingest.Bundle, name, label, value string) *ingest.Series {
	t.Helper()
	for _, s := range b.Series {
		if s.Name == name && (label == "" || s.Labels.Get(label) == value) {
			return s
		}
	}
	t.Fatalf("no series %s{%s=%q} among %d", name, label, value, len(b.Series))
	return nil
}

// sumSeries returns the sum of the non-NaN values of the named series.
func sumSeries(t *testing.T, b *ingest.Bundle, name, label, value string) (float64, *ingest.Series) {
	t.Helper()
	s := findSeries(t, b, name, label, value)
	sum := 0.0
	for _, v := range s.V {
		if !math.IsNaN(v) {
			sum += v
		}
	}
	return sum, s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
