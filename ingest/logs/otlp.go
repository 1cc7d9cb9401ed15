package logs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// OTLP log records, whether an OTLP logs file (package
// ingest/logs/otlplogs) or logs documents among the span documents of an
// OTLP trace file (package ingest/otlp) holds them: a resource is a stream
// (service.name, k8s.pod.name, k8s.namespace.name, k8s.node.name or
// host.name, k8s.container.name; an empty service.name counts as none). A
// record's time is timeUnixNano, else observedTimeUnixNano, read by
// magnitude (real Collector output holds seconds there); its severity is
// severityNumber, else severityText, else what the body says; a body that
// is not a string is rendered as JSON.

// OTLPLogs feeds one document's records; doc is its 1-based number (its
// line in a Collector JSON Lines file).
func (s *LogSink) OTLPLogs(ld plog.Logs, doc int) {
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len() && !s.Full(); i++ {
		rl := rls.At(i)
		attrs := rl.Resource().Attributes()
		get := func(k string) string {
			if v, ok := attrs.Get(k); ok {
				return v.AsString()
			}
			return ""
		}
		st := s.Stream(StreamFromLabels(get))
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			recs := sls.At(j).LogRecords()
			for k := 0; k < recs.Len() && !s.Full(); k++ {
				s.otlpRecord(st, recs.At(k), doc)
			}
		}
		s.Flush(st)
	}
}

// otlpRecord feeds one record.
func (s *LogSink) otlpRecord(st int32, lr plog.LogRecord, doc int) {
	t := s.nanosByMagnitude(uint64(lr.Timestamp()))
	if t == 0 {
		t = s.nanosByMagnitude(uint64(lr.ObservedTimestamp()))
	}
	if t == 0 {
		s.Malformed(0, -1, "document %d: a log record without a time", doc)
		return
	}
	f := Fields{Severity: ingest.SeverityFromNumber(int(lr.SeverityNumber()))}
	if f.Severity == ingest.SeverityUnknown {
		f.Severity, _ = ingest.ParseSeverity(lr.SeverityText())
	}
	if tid := lr.TraceID(); !tid.IsEmpty() {
		f.Trace = TraceIDFromBytes(tid)
	}
	if sid := lr.SpanID(); !sid.IsEmpty() {
		f.Span = SpanIDFromBytes(sid)
	}
	body := lr.Body()
	msg := ""
	switch body.Type() {
	case pcommon.ValueTypeStr:
		msg = body.Str()
	case pcommon.ValueTypeEmpty:
		msg = lr.EventName()
	default:
		msg = body.AsString()
	}
	if msg == "" {
		msg = lr.EventName()
	}
	s.Line(st, t, 0, msg, f)
}

// FirstKey returns the first key of the JSON object raw ("" when none).
func FirstKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	k, _ := tok.(string)
	return k
}

// TraceIDFromBytes converts a 16-byte OTLP trace ID.
func TraceIDFromBytes(b pcommon.TraceID) ingest.TraceID {
	return ingest.TraceID{High: binary.BigEndian.Uint64(b[:8]), Low: binary.BigEndian.Uint64(b[8:])}
}

// SpanIDFromBytes converts an 8-byte OTLP span ID.
func SpanIDFromBytes(b pcommon.SpanID) ingest.SpanID {
	return ingest.SpanID(binary.BigEndian.Uint64(b[:]))
}
