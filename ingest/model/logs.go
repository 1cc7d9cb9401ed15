package model

import (
	"fmt"
	"strings"
)

// Logs: the compact model every log reader fills (ingest/logs/loki,
// otlplogs, container, victorialogs). A record keeps what evidence needs — time,
// stream (entity), severity, trace link, template, position — never its
// text: each template keeps one example line instead.

// Severity is a log record's normalised level.
type Severity uint8

// Severities, in increasing order.
const (
	SeverityUnknown Severity = iota
	SeverityTrace
	SeverityDebug
	SeverityInfo
	SeverityWarn
	SeverityError
	SeverityFatal
	numSeverities
)

var severityNames = [...]string{"unknown", "trace", "debug", "info", "warn", "error", "fatal"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", s)
}

// ParseSeverity maps a level name in its common spellings (any case:
// "ERROR", "err", "Information", "warning", "crit", "panic", "dpanic",
// "notice", "severe", "fine", "verbose", "E", ...) to a Severity; ok is false
// for anything else.
func ParseSeverity(s string) (Severity, bool) {
	if len(s) == 0 || len(s) > 13 {
		return SeverityUnknown, false
	}
	var buf [13]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(s)]) {
	case "trace", "trc", "finest", "finer", "verbose", "vrb", "t":
		return SeverityTrace, true
	case "debug", "dbg", "fine", "config", "d":
		return SeverityDebug, true
	case "info", "inf", "information", "informational", "notice", "i":
		return SeverityInfo, true
	case "warn", "warning", "wrn", "w":
		return SeverityWarn, true
	case "error", "err", "eror", "severe", "e":
		return SeverityError, true
	case "fatal", "critical", "crit", "panic", "dpanic", "emerg", "emergency", "alert", "ftl", "f", "c":
		return SeverityFatal, true
	}
	return SeverityUnknown, false
}

// SeverityFromNumber maps an OpenTelemetry SeverityNumber (1–24) to a
// Severity: 1–4 trace, 5–8 debug, 9–12 info, 13–16 warn, 17–20 error,
// 21–24 fatal.
func SeverityFromNumber(n int) Severity {
	if n < 1 || n > 24 {
		return SeverityUnknown
	}
	return Severity(1 + (n-1)/4)
}

// LogStream is one source of log records on one entity: a Loki stream, an
// OTLP resource, a container's log file. Names are as the source gives them
// (Finalize matches Service onto trace services).
type LogStream struct {
	Service   string
	Pod       string
	Namespace string
	Node      string
	Container string
	// EntityFrom says where Service and Pod come from: "labels" (the data
	// itself), "path" (a Kubernetes log path), "file name", "flag"
	// (Options.LogEntity), "trace" (the span a record links to), or "" when
	// the stream names no entity.
	EntityFrom string
	Source     string // the input file
}

// Entity returns the most specific entity the stream names: its pod (with
// its service), else its service, else its node; KindUnknown when none.
func (s *LogStream) Entity() Entity {
	switch {
	case s.Pod != "":
		svc := s.Service
		if svc == "" {
			svc = WorkloadOf(s.Pod)
		}
		return Entity{Kind: KindPod, Name: s.Pod, Service: svc, Node: s.Node}
	case s.Service != "":
		return Entity{Kind: KindService, Name: s.Service, Service: s.Service, Node: s.Node}
	case s.Node != "":
		return Entity{Kind: KindNode, Name: s.Node, Node: s.Node}
	}
	return Entity{}
}

// LogRecord is one log record (a multi-line record folded into one). It
// holds no text: Template names the log statement, whose LogTemplate keeps
// an example.
type LogRecord struct {
	Time     Time
	TraceID  TraceID // zero when the record names no trace
	SpanID   SpanID  // zero when the record names no span
	Stream   int32   // index in Bundle.LogStreams
	Template int32   // index in Bundle.LogTemplates
	Line     int32   // 1-based line of the record's first line in its file, 0 when not line-based
	Severity Severity
}

// maxLogExample is the longest example line a template keeps (bytes).
const maxLogExample = 300

// LogTemplate is one mined log template (logtemplate.Miner) over the
// records of one mining group. Finalize merges the templates of all files
// and sorts them by (Group, Pattern): a template's index is its ID.
type LogTemplate struct {
	Pattern string // masked tokens, variable positions as "<*>"
	// Group is the service whose records it was mined from ("" for records
	// whose stream names no service).
	Group         string
	Example       string // the earliest record's message, truncated to 300 bytes
	ExampleSource string // the file and
	ExampleLine   int32  // line of the example (0 when not line-based)
	First         Time   // the earliest record's time
	Count         int
	Severities    [numSeverities]int // records per severity
}

// Severity returns the template's most frequent severity (the more severe
// one on a tie).
func (t *LogTemplate) Severity() Severity {
	best := SeverityUnknown
	for s := Severity(1); s < numSeverities; s++ {
		if t.Severities[s] > 0 && t.Severities[s] >= t.Severities[best] {
			best = s
		}
	}
	return best
}

// TruncateExample cuts a message to maxLogExample bytes (at a rune
// boundary), marking the cut with "…".
func TruncateExample(s string) string {
	if len(s) <= maxLogExample {
		return strings.Clone(s)
	}
	return TruncateUTF8(s, maxLogExample-len("…")) + "…"
}
