package jaeger

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"

	jmodel "github.com/jaegertracing/jaeger-idl/model/v1"
	"google.golang.org/protobuf/encoding/protowire"
)

// Jaeger protobuf reader: the span model (jaeger-idl model/v1, package
// jaeger.api_v2) that Jaeger's gRPC query API streams.
//
// Accepted, recognised by content (ingest.SniffProto): api_v2
// SpansResponseChunk and model.Trace messages — one message, several
// concatenated (the raw payloads of a FindTraces stream one after another
// read as one chunk), each after a big-endian uint32 length, or
// varint-delimited — and varint- or uint32-delimited streams of bare
// model.Span messages. Each span is unmarshalled by the generated code
// (jmodel.Span.Unmarshal) and handed to the JSON reader's own conversion
// (convert, flushTrace: the same references, parent choice, tag coercion,
// process tags, placement and warnings), its typed tag values given as
// text; only the times are taken at full (nanosecond) precision, which
// the JSON's microseconds lack. A model.Trace's process_map resolves the
// process_id of spans that carry no process of their own; its warnings are
// counted as the JSON's are.

// Jaeger's span model on the wire (model.proto).
var jaegerSpanSchema, jaegerChunkSchema = jaegerSchemas()

func jaegerSchemas() (span, chunk *ingest.ProtoSchema) {
	const (
		wLen = protowire.BytesType
		wVar = protowire.VarintType
		w64  = protowire.Fixed64Type
	)
	f := func(t protowire.Type) ingest.ProtoField { return ingest.ProtoField{Type: t} }
	m := func(s *ingest.ProtoSchema) ingest.ProtoField { return ingest.ProtoField{Type: wLen, Msg: s} }
	id := func(n int) ingest.ProtoField { return ingest.ProtoField{Type: wLen, Size: n} }
	ts := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: f(wVar), 2: f(wVar)}} // Timestamp, Duration
	kv := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: f(wLen), 2: f(wVar), 3: f(wLen), 4: f(wVar), 5: f(wVar), 6: f(w64), 7: f(wLen)}}
	ref := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: id(16), 2: id(8), 3: f(wVar)}}
	log := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: m(ts), 2: m(kv)}}
	proc := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: f(wLen), 2: m(kv)}}
	span = &ingest.ProtoSchema{Leaf: true, NeedAny: []protowire.Number{1}, Fields: map[protowire.Number]ingest.ProtoField{
		1: id(16), 2: id(8), 3: f(wLen), 4: m(ref), 5: f(wVar), 6: m(ts), 7: m(ts), 8: m(kv), 9: m(log), 10: m(proc), 11: f(wLen), 12: f(wLen)}}
	mapping := &ingest.ProtoSchema{Fields: map[protowire.Number]ingest.ProtoField{1: f(wLen), 2: m(proc)}}
	chunk = &ingest.ProtoSchema{Strict: true, Fields: map[protowire.Number]ingest.ProtoField{1: m(span), 2: m(mapping), 3: f(wLen)}}
	spanTop := &ingest.ProtoSchema{Strict: true, Leaf: true, NeedAny: span.NeedAny, Fields: span.Fields}
	return spanTop, chunk
}

// sniffJaegerProto returns the framing of a Jaeger protobuf head and
// whether its messages are bare spans (else chunks or traces).
func sniffJaegerProto(raw []byte) (ingest.ProtoFraming, bool) {
	if f := ingest.SniffProto(raw, jaegerChunkSchema); f != ingest.FrameNone {
		return f, false
	}
	// A bare span stream must be delimited: a plain span is a chunk's field 1.
	if f := ingest.SniffProto(raw, jaegerSpanSchema); f == ingest.FrameBE32 || f == ingest.FrameVarint {
		return f, true
	}
	return ingest.FrameNone, false
}

