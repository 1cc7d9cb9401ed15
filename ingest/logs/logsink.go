package logs

import (
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/logtemplate"
)

// LogSink is what every log reader feeds: it folds multi-line records per
// stream, reads each record's level, trace context and JSON fields, mines
// its template (one Drain miner per service of the file, run sequentially
// as the file is read) and appends the compact LogRecord. One sink per
// input file; not safe for concurrent use.
type LogSink struct {
	name     string
	lim      ingest.Limits
	b        *ingest.Bundle
	in       *ingest.Interner
	fold     bool // fold continuation lines (off for sources that store records whole)
	miners   map[string]*logtemplate.Miner
	local    map[minedID]int32 // (group, miner template) → index in b.LogTemplates
	streams  map[ingest.LogStream]int32
	pending  []pendingRecord // per stream
	content  []byte          // scratch: the text that is mined
	limited  bool
	warned   int // malformed-line warnings emitted one by one
	bad      int // malformed lines in all
	cut      int // records cut to the fold bounds
	blank    int // empty lines skipped
	secScale int // times that were seconds, ms or µs in a nanosecond field

	budget    *logtemplate.Budget // templates of all the input's miners
	overflow  int32               // the overflow stream (budget.go), -1 until needed
	overRecs  int                 // lines of the streams past MaxLogStreams
	longRec   int                 // records cut to MaxLogRecordBytes
	pendBytes int                 // text of the pending records
	pressure  int                 // times maxPendingBytes finished every pending record
	counted   []countedCondition  // the readers' own conditions (Count), in the order first counted
}

// A Condition is a problem of one format that its reader counts on the
// sink (Count) and that Finish states in one summary warning, such as the
// Loki results without "stream" labels or the OTLP span documents among
// logs documents. A reader declares each of its conditions once, as a
// package variable: the sink tells conditions apart by their address.
type Condition struct {
	Err  error                       // the warning's kind (ingest.ErrPartialInput, ...)
	Text func(n, records int) string // the warning's text for n occurrences, records the log records read in all
}

// countedCondition is a condition with its count.
type countedCondition struct {
	c *Condition
	n int
}

// minedID names a template of one miner.
type minedID struct {
	group string
	id    int
}

// pendingRecord is a record whose continuation lines may still come.
type pendingRecord struct {
	active   bool
	st       int32 // its stream
	t        ingest.Time
	line     int32
	sev      ingest.Severity
	trace    ingest.TraceID
	span     ingest.SpanID
	msg      []byte
	lines    int
	excStart int // the line that names the exception in a folded stack trace, [excStart, excEnd) of msg
	excEnd   int
	mode     foldMode
}

// foldMode is the kind of stack trace a record is in the middle of.
type foldMode uint8

const (
	foldNone      foldMode = iota
	foldPython             // after "Traceback (most recent call last):"
	foldGoroutine          // after "goroutine N [...]:"
)

// maxFoldLines bounds the lines of a record (its bytes are bounded by
// Limits.MaxLogRecordBytes); further continuation lines are folded in but
// their text is dropped (counted).
const maxFoldLines = 200

// maxMalformedWarnings is how many malformed lines get a warning of their
// own (with file and line); the rest are counted in one summary warning.
const maxMalformedWarnings = 10

// NewLogSink returns a sink that adds the records of the input name to b,
// within lim.
func NewLogSink(name string, lim ingest.Limits, b *ingest.Bundle) *LogSink {
	lim = lim.WithDefaults()
	return &LogSink{name: name, lim: lim, b: b, in: ingest.NewInterner(lim.MaxStringBytes), fold: true,
		miners: map[string]*logtemplate.Miner{}, local: map[minedID]int32{}, streams: map[ingest.LogStream]int32{},
		budget: logtemplate.NewBudget(lim.MaxLogTemplatesTotal), overflow: -1}
}

// Name is the input the sink reads (the source of its records and
// warnings).
func (s *LogSink) Name() string { return s.name }

