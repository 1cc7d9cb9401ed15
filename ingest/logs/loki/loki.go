package loki

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"
)

// Grafana Loki query responses (/loki/api/v1/query_range and /query) with
// resultType "streams":
//
//	{"status":"success","data":{"resultType":"streams","result":[
//	  {"stream":{"service_name":"cart","pod":"cart-7d4b9c-abcde"},
//	   "values":[["1674981730176365235","INFO started"],
//	             ["1674981730186245154","ERROR failed",{"trace_id":"…"}]]}],
//	  "stats":{…}}}
//
// Values are [nanosecond-string, line] or [ns, line, metadata] where the
// metadata is flat structured metadata or Loki 3's categorised
// {"structuredMetadata":{…},"parsed":{…}}. A stream's entries may come
// newest first (direction=backward, Loki's default): they are read oldest
// first so that stack-trace lines fold into the line before them. The file
// is streamed one stream object at a time. A metric query's "matrix" result
// is a Prometheus series file and never reaches this reader (Sniff). The
// push API's body ({"streams":[…]}, what promtail and Alloy send) is read
// the same way.

// lokiStreamJSON is one element of data.result.
type lokiStreamJSON struct {
	Stream map[string]string `json:"stream"`
	Values []json.RawMessage `json:"values"`
}

// decodeLoki reads a Loki streams response into log records.
func decodeLoki(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	// Each stream object is decoded whole: one is bounded like a document
	// (the fast path streams its values and needs no bound).
	lr := &lokiReader{s: s, b: b, bound: &logs.DocBound{R: r, Max: lim.MaxDocumentBytes, What: "Loki stream"}}
	dec := json.NewDecoder(lr.bound)
	if err := ingest.JSONDelim(dec, name, '{'); err != nil {
		return nil, err
	}
	var status, errMsg, resultType string
	for dec.More() {
		key, err := ingest.JSONKey(dec, name)
		if err != nil {
			return nil, err
		}
		switch key {
		case "status":
			err = dec.Decode(&status)
		case "error":
			err = dec.Decode(&errMsg)
		case "data":
			err = lr.data(dec, &resultType)
		case "streams": // a push request (promtail, Alloy): the streams without the envelope
			resultType = "streams"
			err = lr.result(dec)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
		if s.Full() {
			break
		}
	}
	if !s.Full() {
		if _, err := dec.Token(); err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
	}
	switch {
	case status == "error":
		return nil, &ingest.InputError{File: name, Offset: -1, Err: fmt.Errorf("loki error: %s", errMsg)}
	case resultType != "" && resultType != "streams":
		return nil, &ingest.InputError{File: name, Offset: -1, Err: fmt.Errorf("loki: resultType %q holds no log streams", resultType)}
	case status == "" && resultType == "":
		return nil, &ingest.InputError{File: name, Offset: -1, Err: errors.New("not a Loki query response: no status and no data")}
	}
	s.Finish()
	return b, nil
}

// lokiReader is the general reader's state: the sink, the bundle it fills,
// the bound on one stream object and the stream objects read.
type lokiReader struct {
	s       *logs.LogSink
	b       *ingest.Bundle
	bound   *logs.DocBound
	streams int
}

// data walks the "data" object, streaming "result".
func (lr *lokiReader) data(dec *json.Decoder, resultType *string) error {
	s := lr.s
	if err := ingest.JSONDelim(dec, s.Name(), '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := ingest.JSONKey(dec, s.Name())
		if err != nil {
			return err
		}
		switch key {
		case "resultType":
			err = dec.Decode(resultType)
		case "result":
			err = lr.result(dec)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return err
		}
		if s.Full() {
			return nil
		}
	}
	_, err := dec.Token()
	return err
}

// result streams the result array, one stream object at a time.
func (lr *lokiReader) result(dec *json.Decoder) error {
	s := lr.s
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return ingest.ErrorAt(s.Name(), dec.InputOffset(), fmt.Errorf("loki: result is %v, want an array", tok))
	}
	for dec.More() {
		off := dec.InputOffset()
		lr.bound.Start = off
		var ls lokiStreamJSON
		if err := dec.Decode(&ls); err != nil {
			if errors.Is(err, ingest.ErrLimit) {
				return ingest.ErrorAt(s.Name(), off, err)
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return ingest.ErrorAt(s.Name(), off+te.Offset, fmt.Errorf("loki stream: %w", ingest.TypeErrMsg(te)))
			}
			return err
		}
		lr.streams++
		lr.stream(ls, off)
		if s.Full() {
			return nil
		}
	}
	_, err = dec.Token()
	return err
}