// decodeJaegerProto reads Jaeger protobuf spans (see above).
func decodeJaegerProto(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	br := bufio.NewReaderSize(r, ingest.SniffLen)
	head, _ := br.Peek(ingest.SniffLen)
	framing, bare := sniffJaegerProto(head)
	if framing == ingest.FrameNone {
		return nil, ingest.ErrorAt(name, 0, errors.New("jaeger protobuf: not a stream of api_v2 chunks, traces or spans"))
	}
	jr := &jaegerReader{name: name, file: ingest.Intern(name), src: br, lim: lim, b: &ingest.Bundle{}, in: ingest.NewInterner(lim.MaxStringBytes)}
	jr.tr.procCache = map[string]procInfo{}
	pr := &protoReader{jr: jr, ps: ingest.NewProtoStream(name, br, framing, lim.MaxDocumentBytes), bare: bare}
	pr.ps.Keep = []protowire.Number{1, 2, 3}
	return pr.finish(pr.run())
}

// protoReader is the state of one decodeJaegerProto call on top of the
// JSON reader's (whose traceState groups spans by trace).
type protoReader struct {
	jr    *jaegerReader
	ps    *ingest.ProtoStream
	bare  bool
	span  jmodel.Span
	msgs  int // messages read
	msgAt int64
	cur   jmodel.TraceID // the trace whose spans are pending
	spans int            // spans pending or committed in the current group
}

func (p *protoReader) run() error {
	for !p.jr.limited {
		msg, off, err := p.ps.Next()
		if errors.Is(err, io.EOF) {
			if p.msgs == 0 {
				return ingest.ErrorAt(p.jr.name, 0, errors.New("jaeger protobuf: no message"))
			}
			return nil
		}
		if err != nil {
			return err
		}
		p.msgs++
		p.msgAt = off
		if p.bare {
			if err := p.spanBytes(msg, off); err != nil {
				return err
			}
			continue
		}
		if err := p.message(msg, off); err != nil {
			return err
		}
	}
	return nil
}

// message walks one chunk or trace: spans (1), process_map (2), warnings (3).
func (p *protoReader) message(b []byte, off int64) error {
	at := off
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return ingest.ErrorAt(p.jr.name, at, fmt.Errorf("jaeger protobuf: message %d: bad field (wire type %d)", p.msgs, typ))
		}
		v, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return ingest.ErrorAt(p.jr.name, at, fmt.Errorf("jaeger protobuf: message %d: field %d cut short", p.msgs, num))
		}
		switch num {
		case 1:
			if err := p.spanBytes(v, at); err != nil {
				return err
			}
		case 2:
			var pm jmodel.Trace_ProcessMapping
			if err := pm.Unmarshal(v); err != nil {
				return ingest.ErrorAt(p.jr.name, at, fmt.Errorf("jaeger protobuf: process mapping: %w", err))
			}
			if p.jr.tr.procs == nil {
				p.jr.tr.procs = map[string]jProcess{}
			}
			p.jr.tr.procs[pm.ProcessID] = jProcess{ServiceName: pm.Process.ServiceName, Tags: protoTags(pm.Process.Tags, nil)}
		case 3:
			p.jr.tr.warnings = append(p.jr.tr.warnings, string(v))
		}
		b = b[n+m:]
		at += int64(n + m)
	}
	return nil
}

