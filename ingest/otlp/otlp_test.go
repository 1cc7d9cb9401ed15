package otlp

import (
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/tracetest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestOTLPSamples reads the real OTLP JSON samples (a TracesData document and
// Jaeger api_v3 {"result":...} responses) through ReadFile. Expected counts
// were computed independently with python3's json module.
func TestOTLPSamples(t *testing.T) {
	dir := testkit.SharedDir(t)
	tests := []struct {
		path string
		want tracetest.Summary
	}{
		{"samples/jaeger/otlp2jaeger-in.json", tracetest.Summary{Spans: 2, Traces: 1, Services: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanServer: 2}}},
		{"samples/captured/jaeger/v3_find.json", tracetest.Summary{Spans: 4, Traces: 1, Services: 1, Roots: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanInternal: 4}}},
		{"samples/captured/jaeger/v3_trace.json", tracetest.Summary{Spans: 1, Traces: 1, Services: 1, SourceWarnings: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanServer: 1}}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			b, err := ingest.ReadFile(filepath.Join(dir, tc.path), nil, ingest.Limits{})
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			tc.want.Format = ingest.FormatOTLPJSON
			tracetest.Check(t, tracetest.Summarize(b), tc.want)
		})
	}
}

// TestOTLPMatchesJaeger: the OTLP and Jaeger v1 renderings of the same traces
// (Jaeger's own converter pair and the captured v1/v3 API responses) give
// the same spans; Jaeger v1 has µs precision, so durations are compared at µs.
func TestOTLPMatchesJaeger(t *testing.T) {
	dir := testkit.SharedDir(t)
	pairs := []struct{ otlp, jaeger string }{
		{"samples/jaeger/otlp2jaeger-in.json", "samples/jaeger/otlp2jaeger-out.json"},
		{"samples/captured/jaeger/v3_trace.json", "samples/captured/jaeger/api_trace.json"},
		{"samples/captured/jaeger/v3_find.json", "samples/captured/jaeger/api_search_multi.json"},
	}
	key := func(b *ingest.Bundle) []string {
		var out []string
		for _, s := range b.Spans {
			out = append(out, fmt.Sprintf("%v %v %v %s %s %v %d %v %v", s.TraceID, s.SpanID, s.ParentID, s.Service, s.Operation,
				s.Kind, s.Start, s.Duration.Truncate(time.Microsecond), s.Error))
		}
		sort.Strings(out)
		return out
	}
	for _, p := range pairs {
		t.Run(filepath.Base(p.otlp), func(t *testing.T) {
			o, err := ingest.ReadFile(filepath.Join(dir, p.otlp), nil, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			j, err := ingest.ReadFile(filepath.Join(dir, p.jaeger), nil, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			ko, kj := key(o), key(j)
			if strings.Join(ko, "\n") != strings.Join(kj, "\n") {
				t.Errorf("OTLP spans:\n%s\nJaeger spans:\n%s", strings.Join(ko, "\n"), strings.Join(kj, "\n"))
			}
		})
	}
}

// otlpDoc renders one compact TracesData document with one span.
func otlpDoc(service, spanID, extraRes, spanFields string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"` + service + `"}}` + extraRes + `]},` +
		`"scopeSpans":[{"scope":{"name":"x"},"spans":[{"traceId":"c620759e5d60fafb8ee0922b30e06bc6","spanId":"` + spanID + `",` +
		`"name":"op","kind":3,"startTimeUnixNano":"1711138246978000000","endTimeUnixNano":"1711138247024460625"` + spanFields + `}]}]}]}`
}

// TestOTLPShapes covers JSON Lines, the api_v3 wrapper and field mapping.
func TestOTLPShapes(t *testing.T) {
	podRes := `,{"key":"k8s.pod.name","value":{"stringValue":"cart-1"}},{"key":"k8s.node.name","value":{"stringValue":"n7"}}`
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, b *ingest.Bundle)
	}{
		{"json lines", otlpDoc("a", "0000000000000001", podRes, "") + "\n" + otlpDoc("b", "0000000000000002", "", `,"parentSpanId":"0000000000000001"`) + "\n",
			func(t *testing.T, b *ingest.Bundle) {
				if len(b.Spans) != 2 {
					t.Fatalf("%d spans, want 2", len(b.Spans))
				}
				s0, s1 := b.Spans[0], b.Spans[1]
				if s0.Service.String() != "a" || s0.Pod.String() != "cart-1" || s0.Node.String() != "n7" || s0.Kind != ingest.SpanClient || s0.ParentID != 0 {
					t.Errorf("span 0 = %+v", s0)
				}
				if s1.Service.String() != "b" || !s1.Pod.IsEmpty() || s1.ParentID != 1 || s1.Duration != 46460625*time.Nanosecond ||
					s1.Start != ingest.Time(1711138246978000000) || s1.TraceID != (ingest.TraceID{High: 0xc620759e5d60fafb, Low: 0x8ee0922b30e06bc6}) {
					t.Errorf("span 1 = %+v", s1)
				}
			}},
		{"api_v3 result stream", `{"result":` + otlpDoc("a", "0000000000000001", "", "") + "}\n" + `{"result":` + otlpDoc("a", "0000000000000002", "", "") + "}",
			func(t *testing.T, b *ingest.Bundle) {
				if len(b.Spans) != 2 || b.Spans[1].SpanID != 2 {
					t.Errorf("spans = %+v", b.Spans)
				}
			}},
		{"status, peer, gpu and warnings", otlpDoc("a", "0000000000000001", podRes, `,"status":{"code":2},"attributes":[`+
			`{"key":"peer.service","value":{"stringValue":"redis"}},{"key":"gpu.uuid","value":{"stringValue":"GPU-9"}},`+
			`{"key":"k8s.pod.name","value":{"stringValue":"span-pod"}},`+
			`{"key":"@jaeger@warnings","value":{"arrayValue":{"values":[{"stringValue":"w1"},{"stringValue":"w2"}]}}}]`),
			func(t *testing.T, b *ingest.Bundle) {
				s := b.Spans[0]
				if !s.Error || s.Peer.String() != "redis" || s.GPU.String() != "GPU-9" || s.Pod.String() != "span-pod" || s.Node.String() != "n7" {
					t.Errorf("span = %+v", s)
				}
				if sum := tracetest.Summarize(b); sum.SourceWarnings != 2 || !strings.Contains(b.Warnings[0].Message, `first: "w1"`) {
					t.Errorf("warnings = %v", b.Warnings)
				}
			}},
		{"server.address as peer", otlpDoc("a", "0000000000000001", "", `,"status":{"code":1},"attributes":[{"key":"server.address","value":{"stringValue":"db:5432"}}]`),
			func(t *testing.T, b *ingest.Bundle) {
				if s := b.Spans[0]; s.Error || s.Peer.String() != "db:5432" {
					t.Errorf("span = %+v", s)
				}
			}},
		{"api_v3 error", `{"error":{"httpCode":404,"message":"trace not found"}}`,
			func(t *testing.T, b *ingest.Bundle) {
				if len(b.Spans) != 0 || len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0].Message, "http 404: trace not found") {
					t.Errorf("spans %d, warnings %v", len(b.Spans), b.Warnings)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := decodeOTLP("inline.json", strings.NewReader(tc.in), ingest.Limits{})
			if err != nil {
				t.Fatalf("decodeOTLP: %v", err)
			}
			tc.check(t, b)
		})
	}
}

// TestOTLPLimit stops at MaxSpans with an ErrLimit warning.
func TestOTLPLimit(t *testing.T) {
	in := strings.Repeat(otlpDoc("a", "0000000000000001", "", "")+"\n", 5)
	b, err := decodeOTLP("lim.json", strings.NewReader(in), ingest.Limits{MaxSpans: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s := tracetest.Summarize(b); len(b.Spans) != 3 || s.LimitWarns != 1 {
		t.Errorf("%d spans, %d limit warnings; want 3, 1", len(b.Spans), s.LimitWarns)
	}
}

// TestOTLPMalformed checks positioned *InputError values.
func TestOTLPMalformed(t *testing.T) {
	doc := otlpDoc("a", "0000000000000001", "", "")
	tests := []struct {
		name       string
		in         string
		wantOffset int64
		wantLine   int
		wantMsg    string
	}{
		{"empty", "", 0, 1, "empty input"},
		{"truncated document", "\n" + doc[:100], 101, 2, "truncated"},
		{"binary garbage", "\x00\x01\x02", 1, 1, "invalid character"},
		{"not an object", "[1]", 0, 1, "expected a JSON object"},
		{"resourceSpans not an array", "\n\n" + `{"resourceSpans":5}`, 2, 3, "otlp:"},
		{"bad wrapper", `{"result":[1]}`, 0, 1, "otlp"},
		{"stray close", "}", 0, 1, "invalid character"},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d.json", i))
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := decodeOTLP(path, strings.NewReader(tc.in), ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v (bundle %v), want *InputError", err, b)
			}
			if ie.File != path || ie.Offset != tc.wantOffset || ie.Line != tc.wantLine || !strings.Contains(ie.Error(), tc.wantMsg) {
				t.Errorf("err = %v (offset %d line %d), want offset %d line %d containing %q", err, ie.Offset, ie.Line, tc.wantOffset, tc.wantLine, tc.wantMsg)
			}
		})
	}
}

// TestOTLPTruncatedPartial: JSON Lines whose last line is cut keep the
// complete lines' spans with an ErrPartialInput warning.
func TestOTLPTruncatedPartial(t *testing.T) {
	doc := otlpDoc("a", "0000000000000001", "", "")
	in := doc + "\n" + doc + "\n" + doc[:len(doc)/2]
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadFile(path, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	s := tracetest.Summarize(b)
	if s.Spans != 2 || s.Partial != 1 || len(b.Warnings) != 1 {
		t.Fatalf("spans %d, partial %d, warnings %v", s.Spans, s.Partial, b.Warnings)
	}
	want := fmt.Sprintf("kept 2 spans of 2 complete documents: %s:3:%d: unexpected end of input", path, len(doc)/2+1)
	if !strings.Contains(b.Warnings[0].Message, want) {
		t.Errorf("warning %q lacks %q", b.Warnings[0].Message, want)
	}
}

// FuzzDecodeOTLP: no input may panic; errors are always *InputError.
func FuzzDecodeOTLP(f *testing.F) {
	f.Add([]byte(otlpDoc("a", "0000000000000001", "", `,"status":{"code":2}`)))
	f.Add([]byte(`{"result":` + otlpDoc("a", "0000000000000001", "", "") + "}\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := decodeOTLP("fuzz.json", strings.NewReader(string(in)), ingest.Limits{MaxSpans: 1000})
		if err != nil {
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		if b == nil {
			t.Fatal("nil bundle without error")
		}
	})
}