// lokiEntry is one parsed value of a stream (on the fast path its line is a
// view into the scanner's buffers, valid until the stream is fed).
type lokiEntry struct {
	t    ingest.Time
	line string
	meta map[string]string
}

// notStreams counts the results without "stream" labels (ingest/logs/logmixed.go).
var notStreams = &logs.Condition{Err: ingest.ErrPartialInput, Text: func(n, records int) string {
	return fmt.Sprintf("%d results without \"stream\" labels (not Loki log streams: a Prometheus result?); %d log records read in all", n, records)
}}

// lokiStream feeds one stream's entries, oldest first.
func (lr *lokiReader) stream(js lokiStreamJSON, off int64) {
	s := lr.s
	if js.Stream == nil {
		s.Count(notStreams, 1)
	}
	get := func(k string) string { return js.Stream[k] }
	st := s.Stream(logs.StreamFromLabels(get))
	sev := logs.LabelSeverity(get)
	entries := make([]lokiEntry, 0, len(js.Values))
	for i, raw := range js.Values {
		e, err := parseLokiEntry(raw)
		if err != nil {
			s.Malformed(0, off, "stream %d, entry %d: %v", len(lr.b.LogStreams), i, err)
			continue
		}
		entries = append(entries, e)
	}
	lokiEntries(s, st, sev, entries)
}

// lokiEntries feeds the entries of stream st, oldest first, each with the
// stream's severity unless its metadata gives its own.
func lokiEntries(s *logs.LogSink, st int32, sev ingest.Severity, entries []lokiEntry) {
	backward := len(entries) > 1 && entries[0].t > entries[len(entries)-1].t
	for k := range entries {
		e := &entries[k]
		if backward {
			e = &entries[len(entries)-1-k]
		}
		f := logs.Fields{Severity: sev}
		if e.meta != nil {
			logs.MetaFields(&f, func(k string) string { return e.meta[k] })
		}
		s.Line(st, e.t, 0, e.line, f)
	}
	s.Flush(st)
}

// parseLokiEntry parses ["ns", "line"] or ["ns", "line", {metadata}].
func parseLokiEntry(raw json.RawMessage) (lokiEntry, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return lokiEntry{}, fmt.Errorf("not a [timestamp, line] pair: %w", err)
	}
	if len(parts) < 2 || len(parts) > 3 {
		return lokiEntry{}, fmt.Errorf("%d elements, want [timestamp, line] or [timestamp, line, metadata]", len(parts))
	}
	var e lokiEntry
	var ts string
	if err := json.Unmarshal(parts[0], &ts); err != nil {
		return e, fmt.Errorf("timestamp %.40s is not a string", parts[0])
	}
	ns, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ns <= 0 {
		return e, fmt.Errorf("bad timestamp %q (want Unix nanoseconds)", ingest.TruncateUTF8(ts, 40))
	}
	e.t = ingest.Time(ns)
	if err := json.Unmarshal(parts[1], &e.line); err != nil {
		return e, fmt.Errorf("line %.40s is not a string", parts[1])
	}
	if len(parts) == 3 {
		var m map[string]any
		if err := json.Unmarshal(parts[2], &m); err != nil {
			return e, fmt.Errorf("metadata %.40s is not an object", parts[2])
		}
		e.meta = map[string]string{}
		for k, v := range m {
			switch x := v.(type) {
			case string:
				e.meta[k] = x
			case map[string]any: // Loki 3 categorize-labels: structuredMetadata, parsed
				for k2, v2 := range x {
					if s, ok := v2.(string); ok {
						e.meta[k2] = s
					}
				}
			}
		}
	}
	return e, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatLokiStreams, Decode: decodeLoki, Fast: decodeLokiFast,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityLokiStreams, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("resultType") && h.ResultType() == "streams" ||
				!h.Has("resultType") && h.Has("streams") && h.Has("stream") && h.Has("values")) // Loki push body
		}}}})
}
