package jaeger

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"

	jmodel "github.com/jaegertracing/jaeger-idl/model/v1"
	"github.com/jaegertracing/jaeger-idl/proto-gen/api_v2"
	"google.golang.org/protobuf/encoding/protowire"
)

// protoJSONSamples are the real Jaeger JSON samples converted to the span
// model by TestJaegerProtoMatchesJSON.
var protoJSONSamples = []string{
	"samples/jaeger/ui_01.json",
	"samples/jaeger/otlp2jaeger-out.json",
	"samples/jaeger/trace_success.json",
	"samples/jaeger-ui/genaiTestTrace.json",
	"samples/jaeger-ui/testTraceNormal.json",
	"samples/captured/jaeger/api_trace.json",
	"samples/captured/jaeger/api_search_multi.json",
}

// uiTrace and uiSpan are the test's own reading of Jaeger's JSON (what
// the UI and /api/traces write), independent of the reader under test.
type uiTrace struct {
	TraceID   string                `json:"traceID"`
	Spans     []uiSpan              `json:"spans"`
	Processes map[string]*uiProcess `json:"processes"`
	Warnings  []string              `json:"warnings"`
}

type uiSpan struct {
	TraceID, SpanID, OperationName, ProcessID string
	References                                []struct{ RefType, TraceID, SpanID string }
	StartTime, Duration                       json.Number
	Tags                                      []uiTag
	Process                                   *uiProcess
	Warnings                                  []string
	Spans                                     []uiSpan              // a trace object in a bare array
	Processes                                 map[string]*uiProcess // ditto
}

type uiProcess struct {
	ServiceName string
	Tags        []uiTag
}

type uiTag struct {
	Key, Type string
	Value     any
}

// uiTraces reads any of the JSON shapes into traces.
func uiTraces(t *testing.T, data []byte) []uiTrace {
	t.Helper()
	var env struct {
		Data []uiTrace `json:"data"`
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "[") {
		var spans []uiSpan
		if err := json.Unmarshal(data, &spans); err != nil {
			t.Fatal(err)
		}
		var out []uiTrace
		for _, s := range spans {
			if s.Spans != nil {
				out = append(out, uiTrace{TraceID: s.TraceID, Spans: s.Spans, Processes: s.Processes})
				continue
			}
			out = append(out, uiTrace{Spans: []uiSpan{s}})
		}
		return out
	}
	if err := json.Unmarshal(data, &env); err == nil && env.Data != nil {
		return env.Data
	}
	var one uiTrace
	if err := json.Unmarshal(data, &one); err != nil {
		t.Fatal(err)
	}
	return []uiTrace{one}
}

