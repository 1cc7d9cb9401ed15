package logs

import (
	"encoding/json"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"sort"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/logtemplate"
)

// What a log line says about itself, found without knowing its format:
// its level (parseHeader), the trace it belongs to (findTraceContext), and,
// for JSON lines, the message and fields inside (jsonMessage).

// maxHeaderTokens is how many leading tokens parseHeader looks at.
const maxHeaderTokens = 6

// parseHeader finds a level token among the first tokens of a message's
// first line and returns it with the offset where the statement's own text
// starts (after the leading timestamps and the level). Accepted level
// forms: a level word ("ERROR", "[warn]", "<INFO>", "Information:", the
// "ERROR:" of Python's "ERROR:root:msg"), key=value ("level=error",
// "lvl=warn", "severity=info", logfmt anywhere in the first tokens), and
// klog/glog's "E0129" (letter IWEF and mmdd). A bare level word counts only
// after tokens that look like a line prefix: timestamps, numbers (PIDs) and
// [bracketed] names. SeverityUnknown when none.
func parseHeader(msg string) (ingest.Severity, int) {
	sev := ingest.SeverityUnknown
	content := 0
	prefixOnly := true // every token so far looked like a line prefix
	klog := false
	i := 0
	for n := 0; n < maxHeaderTokens && i < len(msg); n++ {
		for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t') {
			i++
		}
		j := i
		for j < len(msg) && msg[j] != ' ' && msg[j] != '\t' && msg[j] != '\n' {
			j++
		}
		if j == i {
			break
		}
		tok := msg[i:j]
		core := trimBrackets(tok)
		// key=value
		if k := strings.IndexByte(core, '='); k > 0 {
			switch strings.ToLower(core[:k]) {
			case "level", "lvl", "severity", "loglevel", "log.level":
				if s, ok := ingest.ParseSeverity(strings.Trim(core[k+1:], `"'`)); ok && sev == ingest.SeverityUnknown {
					sev = s
				}
			}
			prefixOnly = false
			i = j
			continue
		}
		if sev == ingest.SeverityUnknown && prefixOnly {
			word := core
			for len(word) > 0 && word[len(word)-1] == ':' {
				word = word[:len(word)-1]
			}
			if k := strings.IndexByte(core, ':'); k > 0 && k < len(core)-1 {
				word = core[:k] // "ERROR:root:message"
			}
			if len(word) >= 3 {
				if s, ok := ingest.ParseSeverity(word); ok {
					sev = s
					content = j
					if k := strings.IndexByte(core, ':'); k > 0 && k < len(core)-1 {
						content = i + strings.IndexByte(tok, ':') + 1
					}
					break
				}
			}
			if len(core) == 5 && strings.IndexByte("IWEF", core[0]) >= 0 && ingest.IsDigits(core[1:]) { // klog
				sev, _ = ingest.ParseSeverity(core[:1])
				content, klog = j, true
				i = j
				continue
			}
		}
		switch {
		case logtemplate.IsTimestamp(core), ingest.IsDigits(core):
			if prefixOnly && (sev == ingest.SeverityUnknown || klog) {
				content = j
			}
		case len(tok) > 2 && tok[0] == '[' && tok[len(tok)-1] == ']':
		default:
			prefixOnly = false
		}
		i = j
	}
	return sev, content
}

// trimBrackets trims the brackets, pipes and parentheses around a token.
func trimBrackets(tok string) string {
	isB := func(c byte) bool {
		return c == '[' || c == ']' || c == '<' || c == '>' || c == '(' || c == ')' || c == '|'
	}
	for len(tok) > 0 && isB(tok[0]) {
		tok = tok[1:]
	}
	for len(tok) > 0 && isB(tok[len(tok)-1]) {
		tok = tok[:len(tok)-1]
	}
	return tok
}

// findTraceContext finds a trace ID (and span ID) in free text: a key
// containing "trace" (any case: "trace_id=", "TraceID: ", `"traceId":"`)
// followed within a few separator bytes by 32 or 16 hex digits, or by a W3C
// traceparent value ("traceparent: 00-<32 hex>-<16 hex>-<2 hex>", which
// gives the span too); likewise a key containing "span" for the span ID
// (16 hex digits). Zero IDs do not count. It looks at the first 4 KiB only.
func findTraceContext(msg string) (ingest.TraceID, ingest.SpanID) {
	if len(msg) > 4096 {
		msg = msg[:4096]
	}
	var tid ingest.TraceID
	var sid ingest.SpanID
	// "race"/"RACE" and "pan"/"PAN" are found with strings.Index (fast);
	// the byte before must be t/T, s/S.
	for _, w := range [...]string{"race", "RACE"} {
		for from := 0; tid == (ingest.TraceID{}); {
			k := strings.Index(msg[from:], w)
			if k < 0 {
				break
			}
			k += from
			from = k + len(w)
			if k == 0 || msg[k-1]|0x20 != 't' {
				continue
			}
			if v, n := hexAfterKey(msg, k+4, 32, 16); n > 0 {
				if id, err := ingest.ParseTraceID(v); err == nil {
					tid = id
				}
			} else if t2, s2, ok := traceparentAfterKey(msg, k+4); ok {
				tid, sid = t2, s2
			}
		}
	}
	for _, w := range [...]string{"pan", "PAN"} {
		for from := 0; sid == 0; {
			k := strings.Index(msg[from:], w)
			if k < 0 {
				break
			}
			k += from
			from = k + len(w)
			if k == 0 || msg[k-1]|0x20 != 's' {
				continue
			}
			if v, n := hexAfterKey(msg, k+3, 16, 16); n > 0 {
				if id, err := ingest.ParseSpanID(v); err == nil {
					sid = id
				}
			}
		}
	}
	return tid, sid
}

