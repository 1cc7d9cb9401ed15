package otlp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// OTLP JSON trace reader.
//
// Accepted: one OTLP TracesData document {"resourceSpans":[...]}, a stream of
// them (the Collector file exporter writes one per line), and Jaeger api_v3's
// {"result":{...}} wrapper (one or a stream). Each document is read on its own
// (memory O(largest document)) and handed to pdata's ptrace.JSONUnmarshaler;
// nothing of OTLP is parsed by hand.

// jaegerWarningsKey is the attribute under which Jaeger's api_v3 carries the
// warnings its v1 API puts in a span's "warnings".
const jaegerWarningsKey = "@jaeger@warnings"

// otlpReader is the state of one decodeOTLP call.
type otlpReader struct {
	name    string
	src     ingest.Sym // name, the spans' Source
	lim     ingest.Limits
	b       *ingest.Bundle
	in      *ingest.Interner
	um      ptrace.JSONUnmarshaler
	docs    int // documents with at least one span
	limited bool

	srcWarn   int
	firstWarn string
	apiErrs   int
	firstErr  string
	procs     ingest.ProcessSet // processes with a PID, recorded once

	logs    *logs.LogSink // OTLP logs documents among the spans (logmixed.go)
	logDocs int
}

// otlpWrapper is Jaeger api_v3's response wrapper.
type otlpWrapper struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		HTTPCode int    `json:"httpCode"`
		Message  string `json:"message"`
	} `json:"error"`
}

// decodeOTLP reads OTLP JSON traces (see above) into spans.
func decodeOTLP(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	or := &otlpReader{name: name, src: ingest.Intern(name), lim: lim, b: &ingest.Bundle{}, in: ingest.NewInterner(lim.MaxStringBytes)}
	dec := json.NewDecoder(r)
	var err error
	for n := 0; ; n++ {
		if !dec.More() {
			err = ingest.EndOfDocuments(name, "otlp", dec, n)
			break
		}
		start := dec.InputOffset()
		var raw json.RawMessage
		if derr := dec.Decode(&raw); derr != nil {
			err = ingest.JSONErrorAt(name, derr, dec, start)
			break
		}
		if err = or.document(raw, start); err != nil || or.limited {
			break
		}
	}
	return or.finish(err, dec, r)
}

// document reads one top-level JSON value that starts at byte off.
func (or *otlpReader) document(raw json.RawMessage, off int64) error {
	if len(raw) == 0 || raw[0] != '{' {
		return ingest.ErrorAt(or.name, off, fmt.Errorf("otlp: expected a JSON object, found %s", ingest.TruncateUTF8(string(raw), 20)))
	}
	if k := logs.FirstKey(raw); k == "result" || k == "error" {
		var w otlpWrapper
		if err := json.Unmarshal(raw, &w); err != nil {
			return ingest.ErrorAt(or.name, off, fmt.Errorf("otlp api_v3 wrapper: %w", err))
		}
		if w.Error != nil {
			if or.apiErrs == 0 {
				or.firstErr = fmt.Sprintf("http %d: %s", w.Error.HTTPCode, w.Error.Message)
			}
			or.apiErrs++
		}
		if len(w.Result) == 0 || string(w.Result) == "null" {
			return nil
		}
		raw = w.Result
	}
	if logs.FirstKey(raw) == "resourceLogs" {
		return or.otlpLogsAmongSpans(raw, off)
	}
	td, err := or.um.UnmarshalTraces(raw)
	if err != nil {
		return ingest.ErrorAt(or.name, off, fmt.Errorf("otlp: %w", err))
	}
	if or.convert(td) > 0 {
		or.docs++
	}
	return nil
}

// convert appends td's spans to the bundle (up to the span limit) and returns
// how many it added.
func (or *otlpReader) convert(td ptrace.Traces) int {
	added := 0
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		var res ingest.LocTags
		var service ingest.Sym
		rs.Resource().Attributes().Range(func(k string, v pcommon.Value) bool {
			if k == "service.name" {
				service = or.in.Sym(v.AsString())
			} else if dst := res.Field(k); dst != nil && dst.IsEmpty() {
				*dst = or.in.Sym(v.AsString())
			}
			return true
		})
		or.procs.Add(or.b, service, res, or.name)
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				if len(or.b.Spans) >= or.lim.MaxSpans {
					or.limited = true
					return added
				}
				s, llm := or.span(spans.At(k), service, res)
				or.b.Spans = ingest.AppendSpan(or.b.Spans, s)
				if llm.Known() {
					llm.Key = ingest.SpanKey{Trace: s.TraceID, Span: s.SpanID}
					or.b.LLM = append(or.b.LLM, llm)
				}
				added++
			}
		}
	}
	return added
}