func mustID(t *testing.T, s string) jmodel.TraceID {
	t.Helper()
	id, err := jmodel.TraceIDFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func modelTags(t *testing.T, tags []uiTag) []jmodel.KeyValue {
	t.Helper()
	var out []jmodel.KeyValue
	for _, tg := range tags {
		s := fmt.Sprint(tg.Value)
		switch strings.ToLower(tg.Type) {
		case "bool":
			out = append(out, jmodel.Bool(tg.Key, s == "true"))
		case "int64":
			n, _ := strconv.ParseInt(s, 10, 64)
			if f, ok := tg.Value.(float64); ok {
				n = int64(f)
			}
			out = append(out, jmodel.Int64(tg.Key, n))
		case "float64":
			f, _ := strconv.ParseFloat(s, 64)
			out = append(out, jmodel.Float64(tg.Key, f))
		case "binary":
			b, _ := base64.StdEncoding.DecodeString(s)
			out = append(out, jmodel.Binary(tg.Key, b))
		default:
			out = append(out, jmodel.String(tg.Key, s))
		}
	}
	return out
}

// modelSpans converts the JSON traces to the span model, each span with
// its process embedded (as api_v2's FindTraces sends them), and the
// trace-level warnings on the trace's first span.
func modelSpans(t *testing.T, traces []uiTrace) []jmodel.Span {
	t.Helper()
	var out []jmodel.Span
	for _, tr := range traces {
		for i, s := range tr.Spans {
			tid := s.TraceID
			if tid == "" {
				tid = tr.TraceID
			}
			sid, err := jmodel.SpanIDFromString(s.SpanID)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := s.StartTime.Int64()
			du, _ := s.Duration.Int64()
			ms := jmodel.Span{TraceID: mustID(t, tid), SpanID: sid, OperationName: s.OperationName, ProcessID: s.ProcessID,
				StartTime: time.UnixMicro(st).UTC(), Duration: time.Duration(du) * time.Microsecond, Tags: modelTags(t, s.Tags), Warnings: s.Warnings}
			if i == 0 {
				ms.Warnings = append(ms.Warnings, tr.Warnings...)
			}
			for _, r := range s.References {
				rt := jmodel.ChildOf
				if strings.EqualFold(r.RefType, "FOLLOWS_FROM") {
					rt = jmodel.FollowsFrom
				}
				rid, _ := jmodel.SpanIDFromString(r.SpanID)
				ms.References = append(ms.References, jmodel.SpanRef{TraceID: mustID(t, r.TraceID), SpanID: rid, RefType: rt})
			}
			p := s.Process
			if p == nil {
				p = tr.Processes[s.ProcessID]
			}
			if p != nil {
				ms.Process = &jmodel.Process{ServiceName: p.ServiceName, Tags: modelTags(t, p.Tags)}
			}
			out = append(out, ms)
		}
	}
	return out
}

// chunkFiles writes the spans as api_v2 SpansResponseChunks in each
// framing: the concatenated raw payloads of a FindTraces stream (one chunk
// per trace), uint32-prefixed chunks, varint-delimited chunks and a
// varint-delimited stream of bare spans.
func chunkFiles(t *testing.T, spans []jmodel.Span) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var chunk api_v2.SpansResponseChunk
	flush := func() {
		if len(chunk.Spans) == 0 {
			return
		}
		b, err := chunk.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		out["stream.pb"] = append(out["stream.pb"], b...)
		out["be32.pb"] = append(binary.BigEndian.AppendUint32(out["be32.pb"], uint32(len(b))), b...)
		out["varint.pb"] = append(protowire.AppendVarint(out["varint.pb"], uint64(len(b))), b...)
		chunk.Spans = nil
	}
	for i, s := range spans {
		if i > 0 && s.TraceID != spans[i-1].TraceID {
			flush()
		}
		chunk.Spans = append(chunk.Spans, s)
		b, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		out["spans.pb"] = append(protowire.AppendVarint(out["spans.pb"], uint64(len(b))), b...)
	}
	flush()
	return out
}