// traceparentAfterKey reads a W3C traceparent value after a key's rest and
// separators, as hexAfterKey does.
func traceparentAfterKey(msg string, i int) (ingest.TraceID, ingest.SpanID, bool) {
	for k := 0; i < len(msg) && k < 12 && msg[i] != ':' && msg[i] != '=' && msg[i] != ' ' && msg[i] != '"'; k++ {
		i++
	}
	for k := 0; i < len(msg) && k < 4 && (msg[i] == ':' || msg[i] == '=' || msg[i] == ' ' || msg[i] == '"' || msg[i] == '\''); k++ {
		i++
	}
	if i+55 > len(msg) {
		return ingest.TraceID{}, 0, false
	}
	p := msg[i : i+55]
	if p[:3] != "00-" || p[35] != '-' || p[52] != '-' || !allHexStr(p[3:35]) || !allHexStr(p[36:52]) || !allHexStr(p[53:55]) ||
		i+55 < len(msg) && isHexByte(msg[i+55]) {
		return ingest.TraceID{}, 0, false
	}
	tid, err1 := ingest.ParseTraceID(p[3:35])
	sid, err2 := ingest.ParseSpanID(p[36:52])
	if err1 != nil || err2 != nil || tid == (ingest.TraceID{}) {
		return ingest.TraceID{}, 0, false
	}
	return tid, sid, true
}

func isHexByte(c byte) bool { return ingest.HexVal[c] >= 0 }

func allHexStr(s string) bool {
	for i := 0; i < len(s); i++ {
		if ingest.HexVal[s[i]] < 0 {
			return false
		}
	}
	return len(s) > 0
}

// hexAfterKey skips the rest of a key (letters, digits, '_', '-', '.', at
// most 12) and then 1 to 4 separator bytes (':', '=', space, quotes) from
// msg[i:], and returns a following hex run whose length is long or short
// (and that a letter or digit does not continue).
func hexAfterKey(msg string, i, long, short int) (string, int) {
	k := 0
	for i < len(msg) && k < 12 {
		c := msg[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			break
		}
		i++
		k++
	}
	seps := 0
	for i < len(msg) && seps < 4 {
		c := msg[i]
		if c != ':' && c != '=' && c != ' ' && c != '"' && c != '\'' {
			break
		}
		i++
		seps++
	}
	if seps == 0 {
		return "", 0
	}
	j := i
	for j < len(msg) && isHexByte(msg[j]) {
		j++
	}
	n := j - i
	if n != long && n != short {
		return "", 0
	}
	if j < len(msg) {
		if c := msg[j]; c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z' || c == '_' {
			return "", 0
		}
	}
	v := msg[i:j]
	if strings.Trim(v, "0") == "" {
		return "", 0
	}
	return v, n
}

// jsonFields is what a JSON-object line says about itself.
type jsonFields struct {
	text     string // the message, or "{key key ...}" when it has none
	sev      ingest.Severity
	trace    ingest.TraceID
	span     ingest.SpanID
	hasText  bool // text is a message field (not the key set)
	isObject bool
}

// maxJSONDepth bounds the levels of JSON-in-a-string jsonMessage unwraps.
const maxJSONDepth = 4

// jsonMessage parses a line that is a JSON object and takes its message
// field ("msg", "message", "@message", "log", "text"), its level ("level",
// "lvl", "severity", "severity_text", "levelname", "loglevel", "log.level",
// "@level") and its trace and span IDs (a key containing "trace" or "span"
// with a hex value). A message that is itself a JSON object is unwrapped
// again, up to four levels (container logs carry JSON in JSON). A JSON
// line without a message field is templated by its sorted key set.
func jsonMessage(line string) jsonFields {
	var f jsonFields
	for depth := 0; depth < maxJSONDepth; depth++ {
		s := strings.TrimSpace(line)
		if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
			return f
		}
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) != nil {
			return f
		}
		f.isObject = true
		next, found := "", false
		keys := make([]string, 0, len(m))
		for k, v := range m {
			keys = append(keys, k)
			str, isStr := v.(string)
			switch strings.ToLower(k) {
			case "msg", "message", "@message", "log", "text":
				if isStr && !found {
					next, found = str, true
				}
				continue
			case "level", "lvl", "severity", "severity_text", "levelname", "loglevel", "log.level", "@level", "level_name":
				if sv, ok := ingest.ParseSeverity(strings.TrimSpace(str)); isStr && ok && f.sev == ingest.SeverityUnknown {
					f.sev = sv
				}
				continue
			}
			if !isStr {
				continue
			}
			lk := strings.ToLower(k)
			if strings.Contains(lk, "trace") && f.trace == (ingest.TraceID{}) && (len(str) == 32 || len(str) == 16) && allHexStr(str) {
				f.trace, _ = ingest.ParseTraceID(str)
			} else if strings.Contains(lk, "span") && f.span == 0 && len(str) == 16 && allHexStr(str) {
				f.span, _ = ingest.ParseSpanID(str)
			}
		}
		if !found {
			sort.Strings(keys)
			f.text, f.hasText = "{"+strings.Join(keys, " ")+"}", false
			return f
		}
		f.text, f.hasText = next, true
		line = next
	}
	return f
}
