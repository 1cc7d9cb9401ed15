package otlp

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// OTLP protobuf trace reader.
//
// Accepted, recognised by content (ingest.SniffProto with
// logs.OTLPTracesSchema): one TracesData or ExportTraceServiceRequest
// message (a .binpb file, a saved OTLP/HTTP request body, or several
// concatenated), the OpenTelemetry Collector file exporter's `format: proto`
// output (each message after a big-endian uint32 length) and varint-delimited
// streams. Messages are read one at a time (for a single message, one
// ResourceSpans at a time) and handed to pdata's ptrace.ProtoUnmarshaler;
// the spans go through the same conversion as the JSON reader's (convert),
// so a file reads to the same spans in either encoding.

// decodeOTLPProto reads OTLP protobuf traces into spans.
func decodeOTLPProto(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	br := bufio.NewReaderSize(r, ingest.SniffLen)
	head, _ := br.Peek(ingest.SniffLen)
	framing := ingest.SniffProto(head, logs.OTLPTracesSchema)
	if framing == ingest.FrameNone {
		return nil, ingest.ErrorAt(name, 0, errors.New("otlp protobuf: not a TracesData stream"))
	}
	or := &otlpReader{name: name, src: ingest.Intern(name), lim: lim, b: &ingest.Bundle{}, in: ingest.NewInterner(lim.MaxStringBytes)}
	ps := ingest.NewProtoStream(name, br, framing, lim.MaxDocumentBytes)
	var um ptrace.ProtoUnmarshaler
	var err error
	for n := 0; !or.limited; n++ {
		msg, off, nerr := ps.Next()
		if errors.Is(nerr, io.EOF) {
			if n == 0 {
				err = ingest.ErrorAt(name, 0, errors.New("otlp protobuf: no message"))
			}
			break
		}
		if nerr != nil {
			err = nerr
			break
		}
		td, uerr := um.UnmarshalTraces(msg)
		if uerr != nil {
			err = ingest.ErrorAt(name, off, fmt.Errorf("otlp protobuf (%s) message %d: %w", framing, n+1, uerr))
			break
		}
		if or.convert(td) > 0 {
			or.docs++
		}
	}
	b := or.b
	if err != nil {
		if len(b.Spans) == 0 {
			return nil, err
		}
		rest, _ := io.Copy(io.Discard, br)
		total := ps.Offset() + rest
		lost := ""
		var ie *ingest.InputError
		if errors.As(err, &ie) && ie.Offset >= 0 && total > ie.Offset {
			lost = fmt.Sprintf("; dropped the last %d of %d bytes", total-ie.Offset, total)
		}
		kind := ingest.ErrPartialInput
		if errors.Is(err, ingest.ErrLimit) {
			kind = ingest.ErrLimit
		}
		b.Warn(kind, name, 1, "kept %d spans of %d complete messages%s: %v", len(b.Spans), or.docs, lost, err)
	}
	if or.srcWarn > 0 {
		b.Warn(ingest.ErrSourceWarning, name, or.srcWarn, "%d Jaeger span warnings (%s); first: %q", or.srcWarn, jaegerWarningsKey, or.firstWarn)
	}
	if or.in.Truncated > 0 {
		b.Warn(ingest.ErrLimit, name, or.in.Truncated, "%d names longer than %d bytes truncated", or.in.Truncated, lim.MaxStringBytes)
	}
	if or.limited {
		b.Warn(ingest.ErrLimit, name, 1, "stopped after %d spans (the span limit); the rest of the input was not read", len(b.Spans))
	}
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatOTLPProto, Decode: decodeOTLPProto, Binary: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityOTLPProto, Match: func(h *ingest.Head) bool {
			return ingest.SniffProto(h.Raw, logs.OTLPTracesSchema) != ingest.FrameNone
		}}}})
}
