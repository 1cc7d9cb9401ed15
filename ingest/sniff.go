package ingest

import (
	"bytes"
	"encoding/json"
)

// SniffLen is how many leading bytes Sniff looks at.
const SniffLen = 64 << 10

// The sniff order: every rule's priority, in the order the rules are tried
// (ascending). One table, so that the order is the same whatever the order
// in which the decoder packages register. A head that starts with '{' or
// '[' (Head.JSON) is tried only against the JSON rules and one that does not
// only against the others; rules that are more specific come first.
const (
	PrioritySQLite = 100 // raw head "SQLite format 3\x00": Nsight Systems export

	// Binary protobuf heads, recognised by walking their wire format
	// against the message's schema (SniffProto): tried before every other
	// rule, since a protobuf head may start with bytes a text rule reads
	// as white space or '{'.
	PriorityOTLPProto     = 110 // ResourceSpans → ScopeSpans → Span
	PriorityOTLPLogsProto = 120 // ResourceLogs → ScopeLogs → LogRecord
	PriorityJaegerProto   = 130 // model.Span (trace_id 16 bytes, span_id 8 bytes, Timestamp start, Duration)

	// JSON heads.
	PriorityVictoriaLogs     = 1010 // first record's keys: "_msg", or "_time" with "_stream"
	PriorityDockerJSON       = 1020 // first record's keys: "log" with "stream", "time", "kubernetes" or "date"
	PriorityNVMLRecording    = 1030
	PriorityLokiStreams      = 1040
	PriorityPromQueryRange   = 1050
	PriorityAlertmanager     = 1060
	PriorityK8sEventsV1      = 1070 // events.k8s.io/v1 ("regarding")
	PriorityLabel            = 1080 // ground-truth label.json (core)
	PriorityK8sEventsCore    = 1090 // core/v1 Event, EventList ("involvedObject")
	PriorityK8sObjects       = 1095 // Deployments, ReplicaSets, ConfigMaps ... (a List, or one object); after the events, whose Lists name such kinds too
	PriorityOTLPLogs         = 1100
	PriorityOTLPJSON         = 1110
	PriorityJaegerJSON       = 1120
	PriorityJaegerDeps       = 1130
	PriorityKineto           = 1140
	PriorityChangeRecords    = 1145 // first record's keys: a time, a service and what changed (who, version ...), none of a log's
	PriorityManifest         = 1150 // bundle manifest (core)
	PriorityChangeCSV        = 2005 // other heads: a CSV header naming a time, a service and what changed (before nvidia-smi's, which takes any "timestamp" header)
	PriorityNvidiaSmiDmon    = 2010 // "# gpu ... Idx"
	PriorityDockerJSONBroken = 2020 // a json-file line that lost its '{'
	PriorityCRILog           = 2030
	PriorityTextLog          = 2040
	PriorityNvidiaSmiCSV     = 2050
)

// Head is the first SniffLen bytes of an input (already decompressed), as
// the sniff rules see it.
type Head struct {
	Raw  []byte // as read
	Text []byte // leading white space and a byte-order mark trimmed

	keys     map[string]bool
	keysDone bool
}

// NewHead returns the Head of raw.
func NewHead(raw []byte) *Head {
	h := bytes.TrimLeft(raw, " \t\r\n\ufeff")
	h = bytes.TrimPrefix(h, []byte("\xef\xbb\xbf"))
	return &Head{Raw: raw, Text: h}
}

// JSON reports whether the trimmed head starts a JSON object or array.
func (h *Head) JSON() bool { return len(h.Text) > 0 && (h.Text[0] == '{' || h.Text[0] == '[') }

// Has reports whether the head contains the quoted key.
func (h *Head) Has(key string) bool { return has(h.Text, key) }

// TopKeys returns the keys of the first JSON object in the head (the first
// element of an array), as far as the head holds it; computed once.
func (h *Head) TopKeys() map[string]bool {
	if !h.keysDone {
		h.keys, h.keysDone = topKeys(h.Text), true
	}
	return h.keys
}

// ResultType is the value of the first "resultType" key ("" when none).
func (h *Head) ResultType() string { return resultTypeOf(h.Text) }

// FirstLine is the trimmed head's first line (without its newline).
func (h *Head) FirstLine() []byte {
	if i := bytes.IndexByte(h.Text, '\n'); i >= 0 {
		return h.Text[:i]
	}
	return h.Text
}

// Sniff guesses the format of an input from its first bytes (already
// decompressed): the first registered rule, in priority order, that matches.
// It never looks at the file name.
func Sniff(head []byte) Format {
	h := NewHead(head)
	if len(h.Text) == 0 {
		return FormatUnknown
	}
	registryMu.RLock()
	rules := sniffRules
	registryMu.RUnlock()
	for _, r := range rules {
		if r.Match(h) {
			return r.format
		}
	}
	return FormatUnknown
}

// has reports whether the JSON head contains the quoted key.
func has(h []byte, key string) bool {
	return bytes.Contains(h, []byte(`"`+key+`"`))
}

// resultTypeOf returns the value of the first "resultType" key in the head
// ("" when it is not a string): "streams" is Loki's log result, anything
// else a Prometheus (or LogQL metric) result.
func resultTypeOf(h []byte) string {
	i := bytes.Index(h, []byte(`"resultType"`))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(h[i+len(`"resultType"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return ""
	}
	return string(rest[1 : 1+end])
}

// topKeys returns the keys of the first JSON object in the head (the first
// element of an array), as far as the head holds it.
func topKeys(h []byte) map[string]bool {
	dec := json.NewDecoder(bytes.NewReader(h))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			return nil
		}
	}
	if tok != json.Delim('{') {
		return nil
	}
	keys := map[string]bool{}
	for dec.More() && len(keys) < 64 {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := tok.(string)
		if !ok {
			break
		}
		keys[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return keys
}