// Limits are the sink's limits, with their defaults.
func (s *LogSink) Limits() ingest.Limits { return s.lim }

// NoFold makes the sink keep each line as a record of its own, never
// folding continuation lines into the record before them: for sources that
// store records whole. Call it before the first Line.
func (s *LogSink) NoFold() { s.fold = false }

// Count counts n occurrences of the reader's condition c; Finish adds one
// warning per condition counted, in the order they were first counted.
func (s *LogSink) Count(c *Condition, n int) {
	for i := range s.counted {
		if s.counted[i].c == c {
			s.counted[i].n += n
			return
		}
	}
	s.counted = append(s.counted, countedCondition{c, n})
}

// Stream returns the index of the stream with these names (interned,
// deduplicated), creating it; past Limits.MaxLogStreams it is the one
// overflow stream.
func (s *LogSink) Stream(ls ingest.LogStream) int32 {
	ls.Service, ls.Pod, ls.Namespace = s.in.Get(ls.Service), s.in.Get(ls.Pod), s.in.Get(ls.Namespace)
	ls.Node, ls.Container, ls.Source = s.in.Get(ingest.NormalizeHost(ls.Node)), s.in.Get(ls.Container), s.name
	if ls.EntityFrom == "" && (ls.Service != "" || ls.Pod != "") {
		ls.EntityFrom = "labels"
	}
	if id, ok := s.streams[ls]; ok {
		return id
	}
	if len(s.streams) >= s.lim.MaxLogStreams {
		if s.overflow < 0 {
			s.overflow = int32(len(s.b.LogStreams))
			s.b.LogStreams = append(s.b.LogStreams, ingest.LogStream{Source: s.name, EntityFrom: OverflowEntity})
			s.pending = append(s.pending, pendingRecord{})
		}
		return s.overflow
	}
	id := int32(len(s.b.LogStreams))
	s.b.LogStreams = append(s.b.LogStreams, ls)
	s.pending = append(s.pending, pendingRecord{})
	s.streams[ls] = id
	return id
}

// Full reports whether the record limit stops the reading: a reader stops
// feeding lines once it does.
func (s *LogSink) Full() bool { return s.limited }

// Malformed records a line that could not be read (file and line, or
// byte offset off when line is 0, neither when both are unknown: line 0,
// off -1), with a warning of its own for the first ones and in a count
// after them.
func (s *LogSink) Malformed(line int, off int64, format string, args ...any) {
	s.bad++
	if s.warned >= maxMalformedWarnings {
		return
	}
	s.warned++
	where := s.name
	switch {
	case line > 0:
		where = fmt.Sprintf("%s:%d", s.name, line)
	case off >= 0:
		if l, c := ingest.Locate(s.name, off); l > 0 {
			where = fmt.Sprintf("%s:%d:%d", s.name, l, c)
		} else {
			where = fmt.Sprintf("%s: byte %d", s.name, off)
		}
	}
	s.b.Warn(ingest.ErrBadValue, s.name, 1, "%s: %s (skipped)", where, fmt.Sprintf(format, args...))
}

// Fields are what a source's structure says about a record (they win over
// what the text says); zero values say nothing.
type Fields struct {
	Severity ingest.Severity
	Trace    ingest.TraceID
	Span     ingest.SpanID
}

