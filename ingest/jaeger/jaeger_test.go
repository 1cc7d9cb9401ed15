package jaeger

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/tracetest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// nezhaTraces is the real OnlineBoutique incident trace file used below.
const nezhaTraces = "data/nezha-ob/ob-20220822-035354/traces.json.gz"

// TestJaegerSamples reads every real Jaeger JSON sample through ReadFile.
// Expected counts were computed independently with python3's json module.
func TestJaegerSamples(t *testing.T) {
	dir := testkit.SharedDir(t)
	tests := []struct {
		path string
		want tracetest.Summary
	}{
		{"samples/jaeger/otlp2jaeger-out.json", tracetest.Summary{Spans: 2, Traces: 1, Services: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanServer: 2}}},
		{"samples/jaeger/trace_success.json", tracetest.Summary{Spans: 2, Traces: 1, Services: 2, Errors: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanServer: 1, ingest.SpanClient: 1}}},
		{"samples/jaeger/ui_01.json", tracetest.Summary{Spans: 5, Traces: 1, Services: 2, Errors: 1, Roots: 2, SourceWarnings: 3}},
		{"samples/jaeger-ui/genaiTestTrace.json", tracetest.Summary{Spans: 57, Traces: 1, Services: 10, Errors: 1, Roots: 1,
			Kinds: map[ingest.SpanKind]int{ingest.SpanServer: 30, ingest.SpanClient: 19, ingest.SpanInternal: 8}}},
		{"samples/jaeger-ui/oltp2jaeger-multi-out.json", tracetest.Summary{Spans: 4, Traces: 1, Services: 1, Roots: 1, Kinds: map[ingest.SpanKind]int{ingest.SpanInternal: 4}}},
		{"samples/jaeger-ui/testTraceNormal.json", tracetest.Summary{Spans: 5, Traces: 1, Services: 2, Roots: 1,
			Kinds: map[ingest.SpanKind]int{ingest.SpanUnspecified: 2, ingest.SpanServer: 2, ingest.SpanClient: 1}}},
		{"samples/captured/jaeger/api_search.json", tracetest.Summary{Spans: 1, Traces: 1, Services: 1, SourceWarnings: 1}},
		{"samples/captured/jaeger/api_search_multi.json", tracetest.Summary{Spans: 4, Traces: 1, Services: 1, Roots: 1}},
		{"samples/captured/jaeger/api_trace.json", tracetest.Summary{Spans: 1, Traces: 1, Services: 1, SourceWarnings: 1}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			b, err := ingest.ReadFile(filepath.Join(dir, tc.path), nil, ingest.Limits{})
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			tc.want.Format = ingest.FormatJaegerJSON
			tracetest.Check(t, tracetest.Summarize(b), tc.want)
			for i := range b.Spans {
				if b.Spans[i].Source.String() != filepath.Join(dir, tc.path) {
					t.Fatalf("span %d Source = %q", i, b.Spans[i].Source)
				}
			}
		})
	}
}

