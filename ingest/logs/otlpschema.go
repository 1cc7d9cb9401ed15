package logs

import (
	"github.com/pipeline-analyze/pipeline-analyze/ingest"

	"google.golang.org/protobuf/encoding/protowire"
)

// The wire schemas of OTLP's protobuf messages (opentelemetry-proto v1:
// common, resource, trace and logs), which the OTLP protobuf readers sniff
// with (ingest.SniffProto): OTLPTracesSchema for TracesData (and the
// wire-identical ExportTraceServiceRequest), OTLPLogsSchema for LogsData
// (and ExportLogsServiceRequest). A span's first fields are bytes (its IDs)
// and a log record's are fixed64 and varint (its times and severity), so a
// head is one or the other, never both.

const (
	wLen = protowire.BytesType
	wVar = protowire.VarintType
	w64  = protowire.Fixed64Type
	w32  = protowire.Fixed32Type
)

func field(t protowire.Type) ingest.ProtoField { return ingest.ProtoField{Type: t} }

func msg(s *ingest.ProtoSchema) ingest.ProtoField { return ingest.ProtoField{Type: wLen, Msg: s} }

func id(size int) ingest.ProtoField { return ingest.ProtoField{Type: wLen, Size: size} }

// OTLPTracesSchema is TracesData (resource_spans → scope_spans → spans) and
// OTLPLogsSchema is LogsData (resource_logs → scope_logs → log_records).
var OTLPTracesSchema, OTLPLogsSchema = otlpSchemas()

func otlpSchemas() (traces, logs *ingest.ProtoSchema) {
	anyValue := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{
		1: field(wLen), 2: field(wVar), 3: field(wVar), 4: field(w64), 5: field(wLen), 6: field(wLen), 7: field(wLen)}}
	kv := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: field(wLen), 2: msg(anyValue)}}
	resource := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: msg(kv), 2: field(wVar), 3: field(wLen)}}
	scope := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: field(wLen), 2: field(wLen), 3: msg(kv), 4: field(wVar)}}
	event := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: field(w64), 2: field(wLen), 3: msg(kv), 4: field(wVar)}}
	link := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: id(16), 2: id(8), 3: field(wLen), 4: msg(kv), 5: field(wVar), 6: field(w32)}}
	status := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{2: field(wLen), 3: field(wVar)}}
	span := &ingest.ProtoSchema{Leaf: true, NeedAny: []protowire.Number{1, 7}, Fields: map[protowire.Number]ingest.ProtoField{
		1: id(16), 2: id(8), 3: field(wLen), 4: id(8), 5: field(wLen), 6: field(wVar), 7: field(w64), 8: field(w64),
		9: msg(kv), 10: field(wVar), 11: msg(event), 12: field(wVar), 13: msg(link), 14: field(wVar), 15: msg(status), 16: field(w32)}}
	scopeSpans := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: msg(scope), 2: msg(span), 3: field(wLen)}}
	resourceSpans := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: msg(resource), 2: msg(scopeSpans), 3: field(wLen)}}
	traces = &ingest.ProtoSchema{Strict: true, Fields: map[protowire.Number]ingest.ProtoField{1: msg(resourceSpans)}}

	record := &ingest.ProtoSchema{Leaf: true, NeedAny: []protowire.Number{1, 5, 11}, Fields: map[protowire.Number]ingest.ProtoField{
		1: field(w64), 2: field(wVar), 3: field(wLen), 5: msg(anyValue), 6: msg(kv), 7: field(wVar), 8: field(w32),
		9: id(16), 10: id(8), 11: field(w64), 12: field(wLen)}}
	scopeLogs := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: msg(scope), 2: msg(record), 3: field(wLen)}}
	resourceLogs := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: msg(resource), 2: msg(scopeLogs), 3: field(wLen)}}
	logs = &ingest.ProtoSchema{Strict: true, Fields: map[protowire.Number]ingest.ProtoField{1: msg(resourceLogs)}}
	return traces, logs
}