// Line feeds one line (or one source record) of stream st (an index from
// Stream), at time t, line lineNo of the input (0 when it has none); msg is
// copied. A line that continues the stream's pending record (a stack frame,
// "Caused by: ...") is folded into it; otherwise the pending record is
// finished and this line starts the next one.
func (s *LogSink) Line(st int32, t ingest.Time, lineNo int, msg string, f Fields) {
	if s.limited {
		return
	}
	for len(msg) > 0 && (msg[len(msg)-1] == '\n' || msg[len(msg)-1] == '\r') {
		msg = msg[:len(msg)-1]
	}
	if strings.TrimSpace(msg) == "" {
		s.blank++
		return
	}
	if t <= 0 {
		s.Malformed(lineNo, -1, "a log time before 1970")
		return
	}
	if st == s.overflow {
		s.overRecs++
	}
	maxBytes := s.lim.MaxLogRecordBytes
	p := &s.pending[st]
	if s.fold && p.active && p.continues(msg) {
		if p.lines >= maxFoldLines || len(p.msg)+1+len(msg) > maxBytes {
			if p.lines == maxFoldLines || len(p.msg) < maxBytes {
				s.cut++
			}
			p.lines++
			return
		}
		start := len(p.msg) + 1
		p.msg = append(append(p.msg, '\n'), msg...)
		s.pendBytes += 1 + len(msg)
		p.lines++
		if p.excEnd == 0 && isExceptionLine(msg, p.mode) {
			p.excStart, p.excEnd = start, len(p.msg)
		}
		return
	}
	s.Flush(st)
	if len(msg) > maxBytes {
		msg = CutText(msg, maxBytes)
		s.longRec++
	}
	*p = pendingRecord{active: true, st: st, t: t, line: int32(min(lineNo, 1<<31-1)), sev: f.Severity, trace: f.Trace, span: f.Span,
		msg: append(p.msg[:0], msg...), lines: 1}
	p.mode = p.startMode(msg)
	s.pendBytes += len(msg)
	if !s.fold {
		s.Flush(st)
	} else if s.pendBytes > MaxPendingBytes {
		s.pressure++
		s.flushAll()
		for i := range s.pending { // their buffers go too
			s.pending[i].msg = nil
		}
	}
}

// Flush finishes stream st's pending record, if any: a reader calls it at
// the end of a stream's lines.
func (s *LogSink) Flush(st int32) {
	p := &s.pending[st]
	if !p.active {
		return
	}
	p.active = false
	s.pendBytes -= len(p.msg)
	if len(s.b.Logs) >= s.lim.MaxLogRecords {
		s.limited = true
		return
	}
	msg := unsafeStr(p.msg)
	first := msg
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		first = msg[:i]
	}
	sev, trace, span := p.sev, p.trace, p.span
	text := first
	if len(first) > 1 && first[0] == '{' {
		if jf := jsonMessage(first); jf.isObject {
			text = jf.text
			if sev == ingest.SeverityUnknown {
				sev = jf.sev
			}
			if trace == (ingest.TraceID{}) {
				trace = jf.trace
			}
			if span == 0 {
				span = jf.span
			}
			if i := strings.IndexByte(text, '\n'); i >= 0 { // a message with its own stack trace
				text = text[:i]
			}
		}
	}
	hsev, at := parseHeader(text)
	if sev == ingest.SeverityUnknown {
		sev = hsev
	}
	if trace == (ingest.TraceID{}) || span == 0 {
		t2, s2 := findTraceContext(text)
		if trace == (ingest.TraceID{}) {
			trace = t2
		}
		if span == 0 && (trace == t2 || t2 == (ingest.TraceID{})) {
			span = s2
		}
	}
	s.content = append(s.content[:0], text[at:]...)
	if p.excEnd > p.excStart {
		s.content = append(append(s.content, ' '), p.msg[p.excStart:p.excEnd]...)
	}
	ls := &s.b.LogStreams[p.st]
	group := ls.Service
	m := s.miners[group]
	if m == nil {
		m = logtemplate.New(MinerParams(s.lim, s.budget))
		s.miners[group] = m
	}
	mid := minedID{group, m.Add(unsafeStr(s.content))}
	ti, ok := s.local[mid]
	if !ok {
		ti = int32(len(s.b.LogTemplates))
		s.local[mid] = ti
		s.b.LogTemplates = append(s.b.LogTemplates, ingest.LogTemplate{Group: group, First: p.t, Example: ingest.TruncateExample(msg),
			ExampleSource: s.name, ExampleLine: p.line})
	}
	tp := &s.b.LogTemplates[ti]
	if p.t < tp.First {
		tp.First, tp.Example, tp.ExampleLine = p.t, ingest.TruncateExample(msg), p.line
	}
	tp.Count++
	tp.Severities[sev]++
	s.b.Logs = append(s.b.Logs, ingest.LogRecord{Time: p.t, TraceID: trace, SpanID: span, Stream: p.st,
		Template: ti, Line: p.line, Severity: sev})
}