// TestJaegerProtoMatchesJSON: the real Jaeger JSON samples, converted to
// the span model and written as api_v2 chunk streams in every framing,
// read back to exactly the JSON's spans and warnings.
func TestJaegerProtoMatchesJSON(t *testing.T) {
	dir := testkit.SharedDir(t)
	tmp := t.TempDir()
	for _, sample := range protoJSONSamples {
		data, err := os.ReadFile(filepath.Join(dir, sample))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ingest.ReadFile(filepath.Join(dir, sample), nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		files := chunkFiles(t, modelSpans(t, uiTraces(t, data)))
		for _, name := range []string{"stream.pb", "be32.pb", "varint.pb", "spans.pb"} {
			t.Run(filepath.Base(sample)+"/"+name, func(t *testing.T) {
				p := filepath.Join(tmp, filepath.Base(sample)+"."+name)
				if err := os.WriteFile(p, files[name], 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := ingest.ReadFile(p, nil, ingest.Limits{})
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				if f := got.Inputs[0].Format; f != ingest.FormatJaegerProto {
					t.Fatalf("sniffed as %v, want %v", f, ingest.FormatJaegerProto)
				}
				if g, w := protoSpanKeys(got), protoSpanKeys(want); !reflect.DeepEqual(g, w) {
					t.Errorf("spans differ from the JSON's:\n got %q\nwant %q", g, w)
				}
				if g, w := len(got.Processes), len(want.Processes); g != w {
					t.Errorf("%d processes, want %d", g, w)
				}
				if g, w := protoWarnKinds(got), protoWarnKinds(want); g != w {
					t.Errorf("warnings %s, want %s", g, w)
				}
			})
		}
	}
}

func protoSpanKeys(b *ingest.Bundle) []string {
	var out []string
	for _, s := range b.Spans {
		s.Source = ingest.Sym{}
		out = append(out, fmt.Sprintf("%+v", s))
	}
	return out
}

func protoWarnKinds(b *ingest.Bundle) string {
	var out []string
	for _, w := range b.Warnings {
		out = append(out, fmt.Sprintf("%v×%d", w.Kind, w.Count))
	}
	return strings.Join(out, ",")
}

// TestJaegerProtoTrace: a model.Trace (spans naming a process_id, the
// process_map after them, trace warnings) reads as its JSON; a file cut
// inside its second chunk keeps the first and says what was lost; a file
// cut inside its first is a positioned error.
func TestJaegerProtoTrace(t *testing.T) {
	dir := testkit.SharedDir(t)
	sample := filepath.Join(dir, "samples/captured/jaeger/api_search_multi.json")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ingest.ReadFile(sample, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, tr := range uiTraces(t, data) {
		var mt jmodel.Trace
		for _, s := range modelSpans(t, []uiTrace{tr}) {
			s.Process = nil
			mt.Spans = append(mt.Spans, &s)
		}
		mt.Warnings = tr.Warnings
		if len(mt.Spans) > 0 {
			mt.Spans[0].Warnings = mt.Spans[0].Warnings[:len(mt.Spans[0].Warnings)-len(tr.Warnings)]
		}
		for id, p := range tr.Processes {
			mt.ProcessMap = append(mt.ProcessMap, jmodel.Trace_ProcessMapping{ProcessID: id, Process: jmodel.Process{ServiceName: p.ServiceName, Tags: modelTags(t, p.Tags)}})
		}
		b, err := mt.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		file = append(file, b...)
	}
	tmp := t.TempDir()
	p := filepath.Join(tmp, "trace.pb")
	os.WriteFile(p, file, 0o644)
	got, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := protoSpanKeys(got), protoSpanKeys(want); got.Inputs[0].Format != ingest.FormatJaegerProto || !reflect.DeepEqual(g, w) {
		t.Errorf("model.Trace: %v\n got %q\nwant %q", got.Inputs[0].Format, g, w)
	}
	if g, w := protoWarnKinds(got), protoWarnKinds(want); g != w {
		t.Errorf("warnings %s, want %s", g, w)
	}

	one := chunkFiles(t, modelSpans(t, uiTraces(t, data)))["be32.pb"]
	be32 := append(append([]byte{}, one...), one...) // the trace twice: two chunks
	first := int(binary.BigEndian.Uint32(be32)) + 4
	cut := filepath.Join(tmp, "cut.pb")
	os.WriteFile(cut, be32[:len(be32)-3], 0o644)
	got, err = ingest.ReadFile(cut, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("cut file: %v", err)
	}
	if len(got.Spans) != len(want.Spans) || !strings.Contains(protoWarnText(got), "cut short") {
		t.Errorf("cut file: %d of %d spans, warnings %s", len(got.Spans), len(want.Spans), protoWarnText(got))
	}
	os.WriteFile(cut, be32[:first-5], 0o644)
	if _, err := ingest.ReadFile(cut, nil, ingest.Limits{}); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("cut inside the first chunk: %v, want a positioned error", err)
	}
}

func protoWarnText(b *ingest.Bundle) string {
	var out []string
	for _, w := range b.Warnings {
		out = append(out, w.Message)
	}
	return strings.Join(out, "; ")
}