// span converts one OTLP span; span attributes override resource placement.
// Peer is peer.service, else server.address. llm is the LLM request its
// gen_ai attributes describe (Known() false: none).
func (or *otlpReader) span(sp ptrace.Span, service ingest.Sym, res ingest.LocTags) (ingest.Span, ingest.LLMRequest) {
	s := ingest.Span{
		TraceID:   logs.TraceIDFromBytes(sp.TraceID()),
		SpanID:    logs.SpanIDFromBytes(sp.SpanID()),
		ParentID:  logs.SpanIDFromBytes(sp.ParentSpanID()),
		Service:   service,
		Operation: or.in.Sym(sp.Name()),
		Start:     ingest.Time(sp.StartTimestamp()),
		Duration:  time.Duration(int64(sp.EndTimestamp()) - int64(sp.StartTimestamp())),
		Error:     sp.Status().Code() == ptrace.StatusCodeError,
		Source:    or.src,
	}
	if k := sp.Kind(); k >= 0 && int(k) < len(ingest.SpanKindNames) {
		s.Kind = ingest.SpanKind(k)
	}
	var loc ingest.LocTags
	addr := ""
	llm := ingest.NewLLMRequest()
	sp.Attributes().Range(func(k string, v pcommon.Value) bool {
		switch k {
		case jaegerWarningsKey:
			or.warnings(v)
		case "peer.service":
			s.Peer = or.in.Sym(v.AsString())
		case "server.address":
			addr = v.AsString()
		default:
			if a := ingest.LLMAttrOf(k); a != ingest.LLMAttrNone {
				if f, ok := attrFloat(v); ok {
					llm.Set(a, f)
				}
			} else if dst := loc.Field(k); dst != nil && dst.IsEmpty() {
				*dst = or.in.Sym(v.AsString())
			}
		}
		return true
	})
	if s.Peer.IsEmpty() && addr != "" {
		s.Peer = or.in.Sym(addr)
	}
	loc.Merge(res)
	loc.Place(&s)
	return s, llm
}

// attrFloat is a numeric attribute's value: an int, a double, or a string
// holding a number (OTLP/JSON writes int64 values as strings).
func attrFloat(v pcommon.Value) (float64, bool) {
	switch v.Type() {
	case pcommon.ValueTypeInt:
		return float64(v.Int()), true
	case pcommon.ValueTypeDouble:
		return v.Double(), true
	case pcommon.ValueTypeStr:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
		return f, err == nil
	}
	return 0, false
}

// warnings counts Jaeger's "@jaeger@warnings" (a string or array of strings).
func (or *otlpReader) warnings(v pcommon.Value) {
	add := func(w string) {
		if or.srcWarn == 0 {
			or.firstWarn = w
		}
		or.srcWarn++
	}
	if v.Type() == pcommon.ValueTypeSlice {
		sl := v.Slice()
		for i := 0; i < sl.Len(); i++ {
			add(sl.At(i).AsString())
		}
		return
	}
	add(v.AsString())
}

// finish mirrors the Jaeger reader: an error before any span is an error,
// after some spans an ErrPartialInput warning.
func (or *otlpReader) finish(err error, dec *json.Decoder, src io.Reader) (*ingest.Bundle, error) {
	b := or.b
	or.finishLogs()
	if err != nil {
		if len(b.Spans) == 0 && len(b.Logs) == 0 {
			return nil, err
		}
		rest, _ := io.Copy(io.Discard, src)
		total := dec.InputOffset() + ingest.BufferedLen(dec) + rest
		lost := ""
		var ie *ingest.InputError
		if errors.As(err, &ie) && ie.Offset >= 0 && total > ie.Offset {
			lost = fmt.Sprintf("; dropped the last %d of %d bytes", total-ie.Offset, total)
		}
		b.Warn(ingest.ErrPartialInput, or.name, 1, "kept %d spans of %d complete documents%s: %v", len(b.Spans), or.docs, lost, err)
	}
	if or.srcWarn > 0 {
		b.Warn(ingest.ErrSourceWarning, or.name, or.srcWarn, "%d Jaeger span warnings (%s); first: %q", or.srcWarn, jaegerWarningsKey, or.firstWarn)
	}
	if or.apiErrs > 0 {
		b.Warn(ingest.ErrSourceWarning, or.name, or.apiErrs, "Jaeger api_v3 reported %d errors; first: %s", or.apiErrs, or.firstErr)
	}
	if or.in.Truncated > 0 {
		b.Warn(ingest.ErrLimit, or.name, or.in.Truncated, "%d names longer than %d bytes truncated", or.in.Truncated, or.lim.MaxStringBytes)
	}
	if or.limited {
		b.Warn(ingest.ErrLimit, or.name, 1, "stopped after %d spans (the span limit); the rest of the input was not read", len(b.Spans))
	}
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatOTLPJSON, Decode: decodeOTLP,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityOTLPJSON, Match: func(h *ingest.Head) bool { return h.JSON() && h.Has("resourceSpans") }}}})
}

// otlpLogsAmongSpans reads an OTLP logs document found among span
// documents into the reader's log sink (created on first use).
func (or *otlpReader) otlpLogsAmongSpans(raw []byte, off int64) error {
	var um plog.JSONUnmarshaler
	ld, err := um.UnmarshalLogs(raw)
	if err != nil {
		return ingest.ErrorAt(or.name, off, fmt.Errorf("otlp logs document among spans: %w", err))
	}
	if or.logs == nil {
		or.logs = logs.NewLogSink(or.name, or.lim, or.b)
	}
	or.logDocs++
	or.logs.OTLPLogs(ld, or.logDocs)
	return nil
}

// finishLogs finishes the log sink of otlpLogsAmongSpans, with its warning.
func (or *otlpReader) finishLogs() {
	if or.logs == nil {
		return
	}
	or.logs.Finish()
	or.b.Warn(ingest.ErrSourceWarning, or.name, or.logDocs, "%d OTLP logs documents among the span documents read as logs (%d records; mixed formats in one file)", or.logDocs, len(or.b.Logs))
}