// spanBytes unmarshals one span and queues it in its trace's group; a span
// of another trace first commits the pending group.
func (p *protoReader) spanBytes(b []byte, at int64) error {
	sp := &p.span
	tags, refs := sp.Tags[:0], sp.References[:0]
	*sp = jmodel.Span{Tags: tags, References: refs}
	if err := sp.Unmarshal(b); err != nil {
		p.jr.badSpans++
		if p.jr.firstBad == nil {
			p.jr.firstBad = ingest.ErrorAt(p.jr.name, at, fmt.Errorf("jaeger protobuf span: %w", err))
		}
		return nil
	}
	if p.spans > 0 && sp.TraceID != p.cur {
		p.flush()
	}
	p.cur = sp.TraceID
	p.spans++
	js := &p.jr.js
	*js = jSpan{Tags: protoTags(sp.Tags, js.Tags[:0]), References: js.References[:0]}
	js.TraceID = hexTraceID(sp.TraceID)
	js.SpanID = strconv.FormatUint(uint64(sp.SpanID), 16)
	js.OperationName = sp.OperationName
	for _, r := range sp.References {
		js.References = append(js.References, jRef{RefType: r.RefType.String(), TraceID: hexTraceID(r.TraceID), SpanID: strconv.FormatUint(uint64(r.SpanID), 16)})
	}
	js.ProcessID = sp.ProcessID
	if sp.Process != nil {
		js.Process = &jProcess{ServiceName: sp.Process.ServiceName, Tags: protoTags(sp.Process.Tags, nil)}
	}
	js.Warnings = sp.Warnings
	p.jr.spanOff = at
	pend, ok := p.jr.convert(js)
	if !ok {
		return nil
	}
	// The wire has nanoseconds; the JSON's microseconds are not a limit here.
	pend.span.Start = 0
	if !sp.StartTime.IsZero() {
		pend.span.Start = ingest.FromTime(sp.StartTime)
	}
	pend.span.Duration = sp.Duration
	p.jr.queue(pend)
	return nil
}

// flush commits the pending group (one trace) and forgets its processes.
func (p *protoReader) flush() {
	p.jr.flushTrace()
	p.jr.tr.reset()
	p.spans = 0
}

// finish commits the last group and words the outcome as the JSON reader
// does (a fatal error after some spans is a partial-input warning).
func (p *protoReader) finish(err error) (*ingest.Bundle, error) {
	if err == nil || !errors.Is(err, ingest.ErrLimit) {
		p.flush()
	}
	jr := p.jr
	b := jr.b
	if err != nil {
		if len(b.Spans) == 0 {
			return nil, err
		}
		rest, _ := io.Copy(io.Discard, jr.src)
		total := p.ps.Offset() + rest
		lost := ""
		var ie *ingest.InputError
		if errors.As(err, &ie) && ie.Offset >= 0 && total > ie.Offset {
			lost = fmt.Sprintf("; dropped the last %d of %d bytes", total-ie.Offset, total)
		}
		kind := ingest.ErrPartialInput
		if errors.Is(err, ingest.ErrLimit) {
			kind = ingest.ErrLimit
		}
		b.Warn(kind, jr.name, 1, "kept %d spans of %d complete messages%s: %v", len(b.Spans), max(p.msgs-1, 0), lost, err)
	}
	return jr.finish(nil)
}

// hexTraceID renders a model trace ID as the JSON API does (16 hex digits
// when the high half is zero, else 32).
func hexTraceID(id jmodel.TraceID) string {
	if id.High == 0 {
		return fmt.Sprintf("%016x", id.Low)
	}
	return fmt.Sprintf("%016x%016x", id.High, id.Low)
}

// protoTags turns typed key-values into the JSON reader's tags, each value
// as the text tagString would have read from JSON (binary as base64).
func protoTags(kvs []jmodel.KeyValue, dst []jTag) []jTag {
	for i := range kvs {
		kv := &kvs[i]
		t := jTag{Key: kv.Key, Type: strings.ToLower(kv.VType.String()), direct: true}
		switch kv.VType {
		case jmodel.ValueType_STRING:
			t.str = kv.VStr
		case jmodel.ValueType_BOOL:
			t.str = strconv.FormatBool(kv.VBool)
		case jmodel.ValueType_INT64:
			t.str = strconv.FormatInt(kv.VInt64, 10)
		case jmodel.ValueType_FLOAT64:
			t.str = strconv.FormatFloat(kv.VFloat64, 'g', -1, 64)
		case jmodel.ValueType_BINARY:
			t.str = base64.StdEncoding.EncodeToString(kv.VBinary)
		}
		dst = append(dst, t)
	}
	return dst
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatJaegerProto, Decode: decodeJaegerProto, Binary: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityJaegerProto, Match: func(h *ingest.Head) bool {
			f, _ := sniffJaegerProto(h.Raw)
			return f != ingest.FrameNone
		}}}})
}