// TestJaegerUI01Details checks the fixture's edge cases span by span:
// FOLLOWS_FROM and a reference into another trace next to a same-trace one,
// per-trace process keys and the error tag.
func TestJaegerUI01Details(t *testing.T) {
	dir := testkit.SharedDir(t)
	b, err := ingest.ReadFile(filepath.Join(dir, "samples/jaeger/ui_01.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		span, parent ingest.SpanID
		service, op  string
		err          bool
	}
	want := []row{
		{2, 0, "service-x", "test-general-conversion", false},
		{2, 0, "service-x", "some-operation", true},
		{3, 2, "service-y", "some-operation", false},
		{4, 2, "service-y", "reference-test", false}, // CHILD_OF into trace ff skipped, same-trace CHILD_OF wins
		{5, 4, "service-y", "preserveParentID-test", false},
	}
	if len(b.Spans) != len(want) {
		t.Fatalf("%d spans, want %d", len(b.Spans), len(want))
	}
	for i, w := range want {
		s := b.Spans[i]
		got := row{s.SpanID, s.ParentID, s.Service.String(), s.Operation.String(), s.Error}
		if got != w {
			t.Errorf("span %d = %+v, want %+v", i, got, w)
		}
		if s.TraceID != (ingest.TraceID{Low: 1}) || s.Start != ingest.Time(1485467191639875000) {
			t.Errorf("span %d trace/start = %v/%d", i, s.TraceID, s.Start)
		}
	}
	if b.Spans[4].Duration != 4*time.Microsecond {
		t.Errorf("duration = %v, want 4µs", b.Spans[4].Duration)
	}
}

// TestJaegerNezha reads a real OnlineBoutique incident (gzipped /api/traces
// envelope, 1355 traces) and checks services, pods and nodes from the
// process tags.
func TestJaegerNezha(t *testing.T) {
	dir := testkit.SharedDir(t)
	b, err := ingest.ReadFile(filepath.Join(dir, nezhaTraces), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tracetest.Check(t, tracetest.Summarize(b), tracetest.Summary{Format: ingest.FormatJaegerJSON, Spans: 62065, Traces: 1355, Services: 10, Roots: 1355,
		Kinds: map[ingest.SpanKind]int{ingest.SpanUnspecified: 62065}})
	perPod := map[string]int{}
	nodes := map[string]bool{}
	for i := range b.Spans {
		s := &b.Spans[i]
		perPod[s.Service.String()+" "+s.Pod.String()]++
		nodes[s.Node.String()] = true
	}
	want := map[string]int{
		"adservice adservice-5f6585d649-fnmft":                         3508,
		"cartservice cartservice-579f59597d-wc2lz":                     1305,
		"checkoutservice checkoutservice-578fcf4766-9csqn":             1034,
		"currencyservice currencyservice-cf787dd48-vpjrd":              13692,
		"emailservice emailservice-55fdc5b988-f6xth":                   49,
		"frontend frontend-579b9bff58-t2dbm":                           14871,
		"paymentservice paymentservice-9cdb6588f-554sm":                49,
		"productcatalogservice productcatalogservice-668d5f85fb-wckp8": 24278,
		"recommendationservice recommendationservice-6cfdd55578-gfj6q": 1906,
		"shippingservice shippingservice-7b598fc7d-lmggd":              1373,
	}
	if fmt.Sprint(perPod) != fmt.Sprint(want) {
		t.Errorf("spans per service+pod = %v\nwant %v", perPod, want)
	}
	if len(nodes) != 8 || !nodes["33.33.33.167"] || nodes[""] {
		t.Errorf("nodes = %v, want the 8 k8s.node.name values", nodes)
	}
	s := b.Spans[0]
	if s.SpanID != 0x69f0ab5eab6ab97b || s.Start != ingest.FromUnixMicro(1661140339209875) || s.Duration != 362453*time.Microsecond ||
		s.Service.String() != "frontend" || s.Operation.String() != "hipstershop.Frontend/Recv." {
		t.Errorf("first span = %+v", s)
	}
}

// TestJaegerShapes covers the field-level rules on small inline inputs.
func TestJaegerShapes(t *testing.T) {
	proc := `"processes":{"p1":{"serviceName":"svc","tags":[{"key":"k8s.pod.name","type":"string","value":"svc-abc"},{"key":"k8s.node.name","type":"string","value":"n1"}]}}`
	span := func(fields string) string {
		return `{"traceID":"00000000000000ab","spanID":"0000000000000002","operationName":"op","startTime":1000,"duration":5,"processID":"p1"` + fields + `}`
	}
	trace := func(spans ...string) string {
		return `{"traceID":"00000000000000ab","spans":[` + strings.Join(spans, ",") + `],` + proc + `}`
	}
	tests := []struct {
		name  string
		in    string
		lim   ingest.Limits
		check func(t *testing.T, b *ingest.Bundle)
	}{
		{"16-char trace ID", trace(span("")), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if b.Spans[0].TraceID != (ingest.TraceID{Low: 0xab}) || b.Spans[0].TraceID.String() != "00000000000000ab" {
				t.Errorf("trace ID = %v", b.Spans[0].TraceID)
			}
		}},
		{"32-char trace ID", `{"data":[{"traceID":"x","spans":[{"traceID":"c620759e5d60fafb8ee0922b30e06bc6","spanID":"1","processID":"p1"}],` + proc + `}]}`, ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			want := ingest.TraceID{High: 0xc620759e5d60fafb, Low: 0x8ee0922b30e06bc6}
			if b.Spans[0].TraceID != want || b.Spans[0].TraceID.String() != "c620759e5d60fafb8ee0922b30e06bc6" {
				t.Errorf("trace ID = %v, want %v", b.Spans[0].TraceID, want)
			}
		}},
		{"bool tag as string", trace(span(`,"tags":[{"key":"error","type":"bool","value":"true"}]`), span(`,"tags":[{"key":"error","type":"bool","value":"false"}]`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if !b.Spans[0].Error || b.Spans[1].Error {
				t.Errorf("errors = %v %v, want true false", b.Spans[0].Error, b.Spans[1].Error)
			}
		}},
		{"int64 as strings", trace(span(`,"tags":[{"key":"http.status_code","type":"int64","value":"503"},{"key":"big","type":"int64","value":"9223372036854775222"}]`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if !b.Spans[0].Error {
				t.Error("http.status_code \"503\" not flagged as an error")
			}
		}},
		{"times as strings", `[{"traceID":"1","spanID":"2","startTime":"1485467191639875","duration":"7","process":{"serviceName":"s"}}]`, ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if b.Spans[0].Start != ingest.FromUnixMicro(1485467191639875) || b.Spans[0].Duration != 7*time.Microsecond {
				t.Errorf("start/duration = %d/%v", b.Spans[0].Start, b.Spans[0].Duration)
			}
		}},
		{"error flags", trace(
			span(`,"tags":[{"key":"otel.status_code","type":"string","value":"ERROR"}]`),
			span(`,"tags":[{"key":"rpc.grpc.status_code","type":"int64","value":14}]`),
			span(`,"tags":[{"key":"rpc.grpc.status_code","type":"int64","value":0}]`),
			span(`,"tags":[{"key":"http.response.status_code","type":"int64","value":404}]`),
			span(`,"tags":[{"key":"http.status_code","type":"float64","value":500.0}]`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			got := []bool{}
			for _, s := range b.Spans {
				got = append(got, s.Error)
			}
			if fmt.Sprint(got) != "[true true false false true]" {
				t.Errorf("errors = %v", got)
			}
		}},
		{"kind, peer and placement", trace(
			span(`,"tags":[{"key":"span.kind","type":"string","value":"client"},{"key":"peer.service","type":"string","value":"db"}]`),
			span(`,"tags":[{"key":"span.kind","type":"string","value":"producer"},{"key":"server.address","type":"string","value":"kafka"},{"key":"pod","type":"string","value":"override"},{"key":"gpu.uuid","type":"string","value":"GPU-1"}]`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			s0, s1 := b.Spans[0], b.Spans[1]
			if s0.Kind != ingest.SpanClient || s0.Peer.String() != "db" || s0.Pod.String() != "svc-abc" || s0.Node.String() != "n1" || s0.Service.String() != "svc" {
				t.Errorf("span 0 = %+v", s0)
			}
			if s1.Kind != ingest.SpanProducer || s1.Peer.String() != "kafka" || s1.Pod.String() != "override" || s1.Node.String() != "n1" || s1.GPU.String() != "GPU-1" {
				t.Errorf("span 1 = %+v", s1)
			}
		}},
		{"hostname is the node only without pod", `[{"traceID":"1","spanID":"2","process":{"serviceName":"a","tags":[{"key":"hostname","type":"string","value":"h1"}]}},` +
			`{"traceID":"1","spanID":"3","process":{"serviceName":"a","tags":[{"key":"hostname","type":"string","value":"h1"},{"key":"pod.name","type":"string","value":"p"}]}}]`, ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if b.Spans[0].Node.String() != "h1" || !b.Spans[1].Node.IsEmpty() || b.Spans[1].Pod.String() != "p" {
				t.Errorf("node/pod = %q/%q and %q/%q", b.Spans[0].Node, b.Spans[0].Pod, b.Spans[1].Node, b.Spans[1].Pod)
			}
		}},
		{"parents", trace(
			span(`,"references":[{"refType":"FOLLOWS_FROM","traceID":"ab","spanID":"7"},{"refType":"CHILD_OF","traceID":"00000000000000ab","spanID":"8"}]`),
			span(`,"references":[{"refType":"FOLLOWS_FROM","traceID":"00000000000000ab","spanID":"9"}]`),
			span(`,"parentSpanID":"a"`),
			span(`,"references":[{"refType":"CHILD_OF","traceID":"00000000000000ff","spanID":"9"}]`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			got := []ingest.SpanID{}
			for _, s := range b.Spans {
				got = append(got, s.ParentID)
			}
			if fmt.Sprint(got) != fmt.Sprint([]ingest.SpanID{8, 9, 10, 0}) {
				t.Errorf("parents = %v", got)
			}
			if s := tracetest.Summarize(b); s.OrphanWarns != 1 {
				t.Errorf("cross-trace warnings = %d, want 1", s.OrphanWarns)
			}
		}},
		{"process keys per trace", `{"data":[` +
			`{"traceID":"1","spans":[{"traceID":"1","spanID":"1","processID":"p1"}],"processes":{"p1":{"serviceName":"first"}}},` +
			`{"traceID":"2","spans":[{"traceID":"2","spanID":"1","processID":"p1"},{"traceID":"2","spanID":"2","processID":"p9"}],"processes":{"p1":{"serviceName":"second"}}}],` +
			`"errors":[{"code":500,"msg":"storage timeout"}]}`, ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if b.Spans[0].Service.String() != "first" || b.Spans[1].Service.String() != "second" || !b.Spans[2].Service.IsEmpty() {
				t.Errorf("services = %q %q %q", b.Spans[0].Service, b.Spans[1].Service, b.Spans[2].Service)
			}
			var msgs []string
			for _, w := range b.Warnings {
				msgs = append(msgs, w.Error())
			}
			if len(msgs) != 2 || !strings.Contains(msgs[0], "code 500: storage timeout") || !strings.Contains(msgs[1], "1 spans name a processID") {
				t.Errorf("warnings = %q", msgs)
			}
		}},
		{"stream of traces and bare array of traces", trace(span("")) + "\n" + `[` + trace(span(""), span("")) + `]` + "\n", ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if len(b.Spans) != 3 || b.Spans[2].Service.String() != "svc" {
				t.Errorf("%d spans, last %+v", len(b.Spans), b.Spans[len(b.Spans)-1])
			}
		}},
		{"span limit", trace(span(""), span(""), span("")), ingest.Limits{MaxSpans: 2}, func(t *testing.T, b *ingest.Bundle) {
			if s := tracetest.Summarize(b); len(b.Spans) != 2 || s.LimitWarns != 1 {
				t.Errorf("%d spans, %d limit warnings; want 2, 1", len(b.Spans), s.LimitWarns)
			}
		}},
		{"long names truncated", trace(span(`,"operationName":"` + strings.Repeat("é", 10) + `"`)), ingest.Limits{MaxStringBytes: 5}, func(t *testing.T, b *ingest.Bundle) {
			if b.Spans[0].Operation.String() != "éé" || b.Spans[0].Service.String() != "svc" {
				t.Errorf("operation = %q", b.Spans[0].Operation)
			}
		}},
		{"wrong-typed span skipped", trace(span(""), span(`,"startTime":"abc"`)), ingest.Limits{}, func(t *testing.T, b *ingest.Bundle) {
			if len(b.Spans) != 1 || len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], ingest.ErrBadValue) || !strings.Contains(b.Warnings[0].Message, `"startTime"`) {
				t.Errorf("%d spans, warnings %v", len(b.Spans), b.Warnings)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := decodeJaeger("inline.json", strings.NewReader(tc.in), tc.lim)
			if err != nil {
				t.Fatalf("decodeJaeger: %v", err)
			}
			if len(b.Spans) == 0 {
				t.Fatal("no spans")
			}
			tc.check(t, b)
		})
	}
}

