package ingest

// Hostile and dirty inputs end to end through Read/ReadFile: resource
// limits (huge files, deep nesting, many spans/series/points) fail fast with
// bounded memory; partial and dirty data is analysed with warnings.

import (
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repeatReader yields pat forever (callers bound it with io.LimitReader).
type repeatReader struct {
	pat []byte
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.pat[r.off:])
		n += c
		r.off = (r.off + c) % len(r.pat)
	}
	return n, nil
}

// TestHugeGarbageFailsFast: a 2 GB file (sparse, never committed) of
// garbage, as an unknown format and behind a header that sniffs as each
// JSON format, is rejected or skipped without reading it all.
func TestHugeGarbageFailsFast(t *testing.T) {
	const size = 2 << 30
	headers := []struct{ name, head string }{
		{"unknown", ""},
		{"jaeger", `{"traceID":"1","spans":[`},
		{"otlp", `{"resourceSpans":[`},
		{"prometheus", `{"status":"success","data":{"resultType":"matrix","result":[`},
		{"alertmanager", `{"receiver":"x","status":"firing","alerts":[`},
		{"k8s", `{"kind":"EventList","items":[{"involvedObject":{},"reason":"x",`},
		{"kineto", `{"schemaVersion":1,"traceEvents":[`},
		{"nvml", `{"pipeline_analyze_nvml":1}` + "\n"},
		{"dmon", "# gpu pwr\n# Idx W\n"},
	}
	dir := t.TempDir()
	for _, h := range headers {
		t.Run(h.name, func(t *testing.T) {
			path := filepath.Join(dir, h.name)
			if err := os.WriteFile(path, []byte(h.head), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, size); err != nil { // the rest is a hole of NUL bytes
				t.Skipf("sparse file: %v", err)
			}
			var b *Bundle
			var err error
			d, alloc := testkit.MeasureCost(func() { b, err = Read([]string{path}, nil, Options{}) })
			if err == nil {
				t.Fatalf("accepted 2 GB of garbage: %d spans %d series", len(b.Spans), len(b.Series))
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if d > 5*time.Second || alloc > 64<<20 {
				t.Errorf("took %v and allocated %d MiB, want < 5s and < 64 MiB", d, alloc>>20)
			}
			t.Logf("%v in %v, %d KiB allocated", err, d, alloc>>10)
		})
	}
}

// TestMaxFileSize: a stream larger than Limits.MaxFileBytes that parses as
// one huge JSON value stops at the limit with ErrLimit.
func TestMaxFileSize(t *testing.T) {
	head := `{"receiver":"x","status":"firing","alerts":[`
	r := io.MultiReader(strings.NewReader(head), io.LimitReader(&repeatReader{pat: []byte(`{"labels":{"alertname":"x"}},`)}, 1<<30))
	var err error
	d, alloc := testkit.MeasureCost(func() { _, err = ReadFile("-", r, Limits{MaxFileBytes: 8 << 20}) })
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v, want ErrLimit", err)
	}
	var ie *InputError
	if !errors.As(err, &ie) || ie.Offset < 8<<20-64 {
		t.Errorf("err = %v, want an *InputError near byte %d", err, 8<<20)
	}
	if alloc > 128<<20 {
		t.Errorf("allocated %d MiB for an 8 MiB limit", alloc>>20)
	}
	t.Logf("%v in %v, %d MiB allocated", err, d, alloc>>20)
}

