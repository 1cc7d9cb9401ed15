package container

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"
)

// Line-oriented log files: Docker json-file logs (and fluent-bit records
// with a "log" field), CRI container logs, and timestamped text such as
// `kubectl logs --timestamps` output. All are streamed line by line; a line
// that cannot be read is a warning with file and line, and the rest is read.
//
// Entity of a file (the data names none): the Kubernetes log paths
// /var/log/pods/<namespace>_<pod>_<uid>/<container>/N.log and
// /var/log/containers/<pod>_<namespace>_<container>-<id>.log; a base name
// of the same three-part shape "<a>_<b>_<c>" (the pod is the part with a
// generated pod-name suffix, the other the namespace, c the container);
// else the base name without extensions — a pod when it ends in a
// generated pod-name suffix, a service otherwise. Options.LogEntity
// overrides the file name (not a Kubernetes path, never labels).

// parseLogTime parses a timestamp at the start of line — RFC 3339
// ("2026-11-30T03:12:00.123456789Z"), or a date and a time joined by a space
// ("2023-01-29 16:42:10,175"), with an optional zone (none = UTC) — that a
// space, a tab or the end follows. It returns the time and the bytes
// consumed with one following blank (0 when line does not start with one).
func parseLogTime(line string) (ingest.Time, int) {
	if len(line) < 19 || !isDigitByte(line[0]) {
		return 0, 0
	}
	num := func(s string) (int, bool) {
		v := 0
		for i := 0; i < len(s); i++ {
			if !isDigitByte(s[i]) {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	y, ok1 := num(line[0:4])
	mo, ok2 := num(line[5:7])
	d, ok3 := num(line[8:10])
	h, ok4 := num(line[11:13])
	mi, ok5 := num(line[14:16])
	sec, ok6 := num(line[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || line[4] != line[7] || (line[4] != '-' && line[4] != '/') ||
		(line[10] != 'T' && line[10] != ' ') || line[13] != ':' || line[16] != ':' ||
		mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970 || y > 2261 {
		return 0, 0 // (nanoseconds since 1970 in an int64 end in 2262)
	}
	i := 19
	nanos := 0
	if i < len(line) && (line[i] == '.' || line[i] == ',') {
		j := i + 1
		scale := 100_000_000
		for j < len(line) && isDigitByte(line[j]) {
			nanos += int(line[j]-'0') * scale
			scale /= 10
			j++
		}
		if j == i+1 {
			return 0, 0
		}
		i = j
	}
	off := 0
	if i < len(line) {
		switch c := line[i]; {
		case c == 'Z' || c == 'z':
			i++
		case c == '+' || c == '-':
			z := line[i+1:]
			zh, zm, n := 0, 0, 0
			if len(z) >= 5 && z[2] == ':' {
				zh, _ = num(z[0:2])
				zm, _ = num(z[3:5])
				n = 5
			} else if len(z) >= 4 && isDigitByte(z[0]) && isDigitByte(z[1]) && isDigitByte(z[2]) && isDigitByte(z[3]) {
				zh, _ = num(z[0:2])
				zm, _ = num(z[2:4])
				n = 4
			}
			if n == 0 {
				return 0, 0
			}
			off = (zh*60 + zm) * 60
			if c == '-' {
				off = -off
			}
			i += 1 + n
		}
	}
	if i < len(line) && line[i] != ' ' && line[i] != '\t' {
		return 0, 0
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nanos, time.UTC).Add(-time.Duration(off) * time.Second)
	if i < len(line) {
		i++
	}
	return ingest.FromTime(t), i
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// criLine is one parsed CRI log line.
type criLine struct {
	t       ingest.Time
	stderr  bool
	partial bool
}

// parseCRI parses "<RFC 3339> stdout|stderr P|F message" and returns the
// fields and the message.
func parseCRI(line string) (criLine, string, bool) {
	t, n := parseLogTime(line)
	if n == 0 || line[10] != 'T' {
		return criLine{}, "", false
	}
	rest := line[n:]
	var c criLine
	c.t = t
	switch {
	case strings.HasPrefix(rest, "stdout "):
		rest = rest[7:]
	case strings.HasPrefix(rest, "stderr "):
		rest, c.stderr = rest[7:], true
	default:
		return criLine{}, "", false
	}
	tag := rest
	if i := strings.IndexByte(rest, ' '); i >= 0 {
		tag, rest = rest[:i], rest[i+1:]
	} else {
		rest = ""
	}
	switch tag {
	case "F":
	case "P":
		c.partial = true
	default:
		return criLine{}, "", false
	}
	return c, rest, true
}

// entityFromPath places a log file by its path (see the top of this file).
func entityFromPath(name string) ingest.LogStream {
	if name == "" || name == "<stdin>" || name == "-" {
		return ingest.LogStream{}
	}
	p := filepath.ToSlash(name)
	if i := strings.Index(p, "/pods/"); i >= 0 {
		parts := strings.Split(p[i+len("/pods/"):], "/")
		if len(parts) == 3 {
			if f := strings.Split(parts[0], "_"); len(f) == 3 && f[1] != "" {
				return ingest.LogStream{Namespace: f[0], Pod: f[1], Container: parts[1], EntityFrom: "path"}
			}
		}
	}
	base := path.Base(p)
	for _, ext := range []string{".gz", ".log", ".txt", ".json", ".jsonl"} {
		base = strings.TrimSuffix(base, ext)
	}
	if f := strings.Split(base, "_"); len(f) == 3 && f[0] != "" && f[1] != "" && f[2] != "" {
		if k := strings.LastIndexByte(f[2], '-'); k > 0 && len(f[2])-k-1 == 64 && allHex(f[2][k+1:]) {
			from := "file name"
			if strings.Contains(p, "/containers/") {
				from = "path"
			}
			return ingest.LogStream{Pod: f[0], Namespace: f[1], Container: f[2][:k], EntityFrom: from}
		}
		switch {
		case ingest.WorkloadOf(f[0]) != f[0]:
			return ingest.LogStream{Pod: f[0], Namespace: f[1], Container: f[2], EntityFrom: "file name"}
		case ingest.WorkloadOf(f[1]) != f[1]:
			return ingest.LogStream{Namespace: f[0], Pod: f[1], Container: f[2], EntityFrom: "file name"}
		}
	}
	base = strings.TrimSuffix(base, "-json")
	switch {
	case base == "" || len(base) >= 32 && allHex(base): // a bare container ID
		return ingest.LogStream{}
	case ingest.WorkloadOf(base) != base:
		return ingest.LogStream{Pod: base, EntityFrom: "file name"}
	}
	return ingest.LogStream{Service: base, EntityFrom: "file name"}
}

// dockerRecord is one Docker json-file line or fluent-bit record.
type dockerRecord struct {
	Log        *string    `json:"log"`
	Stream     string     `json:"stream"`
	Time       string     `json:"time"`
	Date       *float64   `json:"date"`
	Kubernetes *fluentK8s `json:"kubernetes"`
}

// fluentK8s is fluent-bit's kubernetes filter metadata.
type fluentK8s struct {
	PodName       string            `json:"pod_name"`
	NamespaceName string            `json:"namespace_name"`
	ContainerName string            `json:"container_name"`
	Host          string            `json:"host"`
	Labels        map[string]string `json:"labels"`
}

// containerState joins a container's partial lines (CRI "P", Docker
// entries without a trailing newline) per output stream.
type containerState struct {
	s       *logs.LogSink
	st      int32
	partial [2][]byte // stdout, stderr
	pt      [2]ingest.Time
	pline   [2]int
}

// emit feeds one physical line, joining partial ones until the final part.
func (c *containerState) emit(t ingest.Time, lineNo int, stderr, partial bool, msg string) {
	k := 0
	if stderr {
		k = 1
	}
	if partial {
		if len(c.partial[k]) == 0 {
			c.pt[k], c.pline[k] = t, lineNo
		}
		if len(c.partial[k])+len(msg) <= c.s.Limits().MaxLogRecordBytes {
			c.partial[k] = append(c.partial[k], msg...)
		}
		return
	}
	if len(c.partial[k]) > 0 {
		c.partial[k] = append(c.partial[k], msg...)
		c.s.Line(c.st, c.pt[k], c.pline[k], unsafeStr(c.partial[k]), logs.Fields{})
		c.partial[k] = c.partial[k][:0]
		return
	}
	c.s.Line(c.st, t, lineNo, msg, logs.Fields{})
}

// flush emits partial lines left at the end of the input.
func (c *containerState) flush() {
	for k := range c.partial {
		if len(c.partial[k]) > 0 {
			c.s.Line(c.st, c.pt[k], c.pline[k], unsafeStr(c.partial[k]), logs.Fields{})
			c.partial[k] = nil
		}
	}
	c.s.Flush(c.st) // its own stream only: one flushAll per container was quadratic in streams
}

// decodeDockerJSON reads Docker json-file lines ({"log","stream","time"})
// or fluent-bit records (a JSON array or JSON Lines of objects with "log"
// and "kubernetes" metadata). A "log" holding several lines is split; a
// line in it with a CRI prefix (a CRI file tailed without its parser) is
// read as CRI. A line that lost its opening brace is read as if it had one,
// with a warning.
func decodeDockerJSON(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	pathStream := entityFromPath(name)
	states := map[int32]*containerState{}
	state := func(k *fluentK8s) *containerState {
		ls := pathStream
		if k != nil && (k.PodName != "" || k.Labels["app"] != "") {
			ls = ingest.LogStream{Pod: k.PodName, Namespace: k.NamespaceName, Container: k.ContainerName, Node: k.Host,
				Service: logs.FirstLabel(func(n string) string { return k.Labels[n] }, []string{"app.kubernetes.io/name", "app", "k8s-app"})}
		}
		st := s.Stream(ls)
		c := states[st]
		if c == nil {
			c = &containerState{s: s, st: st}
			states[st] = c
		}
		return c
	}
	record := func(rec *dockerRecord, lineNo int, off int64) {
		if rec.Log == nil {
			s.Malformed(lineNo, off, `a JSON object without a "log" field`)
			return
		}
		var t ingest.Time
		switch {
		case rec.Time != "":
			tt, err := time.Parse(time.RFC3339Nano, rec.Time)
			if err == nil && !logs.YearOK(tt) {
				err = errors.New("out of range")
			}
			if err != nil {
				s.Malformed(lineNo, off, "bad time %q", ingest.TruncateUTF8(rec.Time, 40))
				return
			}
			t = ingest.FromTime(tt)
		case rec.Date != nil:
			if d := *rec.Date; d > 0 && d < 9e9 {
				t = ingest.Time(d * 1e9)
			}
		}
		c := state(rec.Kubernetes)
		text := *rec.Log
		docker := rec.Stream != "" && rec.Kubernetes == nil
		complete := strings.HasSuffix(text, "\n")
		text = strings.TrimSuffix(text, "\n")
		for k, part := range strings.Split(text, "\n") {
			if cl, msg, ok := parseCRI(part); ok {
				c.emit(cl.t, lineNo+k, cl.stderr, cl.partial, msg)
				continue
			}
			if t == 0 {
				s.Malformed(lineNo, off, "a record without a time")
				return
			}
			c.emit(t, lineNo, rec.Stream == "stderr", docker && !complete, part)
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if c, _ := peekNonSpace(br); c == '[' {
		dec := json.NewDecoder(br)
		if _, err := dec.Token(); err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
		for dec.More() && !s.Full() {
			off := dec.InputOffset()
			var rec dockerRecord
			if err := dec.Decode(&rec); err != nil {
				if len(b.Logs) == 0 {
					return nil, ingest.JSONErrorAt(name, err, dec, off)
				}
				b.Warn(ingest.ErrPartialInput, name, 1, "kept %d log records: %v", len(b.Logs), ingest.JSONErrorAt(name, err, dec, off))
				break
			}
			record(&rec, 0, off)
		}
	} else {
		lr := logs.NewLineReader(br)
		if err := lr.Each(s, func(line string) {
			trimmed := strings.TrimSpace(line)
			raw := []byte(trimmed)
			if strings.HasPrefix(trimmed, `"log":`) {
				raw = append([]byte{'{'}, raw...)
				b.Warn(ingest.ErrBadValue, name, 1, "%s:%d: a JSON object without its opening brace; read as if it had one", name, lr.N())
			}
			var rec dockerRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				s.Malformed(lr.N(), -1, "not a Docker json-file line: %v", err)
				return
			}
			record(&rec, lr.N(), -1)
		}); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(states)) { // in stream order: deterministic
		states[k].flush()
	}
	s.Finish()
	return b, nil
}

// peekNonSpace returns the first byte that is not white space, unread.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		p, err := br.Peek(i)
		if len(p) < i {
			return 0, err
		}
		switch p[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return p[i-1], nil
	}
}

// decodeCRI reads CRI container log lines.
func decodeCRI(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	c := &containerState{s: s, st: s.Stream(entityFromPath(name))}
	lr := logs.NewLineReader(r)
	if err := lr.Each(s, func(line string) {
		cl, msg, ok := parseCRI(line)
		if !ok {
			s.Malformed(lr.N(), -1, "not a CRI log line (<RFC 3339 time> stdout|stderr P|F message)")
			return
		}
		c.emit(cl.t, lr.N(), cl.stderr, cl.partial, msg)
	}); err != nil {
		return nil, err
	}
	c.flush()
	s.Finish()
	return b, nil
}

// decodeTextLog reads lines that start with a timestamp (kubectl logs
// --timestamps, application logs). A line without one continues the record
// before it (a stack frame) and takes its time.
func decodeTextLog(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	st := s.Stream(entityFromPath(name))
	lr := logs.NewLineReader(r)
	var last ingest.Time
	if err := lr.Each(s, func(line string) {
		t, n := parseLogTime(line)
		if n == 0 {
			if last == 0 {
				s.Malformed(lr.N(), -1, "a line without a timestamp before any timestamped line")
				return
			}
			t = last
		}
		last = t
		s.Line(st, t, lr.N(), line[n:], logs.Fields{})
	}); err != nil {
		return nil, err
	}
	s.Finish()
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatDockerJSONLog, Decode: decodeDockerJSON,
		Sniff: []ingest.SniffRule{
			{Priority: ingest.PriorityDockerJSON, Match: func(h *ingest.Head) bool {
				if !h.JSON() || !h.Has("_msg") && !h.Has("_time") && !h.Has("log") {
					return false // none of the keys appears at all (cheap)
				}
				k := h.TopKeys()
				return !(k["_msg"] || k["_time"] && k["_stream"]) && k["log"] && (k["stream"] || k["time"] || k["kubernetes"] || k["date"])
			}},
			{Priority: ingest.PriorityDockerJSONBroken, Match: func(h *ingest.Head) bool { // a line that lost its opening brace
				return !h.JSON() && bytes.HasPrefix(bytes.TrimRight(h.FirstLine(), "\r"), []byte(`"log":`))
			}},
		}})
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatCRILog, Decode: decodeCRI,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityCRILog, Match: func(h *ingest.Head) bool {
			_, _, ok := parseCRI(string(bytes.TrimRight(h.FirstLine(), "\r")))
			return !h.JSON() && ok
		}}}})
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatTextLog, Decode: decodeTextLog,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityTextLog, Match: func(h *ingest.Head) bool { return !h.JSON() && timestampedText(h.Text) }}}})
}

// timestampedText reports whether a text head is a log whose lines start
// with a timestamp (kubectl logs --timestamps, most application logs): its
// first line does, and at least a third of the first 20 lines that are not
// indented do (the rest may be stack traces).
func timestampedText(h []byte) bool {
	lines := bytes.SplitN(h, []byte("\n"), 21)
	if len(lines) > 20 {
		lines = lines[:20] // the last one may be cut by the head
	}
	if _, n := parseLogTime(string(bytes.TrimRight(lines[0], "\r"))); n == 0 {
		return false
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
	return 3*stamped >= lead
}

// allHex reports whether s is a non-empty string of hexadecimal digits.
func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if ingest.HexVal[s[i]] < 0 {
			return false
		}
	}
	return len(s) > 0
}

// unsafeStr views b as a string; b must not change while the view is used.
func unsafeStr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