// TestJaegerEmbeddedParentChain builds the older UI shape with a parent
// chain 2000 spans deep under references[].span (nesting 6000+ levels,
// far past MaxDepth): it must decode without recursing into the chain.
func TestJaegerEmbeddedParentChain(t *testing.T) {
	const depth = 2000
	var sb strings.Builder
	sb.WriteString(`{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"s"}},"spans":[`)
	var open func(i int)
	open = func(i int) {
		fmt.Fprintf(&sb, `{"traceID":"1","spanID":"%x","processID":"p1","process":{"serviceName":"s"},"references":[`, i+1)
		if i+1 < depth {
			fmt.Fprintf(&sb, `{"refType":"CHILD_OF","traceID":"1","spanID":"%x","span":`, i+2)
		}
	}
	for i := 0; i < depth; i++ {
		open(i)
	}
	for i := depth - 1; i >= 0; i-- {
		sb.WriteString(`]}`)
		if i > 0 {
			sb.WriteString(`}`)
		}
	}
	sb.WriteString(`]}]}`)
	b, err := decodeJaeger("deep.json", strings.NewReader(sb.String()), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Spans) != 1 || b.Spans[0].SpanID != 1 || b.Spans[0].ParentID != 2 || b.Spans[0].Service.String() != "s" {
		t.Errorf("spans = %+v", b.Spans)
	}
}

