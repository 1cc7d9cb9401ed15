package ingest

import (
	"bytes"
)

// sniffLen is how many leading bytes Sniff looks at.
const sniffLen = 64 << 10

// Sniff guesses the format of an input from its first bytes (already
// decompressed). It never looks at the file name.
func Sniff(head []byte) Format {
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
		return sniffJSON(h)
	case '#':
		if bytes.Contains(h[:min(len(h), 2048)], []byte("gpu")) && bytes.Contains(h[:min(len(h), 2048)], []byte("Idx")) ||
			bytes.HasPrefix(h, []byte("# gpu")) {
			return FormatNvidiaSmiDmon
		}
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

// has reports whether the JSON head contains the quoted key.
func has(h []byte, key string) bool {
	return bytes.Contains(h, []byte(`"`+key+`"`))
}

func sniffJSON(h []byte) Format {
	switch {
	case has(h, "pipeline_analyze_nvml") || has(h, "nvml_version") && has(h, "samples"):
		return FormatNVMLRecording
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
