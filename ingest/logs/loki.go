package logs

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"io"
	"strconv"
	"strings"
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
	s := NewLogSink(name, lim, b)
	// Each stream object is decoded whole: one is bounded like a document
	// (the fast path streams its values and needs no bound).
	s.bound = &docBound{r: r, max: lim.MaxDocumentBytes, what: "Loki stream"}
	dec := json.NewDecoder(s.bound)
	if err := ingest.JSONDelim(dec, name, '{'); err != nil {
		return nil, err
	}
	var status, errMsg, resultType string
	streams := 0
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
			err = lokiData(dec, s, &resultType, &streams)
		case "streams": // a push request (promtail, Alloy): the streams without the envelope
			resultType = "streams"
			err = lokiResult(dec, s, &streams)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
		if s.full() {
			break
		}
	}
	if !s.full() {
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

// lokiData walks the "data" object, streaming "result".
func lokiData(dec *json.Decoder, s *LogSink, resultType *string, streams *int) error {
	if err := ingest.JSONDelim(dec, s.name, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := ingest.JSONKey(dec, s.name)
		if err != nil {
			return err
		}
		switch key {
		case "resultType":
			err = dec.Decode(resultType)
		case "result":
			err = lokiResult(dec, s, streams)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return err
		}
		if s.full() {
			return nil
		}
	}
	_, err := dec.Token()
	return err
}

// lokiResult streams the result array, one stream object at a time.
func lokiResult(dec *json.Decoder, s *LogSink, streams *int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return ingest.ErrorAt(s.name, dec.InputOffset(), fmt.Errorf("loki: result is %v, want an array", tok))
	}
	for dec.More() {
		off := dec.InputOffset()
		if s.bound != nil {
			s.bound.start = off
		}
		var ls lokiStreamJSON
		if err := dec.Decode(&ls); err != nil {
			if errors.Is(err, ingest.ErrLimit) {
				return ingest.ErrorAt(s.name, off, err)
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return ingest.ErrorAt(s.name, off+te.Offset, fmt.Errorf("loki stream: %w", ingest.TypeErrMsg(te)))
			}
			return err
		}
		*streams++
		s.lokiStream(ls, off)
		if s.full() {
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

// lokiStream feeds one stream's entries, oldest first.
func (s *LogSink) lokiStream(js lokiStreamJSON, off int64) {
	if js.Stream == nil {
		s.notStreams++ // logmixed.go
	}
	get := func(k string) string { return js.Stream[k] }
	st := s.stream(streamFromLabels(get))
	sev := labelSeverity(get)
	entries := make([]lokiEntry, 0, len(js.Values))
	for i, raw := range js.Values {
		e, err := parseLokiEntry(raw)
		if err != nil {
			s.malformed(0, off, "stream %d, entry %d: %v", len(s.b.LogStreams), i, err)
			continue
		}
		entries = append(entries, e)
	}
	s.lokiEntries(st, sev, entries)
}

// lokiEntries feeds the entries of stream st, oldest first, each with the
// stream's severity unless its metadata gives its own.
func (s *LogSink) lokiEntries(st int32, sev ingest.Severity, entries []lokiEntry) {
	backward := len(entries) > 1 && entries[0].t > entries[len(entries)-1].t
	for k := range entries {
		e := &entries[k]
		if backward {
			e = &entries[len(entries)-1-k]
		}
		f := fields{sev: sev}
		if e.meta != nil {
			metaFields(&f, func(k string) string { return e.meta[k] })
		}
		s.line(st, e.t, 0, e.line, f)
	}
	s.flush(st)
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

// Label names that place a log stream, in order of preference. Loki and
// promtail/Alloy write underscores; OTLP-derived labels keep dots.
var (
	serviceLabels   = []string{"service_name", "service.name", "service", "app_kubernetes_io_name", "app.kubernetes.io/name", "app", "k8s_deployment_name", "k8s.deployment.name", "k8s_app"}
	podLabels       = []string{"pod", "pod_name", "k8s_pod_name", "k8s.pod.name"}
	namespaceLabels = []string{"namespace", "namespace_name", "k8s_namespace_name", "k8s.namespace.name"}
	nodeLabels      = []string{"node", "node_name", "k8s_node_name", "k8s.node.name", "host", "hostname", "host.name", "nodename"}
	containerLabels = []string{"container", "container_name", "k8s_container_name", "k8s.container.name"}
	levelLabels     = []string{"level", "detected_level", "severity", "severity_text", "lvl", "loglevel"}
)

func firstLogLabel(get func(string) string, names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(get(n)); v != "" {
			return v
		}
	}
	return ""
}

// streamFromLabels places a stream by its labels: the service from
// serviceLabels, else (with no pod either) the last path segment of "job"
// (promtail's "namespace/app"); pod, namespace, node and container from
// their labels.
func streamFromLabels(get func(string) string) ingest.LogStream {
	ls := ingest.LogStream{
		Service:   firstLogLabel(get, serviceLabels),
		Pod:       firstLogLabel(get, podLabels),
		Namespace: firstLogLabel(get, namespaceLabels),
		Node:      firstLogLabel(get, nodeLabels),
		Container: firstLogLabel(get, containerLabels),
	}
	if ls.Service == "" && ls.Pod == "" {
		if job := get("job"); job != "" {
			ls.Service = job[strings.LastIndexByte(job, '/')+1:]
		}
	}
	return ls
}

// labelSeverity is the severity a stream's labels give all its records.
func labelSeverity(get func(string) string) ingest.Severity {
	sev, _ := ingest.ParseSeverity(firstLogLabel(get, levelLabels))
	return sev
}

// metaFields fills f from per-record metadata: level, trace and span IDs.
func metaFields(f *fields, get func(string) string) {
	if s, ok := ingest.ParseSeverity(firstLogLabel(get, levelLabels)); ok {
		f.sev = s
	}
	if v := firstLogLabel(get, []string{"trace_id", "traceid", "traceId", "traceID", "trace.id"}); v != "" {
		if id, err := ingest.ParseTraceID(v); err == nil && id != (ingest.TraceID{}) {
			f.trace = id
		}
	}
	if v := firstLogLabel(get, []string{"span_id", "spanid", "spanId", "spanID", "span.id"}); v != "" {
		if id, err := ingest.ParseSpanID(v); err == nil {
			f.span = id
		}
	}
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatLokiStreams, Decode: decodeLoki, Fast: decodeLokiFast,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityLokiStreams, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("resultType") && h.ResultType() == "streams" ||
				!h.Has("resultType") && h.Has("streams") && h.Has("stream") && h.Has("values")) // Loki push body
		}}}})
}
