package otlplogs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"

	"go.opentelemetry.io/collector/pdata/plog"
	"google.golang.org/protobuf/encoding/protowire"
)

// recordKeys is every log record without its source file, and the
// templates mined.
func recordKeys(b *ingest.Bundle) []string {
	var out []string
	for _, r := range b.Logs {
		out = append(out, fmt.Sprintf("%+v", r))
	}
	for _, tp := range b.LogTemplates {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d", tp.Group, tp.Pattern, tp.Example, tp.Count))
	}
	return out
}

// logsProtoFiles converts a JSON sample (one LogsData per line or one
// document) with pdata into the three framings: one message, the Collector
// file exporter's uint32-prefixed messages and varint-delimited messages.
func logsProtoFiles(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	var m plog.ProtoMarshaler
	all := plog.NewLogs()
	var be32, varint []byte
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(raw)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.MarshalLogs(ld)
		if err != nil {
			t.Fatal(err)
		}
		be32 = append(binary.BigEndian.AppendUint32(be32, uint32(len(b))), b...)
		varint = append(protowire.AppendVarint(varint, uint64(len(b))), b...)
		ld.ResourceLogs().MoveAndAppendTo(all.ResourceLogs())
	}
	plain, err := m.MarshalLogs(all)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"plain.binpb": plain, "be32.pb": be32, "varint.pb": varint}
}

// TestOTLPLogsProtoSamples: the real OTLP/JSON log samples converted to
// protobuf by pdata read back to the same records as their JSON, in every
// framing; the protobuf file VictoriaLogs was fed (otlp-logs.pb) reads to
// the records of its JSON twin.
func TestOTLPLogsProtoSamples(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "samples", "logs")
	tmp := t.TempDir()
	for _, f := range []string{"otlp/logs.json", "otlp/events.json", "otlp/collector-sink.log", "captured/victorialogs-v1.52.2/otlp-logs.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ingest.ReadFile(filepath.Join(dir, f), nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		files := logsProtoFiles(t, data)
		for _, name := range []string{"plain.binpb", "be32.pb", "varint.pb"} {
			t.Run(filepath.Base(f)+"/"+name, func(t *testing.T) {
				p := filepath.Join(tmp, filepath.Base(f)+"."+name)
				if err := os.WriteFile(p, files[name], 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := ingest.ReadFile(p, nil, ingest.Limits{})
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				if fm := got.Inputs[0].Format; fm != ingest.FormatOTLPLogsProto {
					t.Fatalf("sniffed as %v, want %v", fm, ingest.FormatOTLPLogsProto)
				}
				if len(got.Logs) == 0 || !reflect.DeepEqual(recordKeys(got), recordKeys(want)) {
					t.Errorf("records differ from the JSON's: got %d, want %d\n got %q\nwant %q", len(got.Logs), len(want.Logs), recordKeys(got), recordKeys(want))
				}
			})
		}
	}
	t.Run("otlp-logs.pb", func(t *testing.T) {
		got, err := ingest.ReadFile(filepath.Join(dir, "captured/victorialogs-v1.52.2/otlp-logs.pb"), nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ingest.ReadFile(filepath.Join(dir, "captured/victorialogs-v1.52.2/otlp-logs.json"), nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Inputs[0].Format != ingest.FormatOTLPLogsProto || len(got.Logs) != 50 || !reflect.DeepEqual(recordKeys(got), recordKeys(want)) {
			t.Errorf("otlp-logs.pb: %v, %d records; want %v and the 50 records of otlp-logs.json", got.Inputs[0].Format, len(got.Logs), ingest.FormatOTLPLogsProto)
		}
	})
}
