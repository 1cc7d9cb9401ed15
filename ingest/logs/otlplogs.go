package logs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// OTLP/JSON logs: one LogsData document {"resourceLogs":[...]} or a stream
// of them (the Collector's file exporter writes one per line), each handed
// to pdata's plog.JSONUnmarshaler (hex trace and span IDs, string integers).
// A resource is a stream (service.name, k8s.pod.name, k8s.namespace.name,
// k8s.node.name or host.name, k8s.container.name; an empty service.name
// counts as none). A record's time is timeUnixNano, else
// observedTimeUnixNano, read by magnitude (real Collector output holds
// seconds there); its severity is severityNumber, else severityText, else
// what the body says; a body that is not a string is rendered as JSON.

// decodeOTLPLogs reads OTLP JSON logs into log records.
func decodeOTLPLogs(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	b := &ingest.Bundle{}
	s := NewLogSink(name, lim, b)
	var um plog.JSONUnmarshaler
	bound := &docBound{r: r, max: lim.MaxDocumentBytes, what: "log document"}
	dec := json.NewDecoder(bound)
	docs := 0
	var err error
	for n := 0; !s.full(); n++ {
		if !dec.More() {
			off := dec.InputOffset()
			_, terr := dec.Token()
			switch {
			case errors.Is(terr, io.EOF) && n == 0:
				err = ingest.ErrorAt(name, off, errors.New("empty input"))
			case errors.Is(terr, io.EOF):
			case terr != nil:
				err = ingest.JSONError(name, terr, dec)
			default:
				err = ingest.ErrorAt(name, off, errors.New("otlp logs: unexpected closing delimiter at top level"))
			}
			break
		}
		start := dec.InputOffset()
		bound.start = start
		var raw json.RawMessage
		if derr := dec.Decode(&raw); derr != nil {
			if errors.Is(derr, ingest.ErrLimit) {
				err = ingest.ErrorAt(name, start, fmt.Errorf("otlp logs: document %d: %w", n+1, derr))
			} else {
				err = ingest.JSONErrorAt(name, derr, dec, start)
			}
			break
		}
		if len(raw) == 0 || raw[0] != '{' {
			err = ingest.ErrorAt(name, start, fmt.Errorf("otlp logs: expected a JSON object, found %s", ingest.TruncateUTF8(string(raw), 20)))
			break
		}
		if FirstKey(raw) == "resourceSpans" {
			s.spanDocs++
			continue
		}
		ld, uerr := um.UnmarshalLogs(raw)
		if uerr != nil {
			err = ingest.ErrorAt(name, start, fmt.Errorf("otlp logs: %w", uerr))
			break
		}
		s.OTLPLogs(ld, n+1)
		docs++
	}
	if err != nil {
		if len(b.Logs) == 0 {
			return nil, err
		}
		b.Warn(ingest.ErrPartialInput, name, 1, "kept %d log records of %d complete documents: %v", len(b.Logs), docs, err)
	}
	s.Finish()
	return b, nil
}

// OTLPLogs feeds one document's records; doc is its 1-based number (its
// line in a Collector JSON Lines file).
func (s *LogSink) OTLPLogs(ld plog.Logs, doc int) {
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len() && !s.full(); i++ {
		rl := rls.At(i)
		attrs := rl.Resource().Attributes()
		get := func(k string) string {
			if v, ok := attrs.Get(k); ok {
				return v.AsString()
			}
			return ""
		}
		st := s.stream(streamFromLabels(get))
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			recs := sls.At(j).LogRecords()
			for k := 0; k < recs.Len() && !s.full(); k++ {
				s.otlpRecord(st, recs.At(k), doc)
			}
		}
		s.flush(st)
	}
}

// otlpRecord feeds one record.
func (s *LogSink) otlpRecord(st int32, lr plog.LogRecord, doc int) {
	t := s.nanosByMagnitude(uint64(lr.Timestamp()))
	if t == 0 {
		t = s.nanosByMagnitude(uint64(lr.ObservedTimestamp()))
	}
	if t == 0 {
		s.malformed(0, -1, "document %d: a log record without a time", doc)
		return
	}
	f := fields{sev: ingest.SeverityFromNumber(int(lr.SeverityNumber()))}
	if f.sev == ingest.SeverityUnknown {
		f.sev, _ = ingest.ParseSeverity(lr.SeverityText())
	}
	if tid := lr.TraceID(); !tid.IsEmpty() {
		f.trace = TraceIDFromBytes(tid)
	}
	if sid := lr.SpanID(); !sid.IsEmpty() {
		f.span = SpanIDFromBytes(sid)
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
	s.line(st, t, 0, msg, f)
}

// decodeOTLPLogsFast is decodeOTLPLogs' fast path: documents are delimited
// by brace matching (fastjson.Scanner.RawObject) and checked with json.Valid
// instead of being decoded into a RawMessage (two scans and a copy), then
// handed to the same unmarshaler and sink. Anything
// unusual — a document pdata rejects, bytes between documents that are not
// white space, a read error — declines with ErrSlowPath, and ReadFile
// re-reads the file with decodeOTLPLogs, which owns the positioned errors.
func decodeOTLPLogsFast(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	b := &ingest.Bundle{}
	s := NewLogSink(name, lim, b)
	// A document over MaxDocumentBytes is declined (RawObject bounds what
	// it buffers by MaxTok): the general reader words the error.
	sc := &fastjson.Scanner{R: r, Keep: -1, MaxDepth: lim.MaxDepth, MaxTok: lim.MaxDocumentBytes}
	var um plog.JSONUnmarshaler
	for n := 1; !s.full(); n++ {
		switch sc.SkipWS() {
		case 0:
			if n == 1 || sc.Buf == nil || !sc.AtEnd() {
				return nil, ingest.ErrSlowPath // empty input or a read error
			}
			s.Finish()
			return b, nil
		case '{':
		default:
			return nil, ingest.ErrSlowPath
		}
		raw, ok := sc.RawObject()
		if !ok || int64(len(raw)) > lim.MaxDocumentBytes || !json.Valid(raw) { // what encoding/json accepts, as the general reader
			return nil, ingest.ErrSlowPath
		}
		if FirstKey(raw) == "resourceSpans" {
			return nil, ingest.ErrSlowPath // the general reader words the warning
		}
		ld, err := um.UnmarshalLogs(raw)
		if err != nil {
			return nil, ingest.ErrSlowPath
		}
		s.OTLPLogs(ld, n)
		sc.Recycle() // pdata copied what it keeps
	}
	return nil, ingest.ErrSlowPath // the record limit: the general reader words the warning
}

// docBound fails a read once the document that starts at byte start has
// taken more than max bytes: encoding/json buffers a document whole before
// pdata decodes it, so one document costs several times its size.
type docBound struct {
	r             io.Reader
	n, start, max int64
	what          string // "log document", "Loki stream"
}

func (d *docBound) Read(p []byte) (int, error) {
	room := d.start + d.max + 1 - d.n
	if room <= 0 {
		return 0, fmt.Errorf("%w: a %s larger than %d bytes (--max-document-size)", ingest.ErrLimit, d.what, d.max)
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := d.r.Read(p)
	d.n += int64(n)
	return n, err
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatOTLPLogs, Decode: decodeOTLPLogs, Fast: decodeOTLPLogsFast,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityOTLPLogs, Match: func(h *ingest.Head) bool { return h.JSON() && h.Has("resourceLogs") && !h.Has("resourceSpans") }}}})
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
