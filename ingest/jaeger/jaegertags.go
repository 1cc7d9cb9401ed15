package jaeger

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The Jaeger reader's span attributes: tags coerced by type, the
// location tags (host, pod, container, process) that placement uses, the
// parent chosen among references, and each trace's processes.

// parent picks the first CHILD_OF reference within the same trace, else the
// first FOLLOWS_FROM one, else parentSpanID. A span whose only references
// point into other traces becomes a root (counted).
func (r *jaegerReader) parent(js *jSpan, trace ingest.TraceID) ingest.SpanID {
	var child, follows ingest.SpanID
	cross := false
	refs := js.References
	if len(refs) > maxSpanRefs {
		r.manyRefs++
		r.mostRefs = max(r.mostRefs, len(refs))
		refs = refs[:maxSpanRefs]
	}
	for _, ref := range refs {
		// A reference that spells the span's own trace ID (the usual case)
		// is in the trace without parsing it again.
		if ref.TraceID != "" && ref.TraceID != js.TraceID {
			rt, err := parseTraceID(ref.TraceID)
			if err != nil || rt != trace {
				cross = true
				continue
			}
		}
		id, err := parseSpanID(ref.SpanID)
		if err != nil || id == 0 {
			continue
		}
		switch {
		case strings.EqualFold(ref.RefType, "FOLLOWS_FROM"):
			if follows == 0 {
				follows = id
			}
		default: // CHILD_OF, or an unknown type treated as such
			if child == 0 {
				child = id
			}
		}
	}
	switch {
	case child != 0:
		return child
	case follows != 0:
		return follows
	}
	if js.ParentSpanID != "" {
		if id, err := parseSpanID(js.ParentSpanID); err == nil && id != 0 {
			return id
		}
	}
	if cross {
		r.crossTrace++
	}
	return 0
}

// spanTags applies the tags the reader understands: kind, error flags, peer
// (peer.service, else server.address), placement and the LLM request's
// token counts and latencies (into llm).
func (r *jaegerReader) spanTags(tags []jTag, s *ingest.Span, loc *ingest.LocTags, llm *ingest.LLMRequest) {
	addr := ""
	for i := range tags {
		t := &tags[i]
		switch t.Key {
		case "peer.service":
			s.Peer = r.sym(tagString(t))
		case "server.address":
			addr = tagString(t)
		case "span.kind":
			s.Kind = r.spanKind(tagString(t))
		case "error":
			if strings.EqualFold(tagString(t), "true") {
				s.Error = true
			}
		case "otel.status_code":
			if strings.EqualFold(tagString(t), "ERROR") {
				s.Error = true
			}
		case "http.status_code", "http.response.status_code":
			if v, ok := tagInt(t); ok && v >= 500 {
				s.Error = true
			}
		case "rpc.grpc.status_code":
			if v, ok := tagInt(t); ok && v != 0 {
				s.Error = true
			}
		default:
			if a := r.llmAttr(t.Key); a != ingest.LLMAttrNone {
				if v, ok := tagFloat(t); ok {
					llm.Set(a, v)
				}
				continue
			}
			r.locTag(t, loc)
		}
	}
	if s.Peer.IsEmpty() && addr != "" {
		s.Peer = r.sym(addr)
	}
}

// locTag records a placement tag (pod, node, hostname, GPU) into loc; the
// first value of each field wins.
func (r *jaegerReader) locTag(t *jTag, loc *ingest.LocTags) {
	if dst := loc.Field(t.Key); dst != nil && dst.IsEmpty() {
		*dst = r.sym(tagString(t))
	}
}

// process resolves a Jaeger process into a service and placement.
func (r *jaegerReader) process(p jProcess) procInfo {
	pi := procInfo{service: r.sym(p.ServiceName)}
	for i := range p.Tags {
		r.locTag(&p.Tags[i], &pi.loc)
	}
	return pi
}

// tagString returns a tag's value as text: strings unquoted, numbers and
// bools as written, null as "". Without escapes the text is a view of the
// tag's bytes, not a copy: it is valid only while the span's tags are (its
// callers compare it, parse it or intern it, and the Interner copies).
func tagString(t *jTag) string {
	if t.direct {
		return t.str
	}
	v := t.Value
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		if len(v) >= 2 && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
			if len(v) == 2 {
				return ""
			}
			return unsafe.String(&v[1], len(v)-2)
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	return unsafe.String(&v[0], len(v))
}

// tagFloat coerces a number (or numeric string) tag.
func tagFloat(t *jTag) (float64, bool) {
	s := tagString(t)
	if v, ok := smallDecimal(s); ok {
		return v, true // what ParseFloat returns
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// smallDecimal parses digits, optionally with a point between digits, of
// at most 15 digits in all: the digits as an integer and the power of ten
// are exact float64s, so their quotient is the correctly rounded value
// strconv.ParseFloat returns (its own exact fast path). ok is false for
// anything else (a sign, an exponent, a blank, more digits).
func smallDecimal(s string) (float64, bool) {
	m, ok := smallUint(s)
	if ok {
		return float64(m), true
	}
	dot := strings.IndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 || len(s) > 16 {
		return 0, false
	}
	hi, ok1 := smallUint(s[:dot])
	lo, ok2 := smallUint(s[dot+1:])
	if !ok1 || !ok2 {
		return 0, false
	}
	k := len(s) - dot - 1
	return float64(hi*uint64(pow10[k])+lo) / pow10[k], true
}

// smallUint parses 1 to 15 decimal digits (nothing else): below 2^53, a
// float64 holds the value exactly.
func smallUint(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	return v, true
}

// tagInt coerces an int64 (or float64, or numeric string) tag.
func tagInt(t *jTag) (int64, bool) {
	s := strings.TrimSpace(tagString(t))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f), true
	}
	return 0, false
}