// flushAll finishes every stream's pending record.
func (s *LogSink) flushAll() {
	for i := range s.pending {
		s.Flush(int32(i))
	}
}

// Finish flushes, sets every template's final pattern and adds the
// summary warnings; a reader calls it once, after its last line.
func (s *LogSink) Finish() {
	s.flushAll()
	for mid, ti := range s.local {
		s.b.LogTemplates[ti].Pattern = s.miners[mid.group].Template(mid.id).Pattern
	}
	b := s.b
	var cuts MinerCuts
	for _, g := range slices.Sorted(maps.Keys(s.miners)) {
		cuts.Add(s.miners[g].Stats())
	}
	cuts.Warn(b, s.name, "log lines", s.lim)
	for _, c := range s.counted {
		if c.n > 0 {
			b.Warn(c.c.Err, s.name, c.n, "%s", c.c.Text(c.n, len(b.Logs)))
		}
	}
	if s.overRecs > 0 {
		b.Warn(ingest.ErrLimit, s.name, s.overRecs, "%d log lines of streams past the first %d kept in one unlabelled stream (--max-log-streams)", s.overRecs, s.lim.MaxLogStreams)
	}
	if s.longRec > 0 {
		b.Warn(ingest.ErrLimit, s.name, s.longRec, "%d log records longer than %d bytes cut (--max-log-record-size)", s.longRec, s.lim.MaxLogRecordBytes)
	}
	if s.pressure > 0 {
		b.Warn(ingest.ErrLimit, s.name, s.pressure, "more than %d MiB of log records waiting for continuation lines: finished early %d times (a stack trace may be split)", MaxPendingBytes>>20, s.pressure)
	}
	if s.bad > s.warned {
		b.Warn(ingest.ErrBadValue, s.name, s.bad-s.warned, "%d more malformed log lines skipped (%d in all; the first %d are listed)", s.bad-s.warned, s.bad, s.warned)
	}
	if s.cut > 0 {
		b.Warn(ingest.ErrLimit, s.name, s.cut, "%d multi-line log records cut to %d lines or %d KiB (--max-log-record-size)", s.cut, maxFoldLines, s.lim.MaxLogRecordBytes>>10)
	}
	if s.secScale > 0 {
		b.Warn(ingest.ErrSourceWarning, s.name, s.secScale, "%d log timestamps in a nanosecond field held seconds, milliseconds or microseconds (read by magnitude)", s.secScale)
	}
	if s.in.Truncated > 0 {
		b.Warn(ingest.ErrLimit, s.name, s.in.Truncated, "%d names longer than %d bytes truncated", s.in.Truncated, s.lim.MaxStringBytes)
	}
	if s.limited {
		b.Warn(ingest.ErrLimit, s.name, 1, "stopped after %d log records (--max-log-records-per-input); the rest of the input was not read", len(b.Logs))
	}
}

// nanosByMagnitude reads a Unix time from a field meant to hold
// nanoseconds but that real producers fill with seconds, milliseconds or
// microseconds: below 10^11 it is seconds, below 10^14 milliseconds, below
// 10^17 microseconds (10^11 s is the year 5138; 10^17 ns is 1973).
func (s *LogSink) nanosByMagnitude(v uint64) ingest.Time {
	switch {
	case v == 0:
		return 0
	case v < 1e11:
		s.secScale++
		return ingest.Time(v * 1e9)
	case v < 1e14:
		s.secScale++
		return ingest.Time(v * 1e6)
	case v < 1e17:
		s.secScale++
		return ingest.Time(v * 1e3)
	case v > 1<<63-1:
		return 0
	}
	return ingest.Time(v)
}

