package jaeger

import (
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// One-pass span parsing over the read buffer.
//
// Jaeger's own encoder writes every span alike: no blanks, the keys in
// spanHints' order, plain ASCII strings, integer times, tags of
// {key, type, value} with a scalar value, empty "logs", null "warnings".
// spanBuf parses a span of that shape straight from the buffered bytes,
// without the closures, key switches and per-value refill checks of the
// general fast path (fastSpan's ObjectHinted walk). It accepts a span only
// where that walk would read the same values and consume the same bytes;
// on anything else (a blank, another key or order, an escape, a value of
// another kind, the end of the buffer) it declines and fastSpan reads the
// span that way, from the same place.

// The indices of spanHints' keys (TestHintIndices checks them).
const (
	hTraceID = iota
	hSpanID
	hFlags
	hOperationName
	hReferences
	hStartTime
	hDuration
	hTags
	hLogs
	hProcessID
	hWarnings
)

// The indices of refHints' keys.
const (
	rRefType = iota
	rTraceID
	rSpanID
)

// The indices of tagHints' keys.
const (
	tKey = iota
	tType
	tValue
)

// bufStr reads the plain string at b[i] as Scanner.Str would (a view; ""
// for an empty one), or returns end -1.
func bufStr(b []byte, i int, maxTok int64) (v string, end int) {
	end = fastjson.StrAt(b, i, maxTok)
	if end <= i+2 { // -1, or ""
		return "", end
	}
	return unsafe.String(&b[i+1], end-i-2), end
}

// sameStr returns the end of the string at b[p] when it is exactly the
// quoted v, or -1. v must be a string bufStr read (plain, within the
// token bound): then the quoted bytes are one that bufStr reads as v and
// ends at the same byte.
func sameStr(b []byte, p int, v string) int {
	end := p + len(v) + 2
	if end > len(b) || b[p] != '"' || b[end-1] != '"' || string(b[p+1:end-1]) != v {
		return -1
	}
	return end
}

// spanBuf parses the span object at the start of b into js (reset as
// fastSpan resets it) and returns the bytes it took, or -1 where it
// declines (js then holds nothing meaningful). maxTok and maxDepth are
// the scanner's bounds.
func spanBuf(b []byte, js *jSpan, maxTok int64, maxDepth int) int {
	if len(b) < 2 || b[0] != '{' {
		return -1
	}
	p, next := 1, 0
	for {
		j := next
		if !spanHints.At(b[p:], next) {
			j = spanHints.Match(b[p:], next, maxTok)
		}
		if j < 0 {
			return -1
		}
		p += spanHints.Len(j)
		next = j + 1
		switch j {
		case hTraceID:
			js.TraceID, p = bufStr(b, p, maxTok)
		case hSpanID:
			js.SpanID, p = bufStr(b, p, maxTok)
		case hOperationName:
			js.OperationName, p = bufStr(b, p, maxTok)
		case hProcessID:
			js.ProcessID, p = bufStr(b, p, maxTok)
		case hFlags:
			p = fastjson.NumberAt(b, p, maxTok) // Value(3) of a number
		case hStartTime:
			var v int64
			v, p = fastjson.IntAt(b, p)
			js.StartTime = flexInt(v)
		case hDuration:
			var v int64
			v, p = fastjson.IntAt(b, p)
			js.Duration = flexInt(v)
		case hReferences:
			p = refsBuf(b, p, js, maxTok)
		case hTags:
			p = tagsBuf(b, p, js, maxTok)
		case hLogs:
			// Value(3) of an empty array: a nesting of 4.
			if maxDepth < 4 || p+1 >= len(b) || b[p] != '[' || b[p+1] != ']' {
				return -1
			}
			p += 2
		case hWarnings:
			// Strings(nil) of null or of an empty array: nil.
			if q := fastjson.LitAt(b, p, "null"); q >= 0 {
				p = q
			} else if p+1 < len(b) && b[p] == '[' && b[p+1] == ']' {
				p += 2
			} else {
				return -1
			}
			js.Warnings = nil
		default:
			return -1
		}
		if p < 0 || p >= len(b) {
			return -1
		}
		switch b[p] {
		case ',':
			p++
		case '}':
			return p + 1
		default:
			return -1
		}
	}
}

// refsBuf reads a span's "references" array at b[p] as fastSpan's Array
// of ObjectHinted(refHints) would, appending to js.References; it returns
// the end, or -1. A span with maxSpanRefs references or more is declined
// (the general walk decides what such a span is).
func refsBuf(b []byte, p int, js *jSpan, maxTok int64) int {
	if p+1 >= len(b) || b[p] != '[' {
		return -1
	}
	p++
	if b[p] == ']' {
		return p + 1
	}
	for {
		if len(js.References) >= maxSpanRefs || p+1 >= len(b) || b[p] != '{' {
			return -1
		}
		p++
		var ref jRef
		for next := 0; ; {
			j := next
			if !refHints.At(b[p:], next) {
				j = refHints.Match(b[p:], next, maxTok)
			}
			if j < 0 {
				return -1
			}
			p += refHints.Len(j)
			next = j + 1
			switch j {
			case rRefType:
				ref.RefType, p = bufStr(b, p, maxTok)
			case rTraceID:
				if q := sameStr(b, p, js.TraceID); q >= 0 {
					ref.TraceID, p = js.TraceID, q // the usual: the span's own trace
				} else {
					ref.TraceID, p = bufStr(b, p, maxTok)
				}
			case rSpanID:
				ref.SpanID, p = bufStr(b, p, maxTok)
			}
			if p < 0 || p >= len(b) {
				return -1
			}
			if b[p] == '}' {
				break
			}
			if b[p] != ',' {
				return -1
			}
			p++
		}
		js.References = append(js.References, ref)
		p++
		if p >= len(b) {
			return -1
		}
		switch b[p] {
		case ',':
			p++
		case ']':
			return p + 1
		default:
			return -1
		}
	}
}

// tagsBuf reads a span's "tags" array at b[p] as fastTags would, for tags
// whose value is a plain string, a number, true, false or null, appending
// to js.Tags; it returns the end, or -1.
func tagsBuf(b []byte, p int, js *jSpan, maxTok int64) int {
	if p+1 >= len(b) || b[p] != '[' {
		return -1
	}
	p++
	if b[p] == ']' {
		return p + 1
	}
	for {
		if p+1 >= len(b) || b[p] != '{' {
			return -1
		}
		p++
		js.Tags = append(js.Tags, jTag{})
		t := &js.Tags[len(js.Tags)-1]
		for next := 0; ; {
			j := next
			if !tagHints.At(b[p:], next) {
				j = tagHints.Match(b[p:], next, maxTok)
			}
			if j < 0 {
				return -1
			}
			p += tagHints.Len(j)
			next = j + 1
			switch j {
			case tKey:
				t.Key, p = bufStr(b, p, maxTok)
				if q, typ := typeAt(b, p, maxTok); q >= 0 {
					p, t.Type, next = q, typ, tValue
				}
			case tType:
				t.Type, p = bufStr(b, p, maxTok)
			case tValue:
				start := p
				p = scalarAt(b, p, maxTok)
				if p >= 0 {
					t.Value = b[start:p] // as Value's view
				}
			}
			if p < 0 || p >= len(b) {
				return -1
			}
			if b[p] == '}' {
				break
			}
			if b[p] != ',' {
				return -1
			}
			p++
		}
		p++
		if p >= len(b) {
			return -1
		}
		switch b[p] {
		case ',':
			p++
		case ']':
			return p + 1
		default:
			return -1
		}
	}
}

// scalarAt returns the end of the string, number or literal at b[p] as
// Scanner.Value would consume it, or -1 (for any other value too).
func scalarAt(b []byte, p int, maxTok int64) int {
	if p >= len(b) {
		return -1
	}
	switch c := b[p]; {
	case c == '"':
		return fastjson.StrAt(b, p, maxTok)
	case c == '-' || c >= '0' && c <= '9':
		return fastjson.NumberAt(b, p, maxTok)
	case c == 't':
		return fastjson.LitAt(b, p, "true")
	case c == 'f':
		return fastjson.LitAt(b, p, "false")
	case c == 'n':
		return fastjson.LitAt(b, p, "null")
	}
	return -1
}

// typeLits are the usual "type" members of a tag after its key, as Jaeger
// writes them, with the type: the comma and the hinted key before the
// plain string.
var typeLits = [...]struct{ lit, typ string }{
	{`,"type":"string"`, "string"},
	{`,"type":"int64"`, "int64"},
	{`,"type":"float64"`, "float64"},
	{`,"type":"bool"`, "bool"},
	{`,"type":"binary"`, "binary"},
}

// typeAt matches one of typeLits at b[p:] (p may be -1) and returns where
// it ends and its type, as tagsBuf's loop would read them (the comma, the
// hint, StrAt under maxTok), or -1.
func typeAt(b []byte, p int, maxTok int64) (int, string) {
	const at = len(`,"type":"`)
	if p < 0 || p+at >= len(b) {
		return -1, ""
	}
	var k int
	switch b[p+at] {
	case 's':
		k = 0
	case 'i':
		k = 1
	case 'f':
		k = 2
	case 'b':
		k = 3
		if p+at+1 < len(b) && b[p+at+1] == 'i' {
			k = 4
		}
	default:
		return -1, ""
	}
	l := &typeLits[k]
	if end := p + len(l.lit); end <= len(b) && string(b[p:end]) == l.lit && (maxTok <= 0 || int64(len(l.typ)) <= maxTok) {
		return end, l.typ
	}
	return -1, ""
}
