// Package bundletest holds what the decoders' tests ask of a read bundle —
// its warnings, a series by name and label, the sum of a series, a fast
// path's agreement with its general reader — and the inputs they write,
// shared by the GPU and log format packages' tests. Only tests import it.
package bundletest

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
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

// WriteTemp writes content to dir/name (creating name's directories) and
// returns the path.
func WriteTemp(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// HasWarning reports whether b has a warning of kind whose message
// contains substr.
func HasWarning(b *ingest.Bundle, kind error, substr string) bool {
	for _, w := range b.Warnings {
		if w.Kind == kind && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

// ReadLimited reads path under lim without the features stage, or fails
// the test (the caller imports the formats it reads).
func ReadLimited(t testing.TB, path string, lim ingest.Limits) *ingest.Bundle {
	t.Helper()
	b, err := ingest.Read([]string{path}, nil, ingest.Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzLimits keep fuzzed inputs small: every bound is hit by a few KB (as
// the core's fuzz targets do).
var FuzzLimits = ingest.Limits{MaxFileBytes: 1 << 20, MaxDepth: 32, MaxStringBytes: 256, MaxSpans: 500, MaxSeries: 50, MaxPoints: 2000, MaxLogRecords: 500}

// Decoder is a format's decoder of one input, as a test calls it.
type Decoder func(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error)

// CompareLogFastPath decodes in with a log format's fast path and its
// general reader and reports whether the fast path accepted it; when it
// did, the two bundles' records, streams, templates and warnings must be
// equal, and the general reader must accept it too.
func CompareLogFastPath(t testing.TB, fast, general Decoder, name string, in []byte, lim ingest.Limits) bool {
	t.Helper()
	got, err := fast(name, bytes.NewReader(in), lim)
	if errors.Is(err, ingest.ErrSlowPath) {
		return false
	}
	if err != nil {
		t.Fatalf("fast path returned an error other than ErrSlowPath: %v", err)
	}
	want, werr := general(name, bytes.NewReader(in), lim)
	if werr != nil {
		t.Fatalf("fast path accepted what the general reader rejects: %v", werr)
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"records", got.Logs, want.Logs}, {"streams", got.LogStreams, want.LogStreams},
		{"templates", got.LogTemplates, want.LogTemplates}, {"warnings", got.Warnings, want.Warnings}} {
		if !reflect.DeepEqual(c.a, c.b) {
			t.Fatalf("%s differ:\nfast    %+v\ngeneral %+v", c.name, c.a, c.b)
		}
	}
	return true
}
