package otlp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

// protoSamples are the real OTLP JSON trace samples (a TracesData document
// and Jaeger api_v3 responses) that TestOTLPProtoSamples converts.
var protoSamples = []string{
	"samples/jaeger/otlp2jaeger-in.json",
	"samples/captured/jaeger/v3_find.json",
	"samples/captured/jaeger/v3_trace.json",
}

// tracesOf unmarshals an OTLP JSON sample (unwrapping api_v3's "result")
// with pdata, as a test-side converter independent of the reader.
func tracesOf(t *testing.T, data []byte) ptrace.Traces {
	t.Helper()
	var w struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &w) == nil && len(w.Result) > 0 {
		data = w.Result
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
	if err != nil {
		t.Fatal(err)
	}
	return td
}

// framings writes td as the three protobuf framings: one message
// (.binpb), the Collector file exporter's uint32-prefixed messages (one per
// ResourceSpans) and varint-delimited messages.
func framings(t *testing.T, td ptrace.Traces) map[string][]byte {
	t.Helper()
	var m ptrace.ProtoMarshaler
	plain, err := m.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	var be32, varint []byte
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		one := ptrace.NewTraces()
		rss.At(i).CopyTo(one.ResourceSpans().AppendEmpty())
		b, err := m.MarshalTraces(one)
		if err != nil {
			t.Fatal(err)
		}
		be32 = binary.BigEndian.AppendUint32(be32, uint32(len(b)))
		be32 = append(be32, b...)
		varint = protowire.AppendVarint(varint, uint64(len(b)))
		varint = append(varint, b...)
	}
	return map[string][]byte{"plain.binpb": plain, "be32.pb": be32, "varint.pb": varint}
}

// spanKeys is every span with every field but its source file.
func spanKeys(b *ingest.Bundle) []string {
	var out []string
	for _, s := range b.Spans {
		s.Source = ingest.Sym{}
		out = append(out, fmt.Sprintf("%+v", s))
	}
	return out
}

// TestOTLPProtoSamples: the real samples converted to protobuf by pdata (in
// each framing) read back to the same spans and warnings as their JSON.
func TestOTLPProtoSamples(t *testing.T) {
	dir := testkit.SharedDir(t)
	tmp := t.TempDir()
	for _, sample := range protoSamples {
		data, err := os.ReadFile(filepath.Join(dir, sample))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ingest.ReadFile(filepath.Join(dir, sample), nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range framings(t, tracesOf(t, data)) {
			t.Run(filepath.Base(sample)+"/"+name, func(t *testing.T) {
				p := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(sample), ".json")+"."+name)
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := ingest.ReadFile(p, nil, ingest.Limits{})
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				if f := got.Inputs[0].Format; f != ingest.FormatOTLPProto {
					t.Fatalf("sniffed as %v, want %v", f, ingest.FormatOTLPProto)
				}
				if g, w := spanKeys(got), spanKeys(want); !reflect.DeepEqual(g, w) {
					t.Errorf("spans differ from the JSON's:\n got %q\nwant %q", g, w)
				}
				if g, w := warnKinds(got), warnKinds(want); g != w {
					t.Errorf("warnings %q, want %q (as the JSON)", g, w)
				}
			})
		}
	}
}

func warnKinds(b *ingest.Bundle) string {
	var out []string
	for _, w := range b.Warnings {
		out = append(out, fmt.Sprintf("%v×%d", w.Kind, w.Count))
	}
	return strings.Join(out, ",")
}

// TestOTLPProtoBroken: a cut-short file keeps its complete messages and
// says how much was lost; garbage after a recognised head is a positioned
// error; a JSON file is never taken for protobuf.
func TestOTLPProtoBroken(t *testing.T) {
	dir := testkit.SharedDir(t)
	data, err := os.ReadFile(filepath.Join(dir, protoSamples[1]))
	if err != nil {
		t.Fatal(err)
	}
	td := tracesOf(t, data)
	two := ptrace.NewTraces()
	td.ResourceSpans().CopyTo(two.ResourceSpans())
	td.ResourceSpans().At(0).CopyTo(two.ResourceSpans().AppendEmpty())
	be32 := framings(t, two)["be32.pb"]
	tmp := t.TempDir()

	cut := filepath.Join(tmp, "cut.pb")
	os.WriteFile(cut, be32[:len(be32)-7], 0o644)
	b, err := ingest.ReadFile(cut, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("cut file: %v", err)
	}
	if len(b.Spans) == 0 || !hasWarning(b, ingest.ErrPartialInput, "cut short") {
		t.Errorf("cut file: %d spans, warnings %v; want the first message's spans and a partial-input warning", len(b.Spans), b.Warnings)
	}

	bad := filepath.Join(tmp, "bad.pb")
	first := int(binary.BigEndian.Uint32(be32)) + 4
	os.WriteFile(bad, append(append([]byte{}, be32[:first]...), 0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 0o644)
	b, err = ingest.ReadFile(bad, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("bad tail: %v", err)
	}
	if !hasWarning(b, ingest.ErrPartialInput, fmt.Sprintf("offset %d", first)) && !hasWarning(b, ingest.ErrPartialInput, "message 2") {
		t.Errorf("bad tail: warnings %v, want the second message's position", b.Warnings)
	}

	var ie *ingest.InputError
	only := filepath.Join(tmp, "only-bad.pb")
	os.WriteFile(only, be32[:12], 0o644)
	if _, err := ingest.ReadFile(only, nil, ingest.Limits{}); err == nil || !errors.As(err, &ie) {
		t.Errorf("a file cut inside its first message: %v, want a positioned error", err)
	}

	if f := ingest.Sniff(data); f == ingest.FormatOTLPProto {
		t.Errorf("JSON sniffed as %v", f)
	}
	if f := ingest.Sniff(bytes.Repeat([]byte{0x0a, 0x02, 0x0a, 0x00}, 10)); f == ingest.FormatOTLPProto {
		t.Errorf("spanless protobuf sniffed as %v", f)
	}
}

func hasWarning(b *ingest.Bundle, kind error, sub string) bool {
	for _, w := range b.Warnings {
		if errors.Is(w.Kind, kind) && strings.Contains(w.Message, sub) {
			return true
		}
	}
	return false
}