// TestJaegerMalformed checks that bad inputs give a positioned *InputError.
// Offsets follow encoding/json: "after reading Offset bytes".
func TestJaegerMalformed(t *testing.T) {
	badSpan := `{"traceID":"1","spanID":"2","startTime":"abc"}`
	tests := []struct {
		name       string
		in         string
		wantOffset int64
		wantLine   int
		wantMsg    string
	}{
		{"empty", "", 0, 1, "empty input"},
		{"whitespace only", " \n\t\n", 0, 1, "empty input"},
		{"binary garbage", "\x00\x01\xffPK\x03\x04", 1, 1, "invalid character"},
		{"top-level scalar", "\n42", 3, 2, "expected an object or array"},
		{"truncated trace", "{\"traceID\":\"1\",\n\"spans\":[{\"traceID\":\"1\",\"spanID\":\"2\",\"startT", 60, 2, "truncated"},
		{"syntax error in span", `{"data":[{"spans":[{"spanID":"1" "x":1}]}]}`, int64(strings.Index(`{"data":[{"spans":[{"spanID":"1" "x":1}]}]}`, `"x"`)) + 1, 1, "after object key:value pair"},
		{"startTime abc", "{\"data\":[{\"traceID\":\"1\",\n \"spans\":[" + badSpan + "]}]}", 35, 2, `for field "startTime"`},
		{"spans not an array", "{\"traceID\":\"1\",\n\"spans\":5}", 25, 2, `"spans" must be an array`},
		{"data not an array", `{"data":{"x":1}}`, 9, 1, `"data" must be an array`},
		{"bad trace ID", `[{"traceID":"xyz","spanID":"1"}]`, 1, 1, "bad trace ID"},
		{"bare array of numbers", `[1,2]`, 2, 1, "expected a JSON object, found JSON number"},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d.json", i))
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := decodeJaeger(path, strings.NewReader(tc.in), ingest.Limits{})
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

// TestJaegerTruncatedPartial cuts a real envelope inside its third trace:
// the two complete traces are kept with an ErrPartialInput warning.
func TestJaegerTruncatedPartial(t *testing.T) {
	dir := testkit.SharedDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "samples/captured/jaeger/api_search_multi.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Build an envelope of the sample's trace three times, cut after the
	// third trace's first span.
	body := bytes.TrimSuffix(bytes.TrimPrefix(bytes.TrimSpace(raw), []byte(`{"data":[`)), []byte(`],"total":0,"limit":0,"offset":0,"errors":null}`))
	full := `{"data":[` + string(body) + "," + string(body) + "," + string(body) + `]}`
	third := strings.LastIndex(full, `"spans":[`)
	cut := third + strings.Index(full[third:], `},{"traceID"`) + 2 // just after the first span's ','
	if !strings.HasSuffix(full[:cut], `"warnings":null},`) {
		t.Fatalf("cut at the wrong place: %q", full[cut-30:cut])
	}
	tmp := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(tmp, []byte(full[:cut]), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadFile(tmp, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	s := tracetest.Summarize(b)
	// 8 spans of two complete traces (the same trace ID twice); the third
	// trace's one complete span is reported as dropped.
	if s.Spans != 8 || s.Partial != 1 || len(b.Warnings) != 1 {
		t.Fatalf("spans %d, partial %d, warnings %v", s.Spans, s.Partial, b.Warnings)
	}
	msg := b.Warnings[0].Message
	for _, want := range []string{"kept 8 spans of 2 complete traces", "dropped 1 spans of an unfinished trace:", fmt.Sprintf("cut.json:1:%d: unexpected end of input", cut+1)} {
		if !strings.Contains(msg, want) {
			t.Errorf("warning %q lacks %q", msg, want)
		}
	}
}

// TestJaegerDeterministic: two reads give identical spans in file order.
func TestJaegerDeterministic(t *testing.T) {
	dir := testkit.SharedDir(t)
	path := filepath.Join(dir, "samples/jaeger-ui/genaiTestTrace.json")
	a, err := ingest.ReadFile(path, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadFile(path, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.Spans) != fmt.Sprint(b.Spans) || fmt.Sprint(a.Warnings) != fmt.Sprint(b.Warnings) {
		t.Error("two reads differ")
	}
	ids := make([]int, len(a.Spans))
	for i := range a.Spans {
		ids[i] = int(a.Spans[i].SpanID)
	}
	if !sort.IntsAreSorted(ids) || ids[0] != 1 || ids[56] != 57 {
		t.Errorf("span IDs not in file order 1..57: %v", ids)
	}
}

// readNezha returns the decompressed nezha trace file.
func readNezha(tb testing.TB) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join(testkit.SharedDir(tb), nezhaTraces))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// BenchmarkDecodeJaeger decodes the real 62065-span nezha file from memory.
func BenchmarkDecodeJaeger(b *testing.B) {
	raw := readNezha(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	spans := 0
	for b.Loop() {
		bu, err := decodeJaeger("traces.json", bytes.NewReader(raw), ingest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		spans += len(bu.Spans)
	}
	b.ReportMetric(float64(spans)/b.Elapsed().Seconds(), "spans/s")
}

// BenchmarkDecodeJaegerFast is BenchmarkDecodeJaeger through the fast path.
func BenchmarkDecodeJaegerFast(b *testing.B) {
	raw := readNezha(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeJaegerFast("traces.json", bytes.NewReader(raw), ingest.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodeJaeger: no input may panic; errors are always *InputError.
func FuzzDecodeJaeger(f *testing.F) {
	f.Add([]byte(`{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"2","startTime":"3","tags":[{"key":"error","type":"bool","value":"true"}],"processID":"p1"}],"processes":{"p1":{"serviceName":"s"}}}]}`))
	f.Add([]byte(`[{"traceID":"1","spanID":"2","references":[{"refType":"CHILD_OF","traceID":"1","spanID":"3","span":{"spanID":"3"}}],"process":{"serviceName":"s"}}]`))
	f.Add([]byte(`{"traceID":"1","spans":[{"spanID":5}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := decodeJaeger("fuzz.json", bytes.NewReader(in), ingest.Limits{MaxSpans: 1000})
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

// BenchmarkDecodeJaegerFastBig decodes the Jaeger file named by
// PA_JAEGER_BENCH (e.g. /tmp/bench/1M-3000/traces-00.json, a quarter of
// the million-span bundle) from memory through the fast path; skipped
// when unset.
func BenchmarkDecodeJaegerFastBig(b *testing.B) {
	path := os.Getenv("PA_JAEGER_BENCH")
	if path == "" {
		b.Skip("PA_JAEGER_BENCH not set")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	spans := 0
	for b.Loop() {
		bu, err := decodeJaegerFast("traces.json", bytes.NewReader(raw), ingest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		spans += len(bu.Spans)
	}
	b.ReportMetric(float64(spans)/b.Elapsed().Seconds(), "spans/s")
}

// TestReferenceFieldsNotInherited: a reference object without a spanID
// names no parent, even after a span whose reference at the same index
// had one (encoding/json decodes into the reused element and keeps the
// fields an object lacks).
func TestReferenceFieldsNotInherited(t *testing.T) {
	in := `{"data":[{"traceID":"1","spans":[` +
		`{"traceID":"1","spanID":"2","references":[{"refType":"CHILD_OF","spanID":"3"}],"startTime":5,"duration":1,"processID":"p"},` +
		`{"traceID":"1","spanID":"3","references":[{}],"startTime":4,"duration":2,"processID":"p"}],` +
		`"processes":{"p":{"serviceName":"s"}}}]}`
	b, err := decodeJaeger("f.json", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Spans {
		if s.SpanID == 3 && s.ParentID != 0 {
			t.Fatalf("span 3 has parent %v from the previous span's reference", s.ParentID)
		}
	}
}
