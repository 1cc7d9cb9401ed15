package otlplogs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"

	"go.opentelemetry.io/collector/pdata/plog"
)

// OTLP/JSON logs: one LogsData document {"resourceLogs":[...]} or a stream
// of them (the Collector's file exporter writes one per line), each handed
// to pdata's plog.JSONUnmarshaler (hex trace and span IDs, string integers)
// and fed to the sink's OTLP records (LogSink.OTLPLogs: streams, times,
// severities and bodies are read there, as for logs documents among spans).

// spanDocs counts the OTLP span documents among logs documents (skipped).
var spanDocs = &logs.Condition{Err: ingest.ErrPartialInput, Text: func(n, _ int) string {
	return fmt.Sprintf("%d OTLP span documents among the logs documents skipped (mixed formats in one file: give the spans in a file of their own)", n)
}}

// decodeOTLPLogs reads OTLP JSON logs into log records.
func decodeOTLPLogs(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	var um plog.JSONUnmarshaler
	bound := &logs.DocBound{R: r, Max: lim.MaxDocumentBytes, What: "log document"}
	dec := json.NewDecoder(bound)
	docs := 0
	var err error
	for n := 0; !s.Full(); n++ {
		if !dec.More() {
			err = ingest.EndOfDocuments(name, "otlp logs", dec, n)
			break
		}
		start := dec.InputOffset()
		bound.Start = start
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
		if logs.FirstKey(raw) == "resourceSpans" {
			s.Count(spanDocs, 1)
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
	s := logs.NewLogSink(name, lim, b)
	// A document over MaxDocumentBytes is declined (RawObject bounds what
	// it buffers by MaxTok): the general reader words the error.
	sc := &fastjson.Scanner{R: r, Keep: -1, MaxDepth: lim.MaxDepth, MaxTok: lim.MaxDocumentBytes, Size: ingest.SizeHint(r)}
	var um plog.JSONUnmarshaler
	for n := 1; !s.Full(); n++ {
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
		if logs.FirstKey(raw) == "resourceSpans" {
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

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatOTLPLogs, Decode: decodeOTLPLogs, Fast: decodeOTLPLogsFast,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityOTLPLogs, Match: func(h *ingest.Head) bool { return h.JSON() && h.Has("resourceLogs") && !h.Has("resourceSpans") }}}})
}
