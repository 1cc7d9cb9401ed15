package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 64 << 10

// Sniff guesses the format of an input from its first bytes (already
// decompressed). It never looks at the file name.
func Sniff(head []byte) Format {
	for _, x := range extraFormats {
		if x.sniff(head) {
			return x.format
		}
	}
	if bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		return FormatNsightSQLite
	}
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	h = bytes.TrimPrefix(h, []byte("\xef\xbb\xbf"))
	if len(h) == 0 {
		return FormatUnknown
	}
	switch h[0] {
	case '{', '[':
		if f := sniffLogJSON(h); f != FormatUnknown {
			return f
		}
		return sniffJSON(h)
	case '#':
		if bytes.Contains(h[:min(len(h), 2048)], []byte("gpu")) && bytes.Contains(h[:min(len(h), 2048)], []byte("Idx")) ||
			bytes.HasPrefix(h, []byte("# gpu")) {
			return FormatNvidiaSmiDmon
		}
	}
	if f := sniffLogText(h); f != FormatUnknown {
		return f
	}
	first := h
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		first = h[:i]
	}
	if bytes.Count(first, []byte(",")) >= 1 && (bytes.Contains(first, []byte("index")) || bytes.Contains(first, []byte("uuid")) ||
		bytes.Contains(first, []byte("utilization.")) || bytes.Contains(first, []byte("timestamp")) || bytes.Contains(first, []byte("name"))) &&
		!bytes.Contains(first, []byte("{")) {
		return FormatNvidiaSmiCSV
	}
	return FormatUnknown
}

// extraFormat is a format added beyond the built-in constants: its value,
// and the rule that recognises its head (specific enough to be tried
// before the built-in rules).
type extraFormat struct {
	format Format
	sniff  func(head []byte) bool
}

// extraFormats are tried first by Sniff. The built-in formats need none;
// registerFormat (minimal_decoder_test.go) adds one through the same three
// tables a built-in format uses: formatNames, this rule, decoders.
var extraFormats []extraFormat

// has reports whether the JSON head contains the quoted key.
func has(h []byte, key string) bool {
	return bytes.Contains(h, []byte(`"`+key+`"`))
}

func sniffJSON(h []byte) Format {
	switch {
	case has(h, "pipeline_analyze_nvml") || has(h, "nvml_version") && has(h, "samples"):
		return FormatNVMLRecording
	case has(h, "resultType") && resultTypeOf(h) == "streams",
		!has(h, "resultType") && has(h, "streams") && has(h, "stream") && has(h, "values"): // Loki push body
		return FormatLokiStreams
	case has(h, "resultType") || (has(h, "status") && (has(h, "errorType") || has(h, "warnings")) && !has(h, "alerts")):
		return FormatPromQueryRange
	case has(h, "alerts") && (has(h, "startsAt") || has(h, "groupKey") || has(h, "receiver")),
		h[0] == '[' && has(h, "startsAt") && has(h, "labels") && has(h, "fingerprint"): // Alertmanager /api/v2/alerts
		return FormatAlertmanager
	case has(h, "regarding") && (has(h, "note") || has(h, "reason")) && has(h, "eventTime"): // events.k8s.io/v1
		return FormatK8sEvents
	case has(h, "root_cause") && (has(h, "fault") || has(h, "inject_time")):
		return FormatLabel
	case has(h, "kind") && (bytes.Contains(h, []byte(`"EventList"`)) || bytes.Contains(h, []byte(`"Event"`))) && has(h, "involvedObject") || has(h, "involvedObject") && has(h, "reason"):
		return FormatK8sEvents
	case has(h, "resourceLogs") && !has(h, "resourceSpans"):
		return FormatOTLPLogs
	case has(h, "resourceSpans"):
		return FormatOTLPJSON
	case has(h, "spanID") || has(h, "traceID") && has(h, "spans"):
		return FormatJaegerJSON
	case has(h, "parent") && has(h, "child") && has(h, "callCount"):
		return FormatJaegerDependencies
	case has(h, "traceEvents") || has(h, "deviceProperties") || has(h, "schemaVersion") && has(h, "distributedInfo"):
		return FormatKineto
	case has(h, "pipeline_analyze_manifest"):
		return FormatManifest
	}
	return FormatUnknown
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

// sniffLogJSON recognises the JSON log formats by the keys of their first
// record: VictoriaLogs query results ("_msg", or "_time" with "_stream"),
// and Docker json-file lines or fluent-bit records ("log" with "stream",
// "time", "kubernetes" or "date").
func sniffLogJSON(h []byte) Format {
	if !has(h, "_msg") && !has(h, "_time") && !has(h, "log") {
		return FormatUnknown // none of the keys below appears at all (cheap)
	}
	k := topKeys(h)
	switch {
	case k["_msg"] || k["_time"] && k["_stream"]:
		return FormatVictoriaLogs
	case k["log"] && (k["stream"] || k["time"] || k["kubernetes"] || k["date"]):
		return FormatDockerJSONLog
	}
	return FormatUnknown
}

// sniffLogText recognises text logs by their first line: a CRI line
// ("<RFC 3339> stdout|stderr P|F message"), a Docker json-file line that
// lost its opening brace (`"log":"…`), or a line that starts with a
// timestamp (kubectl logs --timestamps, most application logs) when at
// least a third of the first 20 lines that are not indented do (the rest
// may be stack traces).
func sniffLogText(h []byte) Format {
	lines := bytes.SplitN(h, []byte("\n"), 21)
	if len(lines) > 20 {
		lines = lines[:20] // the last one may be cut by the head
	}
	first := string(bytes.TrimRight(lines[0], "\r"))
	if strings.HasPrefix(first, `"log":`) {
		return FormatDockerJSONLog
	}
	if _, _, ok := parseCRI(first); ok {
		return FormatCRILog
	}
	if _, n := parseLogTime(first); n == 0 {
		return FormatUnknown
	}
	stamped, lead := 0, 0 // lines that start with a timestamp; lines not indented
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		lead++
		if _, n := parseLogTime(string(l)); n > 0 {
			stamped++
		}
	}
	if 3*stamped >= lead {
		return FormatTextLog
	}
	return FormatUnknown
}