// TestDeepNesting: 10 million '[' inside a value of each JSON reader fail
// fast with bounded memory (Limits.MaxDepth for streamed values, encoding/json's
// 10000-level scanner limit for decoded ones).
func TestDeepNesting(t *testing.T) {
	const depth = 10_000_000
	heads := []struct{ name, head string }{
		{"jaeger envelope key", `{"data":[{"traceID":"1","spans":[],"x":`},
		{"jaeger span tag", `[{"traceID":"1","spanID":"1","tags":`},
		{"otlp", `{"resourceSpans":`},
		{"prometheus", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":`},
		{"alertmanager", `{"receiver":"x","status":"firing","alerts":`},
		{"k8s", `{"kind":"EventList","items":[{"involvedObject":{},"reason":"x","x":`},
		{"dependencies", `[{"parent":"a","child":"b","callCount":`},
		{"kineto", `{"schemaVersion":1,"traceEvents":[],"x":`},
		{"nvml", `{"pipeline_analyze_nvml":1,"x":`},
	}
	for _, h := range heads {
		t.Run(h.name, func(t *testing.T) {
			r := io.MultiReader(strings.NewReader(h.head), io.LimitReader(&repeatReader{pat: []byte("[")}, depth))
			var err error
			d, alloc := testkit.MeasureCost(func() { _, err = ReadFile("-", r, Limits{}) })
			if err == nil {
				t.Fatal("accepted 10M-deep nesting")
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("err = %v, want *InputError", err)
			}
			if d > 5*time.Second || alloc > 64<<20 {
				t.Errorf("took %v and allocated %d MiB, want < 5s and < 64 MiB", d, alloc>>20)
			}
			t.Logf("%v in %v, %d KiB allocated", err, d, alloc>>10)
		})
	}
}

// TestCountLimits: spans, series and points beyond the limits are dropped
// with an ErrLimit warning, and what is kept is valid.
func TestCountLimits(t *testing.T) {
	var spans strings.Builder
	spans.WriteString(`{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"s"}},"spans":[`)
	for i := 1; i <= 50; i++ {
		if i > 1 {
			spans.WriteByte(',')
		}
		fmt.Fprintf(&spans, `{"traceID":"1","spanID":"%x","operationName":"op","startTime":%d,"duration":10,"processID":"p1"}`, i, 1700000000000000+int64(i)*1000)
	}
	spans.WriteString(`]}]}`)
	var csv strings.Builder
	csv.WriteString("timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&csv, "2024/05/01 10:00:%02d.000, %d, 50 %%, 10 MiB, 100 W\n", i, i%8)
	}
	tests := []struct {
		name, in string
		lim      Limits
	}{
		{"spans", spans.String(), Limits{MaxSpans: 10}},
		{"series", csv.String(), Limits{MaxSeries: 5}},
		{"points", csv.String(), Limits{MaxPoints: 20}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := Read([]string{path}, nil, Options{Limits: tc.lim})
			if err != nil {
				t.Fatal(err)
			}
			if !hasWarning(b, ErrLimit) {
				t.Errorf("no ErrLimit warning: %v", b.Warnings)
			}
			in := b.Inputs[0].Counts
			switch tc.name {
			case "spans":
				if len(b.Spans) > 10 {
					t.Errorf("%d spans kept, limit 10", len(b.Spans))
				}
			case "series":
				if in.Series > 5 {
					t.Errorf("%d series kept, limit 5", in.Series)
				}
			case "points":
				if in.Points > 20 {
					t.Errorf("%d points kept, limit 20", in.Points)
				}
			}
			if err := b.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func hasWarning(b *Bundle, kind error) bool {
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			return true
		}
	}
	return false
}

// jaegerSpan renders one span of trace 1 for the dirty-data cases.
func jaegerSpan(id, parent, proc string, startUs, durUs int64) string {
	refs := ""
	if parent != "" {
		refs = fmt.Sprintf(`,"references":[{"refType":"CHILD_OF","traceID":"1","spanID":"%s"}]`, parent)
	}
	return fmt.Sprintf(`{"traceID":"1","spanID":"%s","operationName":"op","startTime":%d,"duration":%d,"processID":"%s"%s}`, id, startUs, durUs, proc, refs)
}

func jaegerTrace(spans ...string) string {
	return `{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"front","tags":[{"key":"hostname","type":"string","value":"h1"}]},` +
		`"p2":{"serviceName":"back","tags":[{"key":"hostname","type":"string","value":"h2"}]}},"spans":[` + strings.Join(spans, ",") + `]}]}`
}

// TestDirtyData: partial and dirty inputs are analysed (Read succeeds, the
// bundle validates) with the matching warning.
func TestDirtyData(t *testing.T) {
	const t0 = 1700000000000000 // µs
	prom := func(vals string) string {
		return `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"http_requests_total","service":"front"},"values":[` + vals + `]}]}}`
	}
	tests := []struct {
		name  string
		files map[string]string
		want  error // warning kind expected; nil: none required
		check func(t *testing.T, b *Bundle)
	}{
		{"missing parent", map[string]string{"t.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "9", "p2", t0+10, 50))}, ErrOrphanSpan, nil},
		{"duplicate span IDs", map[string]string{"t.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "1", "p2", t0+10, 50))}, ErrDuplicateID,
			func(t *testing.T, b *Bundle) {
				if len(b.Spans) != 2 {
					t.Errorf("%d spans kept, want 2", len(b.Spans))
				}
			}},
		{"negative duration", map[string]string{"t.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "1", "p2", t0+10, -50))}, ErrBadValue, nil},
		{"absurd duration", map[string]string{"t.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "1", "p2", t0+10, 1<<50))}, nil, nil},
		{"child outside parent (skew)", map[string]string{"t.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "1", "p2", t0-5000, 50))}, ErrClockSkew,
			func(t *testing.T, b *Bundle) { // another host: centred in the parent
				if len(b.Spans) != 2 || b.Spans[1].Start != b.Spans[0].Start+Time(25*time.Microsecond) {
					t.Errorf("child not moved into its parent: %+v", b.Spans)
				}
			}},
		{"counter reset", map[string]string{"m.json": prom(`[1700000000,"100"],[1700000015,"200"],[1700000030,"5"],[1700000045,"90"]`)}, ErrCounterReset,
			func(t *testing.T, b *Bundle) {
				if len(b.Series) != 1 || b.Series[0].V[2] != 5 {
					t.Errorf("series %+v", b.Series)
				}
			}},
		{"NaN and Inf", map[string]string{"m.json": prom(`[1700000000,"1"],[1700000015,"NaN"],[1700000030,"+Inf"],[1700000045,"-Inf"],[1700000060,"2"]`)}, nil,
			func(t *testing.T, b *Bundle) {
				for _, v := range b.Series[0].V {
					if math.IsInf(v, 0) {
						t.Errorf("Inf kept: %v", b.Series[0].V)
					}
				}
			}},
		{"gap", map[string]string{"m.json": prom(`[1700000000,"1"],[1700000015,"1"],[1700000300,"1"],[1700000315,"1"]`)}, ErrGap, nil},
		{"one point", map[string]string{"m.json": prom(`[1700000000,"1"]`)}, nil,
			func(t *testing.T, b *Bundle) {
				if len(b.Series) != 1 {
					t.Errorf("%d series", len(b.Series))
				}
			}},
		{"bad file among good ones", map[string]string{
			"a.json": jaegerTrace(jaegerSpan("1", "", "p1", t0, 100)),
			"b.json": `{"traceID":"1","spans":[{"spanID":"1" "x":1}]}`,
			"c.json": prom(`[1700000000,"1"],[1700000015,"2"]`),
		}, ErrSkippedInput, func(t *testing.T, b *Bundle) {
			var skipped []string
			for _, in := range b.Inputs {
				if in.Skipped {
					skipped = append(skipped, filepath.Base(in.Path)+": "+in.Error)
				}
			}
			if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "b.json: ") || !strings.Contains(skipped[0], "b.json:1:") {
				t.Errorf("skipped = %q, want b.json with its line and column", skipped)
			}
			if len(b.Spans) != 1 || len(b.Series) != 1 { // the span-derived series are the features stage's
				t.Errorf("good files not analysed: %d spans %d series", len(b.Spans), len(b.Series))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := Read([]string{dir}, nil, Options{})
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if tc.want != nil && !hasWarning(b, tc.want) {
				t.Errorf("no %v warning in %v", tc.want, b.Warnings)
			}
			if err := b.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if tc.check != nil {
				tc.check(t, b)
			}
		})
	}
}

// TestValidateFindsProblems: Validate reports every broken invariant.
func TestValidateFindsProblems(t *testing.T) {
	b := &Bundle{
		Spans: []Span{{SpanID: 2, Start: 10}, {SpanID: 1, Start: 5, Duration: -1}, {SpanID: 1, Start: 5}},
		Series: []*Series{{Name: "a", T: []Time{2, 1}, V: []float64{math.Inf(1), 0}},
			{Name: "b", T: []Time{1}, V: nil}},
		Entities: []Entity{{Kind: KindService, Name: "b"}, {Kind: KindService, Name: "a"}, {Kind: KindUnknown}},
		Warnings: []Warning{{Message: "x"}},
		Start:    5, End: 1,
	}
	err := b.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"sorts before", "repeats the ID", "negative duration", "not after time", "is +Inf",
		"1 times and 0 values", "unsorted or duplicate", "malformed", "warning 0", "start 5 after end 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if err := (&Bundle{}).Validate(); err != nil {
		t.Errorf("empty bundle: %v", err)
	}
}
