package otlplogs

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"

	"go.opentelemetry.io/collector/pdata/plog"
)

// OTLP protobuf logs: LogsData or ExportLogsServiceRequest messages, plain,
// after a big-endian uint32 length each (the Collector file exporter's
// format: proto) or varint-delimited, recognised by content
// (ingest.SniffProto with logs.OTLPLogsSchema) and read one message at a
// time (one ResourceLogs at a time for a single message) through pdata's
// plog.ProtoUnmarshaler into the same sink as the JSON documents
// (LogSink.OTLPLogs), so a file reads to the same records in either
// encoding.

// decodeOTLPLogsProto reads OTLP protobuf logs into log records.
func decodeOTLPLogsProto(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	br := bufio.NewReaderSize(r, ingest.SniffLen)
	head, _ := br.Peek(ingest.SniffLen)
	framing := ingest.SniffProto(head, logs.OTLPLogsSchema)
	if framing == ingest.FrameNone {
		return nil, ingest.ErrorAt(name, 0, errors.New("otlp logs protobuf: not a LogsData stream"))
	}
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	ps := ingest.NewProtoStream(name, br, framing, lim.MaxDocumentBytes)
	var um plog.ProtoUnmarshaler
	docs := 0
	var err error
	for n := 0; !s.Full(); n++ {
		msg, off, nerr := ps.Next()
		if errors.Is(nerr, io.EOF) {
			if n == 0 {
				err = ingest.ErrorAt(name, 0, errors.New("otlp logs protobuf: no message"))
			}
			break
		}
		if nerr != nil {
			err = nerr
			break
		}
		ld, uerr := um.UnmarshalLogs(msg)
		if uerr != nil {
			err = ingest.ErrorAt(name, off, fmt.Errorf("otlp logs protobuf (%s) message %d: %w", framing, n+1, uerr))
			break
		}
		s.OTLPLogs(ld, n+1)
		docs++
	}
	if err != nil {
		if len(b.Logs) == 0 {
			return nil, err
		}
		b.Warn(ingest.ErrPartialInput, name, 1, "kept %d log records of %d complete messages: %v", len(b.Logs), docs, err)
	}
	s.Finish()
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatOTLPLogsProto, Decode: decodeOTLPLogsProto, Binary: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityOTLPLogsProto, Match: func(h *ingest.Head) bool {
			return ingest.SniffProto(h.Raw, logs.OTLPLogsSchema) != ingest.FrameNone
		}}}})
}