// startMode is the fold mode a record's first line opens.
func (p *pendingRecord) startMode(line string) foldMode {
	switch {
	case strings.HasPrefix(line, "Traceback (most recent call last)"):
		return foldPython
	case isGoroutineHeader(line):
		return foldGoroutine
	}
	return foldNone
}

// continues reports whether line continues the pending record: it is
// indented; or it starts with "at ", "Caused by:", "Suppressed:", "...",
// "Traceback (most recent call last)", "During handling of the above
// exception" / "The above exception was the direct cause"; or it is a Java
// exception header ("java.lang.IllegalStateException: ..."); or, in a
// Python traceback, the final "SomeError: message" line; or, after a
// "goroutine N [running]:" header, a Go stack frame ("main.main()",
// "created by ...") or the next goroutine header. The mode is updated.
func (p *pendingRecord) continues(line string) bool {
	c := line[0]
	if c == ' ' || c == '\t' {
		return true
	}
	switch {
	case strings.HasPrefix(line, "at "), strings.HasPrefix(line, "Caused by:"), strings.HasPrefix(line, "Suppressed:"),
		strings.HasPrefix(line, "..."):
		return true
	case strings.HasPrefix(line, "Traceback (most recent call last)"),
		strings.HasPrefix(line, "During handling of the above exception"),
		strings.HasPrefix(line, "The above exception was the direct cause"):
		p.mode = foldPython
		return true
	case isGoroutineHeader(line):
		p.mode = foldGoroutine
		return true
	case isJavaExceptionHeader(line):
		return true
	}
	switch p.mode {
	case foldPython:
		if isPythonExceptionLine(line) {
			p.mode = foldNone // the traceback ends with it
			return true
		}
	case foldGoroutine:
		if strings.HasPrefix(line, "created by ") || strings.HasSuffix(line, ")") && strings.IndexByte(line, '(') > 0 && !strings.ContainsRune(line[:strings.IndexByte(line, '(')], ' ') {
			return true
		}
	}
	return false
}

// isExceptionLine reports whether a folded line names the exception (it is
// mined with the record's first line: two stack traces under one log
// statement differ by what was thrown).
func isExceptionLine(line string, mode foldMode) bool {
	return isJavaExceptionHeader(line) || strings.HasPrefix(line, "Caused by:") || mode == foldNone && isPythonExceptionLine(line)
}

// isGoroutineHeader matches "goroutine 1 [running]:".
func isGoroutineHeader(line string) bool {
	rest, ok := strings.CutPrefix(line, "goroutine ")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(rest[i:], " [")
}

// isJavaExceptionHeader matches a fully qualified class name ending in
// Exception, Error or Throwable, followed by ':', '(' or the end of the
// line ("java.lang.IllegalStateException: No instances available",
// "org.apache.hadoop.ipc.RemoteException(…): …").
func isJavaExceptionHeader(line string) bool {
	end := strings.IndexAny(line, ":( ")
	if end < 0 {
		end = len(line)
	}
	name := line[:end]
	if end < len(line) && line[end] == ' ' {
		return false
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return false
	}
	cls := name[dot+1:]
	if cls[0] < 'A' || cls[0] > 'Z' || !(strings.HasSuffix(cls, "Exception") || strings.HasSuffix(cls, "Error") || strings.HasSuffix(cls, "Throwable")) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '$') {
			return false
		}
	}
	return true
}

// isPythonExceptionLine matches the last line of a Python traceback:
// "ValueError: bad input", "KeyboardInterrupt", "requests.exceptions.HTTPError: 500".
func isPythonExceptionLine(line string) bool {
	end := strings.IndexByte(line, ':')
	if end < 0 {
		end = len(line)
	}
	name := line[:end]
	if name == "" || !(name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z' || name[0] == '_') {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// unsafeStr views b as a string; b must not change while the view is used.
func unsafeStr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
