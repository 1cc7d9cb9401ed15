package ingest

import (
	"errors"
	"io"
	"unsafe"
)

// Fast path of the Jaeger reader.
//
// Profiles of million-span inputs show encoding/json (two scanner passes and
// reflection per span) taking ~70% of the analysis. The fast path parses the
// common shape — one {"data":[trace,...]} envelope per file, exact-case keys,
// integer times — with a hand-written scanner and feeds the same convert /
// flushTrace code as the general reader, so a successful fast parse yields
// exactly the bundle the general reader would.
//
// It never reports an error itself: on anything unusual (syntax error,
// another shape, a duplicate or case-folded key, a string time, a malformed
// span, invalid UTF-8, a read error) it gives up with ErrSlowPath and
// ReadFile re-reads the file with the general reader, which produces the
// positioned errors and partial-input warnings. Inputs that are not
// re-readable (stdin) always take the general reader.
//
// Strings are views into read buffers that are not written again while the
// trace that viewed them is being read: a refill moves on to another buffer,
// and buffers are recycled only after flushTrace, once nothing views them
// (everything kept beyond a trace is copied by the interner).

var (
	spanKeys  = []string{"traceID", "spanID", "parentSpanID", "operationName", "references", "startTime", "duration", "tags", "processID", "process", "warnings", "spans", "processes"}
	traceKeys = []string{"traceID", "spans", "processes", "warnings", "data", "errors"}
	tagKeys   = []string{"key", "type", "value"}
	refKeys   = []string{"refType", "traceID", "spanID"}
	procKeys  = []string{"serviceName", "tags"}

	// The keys in the order Jaeger's encoder writes them (objectHinted).
	spanHints  = hintKeys("traceID", "spanID", "flags", "operationName", "references", "startTime", "duration", "tags", "logs", "processID", "warnings")
	traceHints = hintKeys("traceID", "spans", "processes", "warnings")
	tagHints   = hintKeys("key", "type", "value")
	refHints   = hintKeys("refType", "traceID", "spanID")
	procHints  = hintKeys("serviceName", "tags")
)

// decodeJaegerFast is the fast path of decodeJaeger; ErrSlowPath means
// "re-read with the general reader".
func decodeJaegerFast(name string, r io.Reader, lim Limits) (*Bundle, error) {
	lim = lim.withDefaults()
	jr := &jaegerReader{name: name, file: Intern(name), src: r, lim: lim, b: &Bundle{}, in: newInterner(lim.MaxStringBytes)}
	jr.tr.procCache = map[string]procInfo{}
	s := &fastScanner{r: r, keep: -1, maxDepth: lim.MaxDepth, maxTok: lim.MaxTokenBytes}
	var sk seen
	ok := s.object(func(key string) bool {
		switch key {
		case "data":
			return sk.first(0) && s.array(func() bool { return jr.fastTrace(s) }) || jr.limited
		case "errors":
			return sk.first(1) && s.ws() == 'n' && s.lit("null")
		}
		if foldsTo(key, traceKeys...) {
			return false // a bare trace object or odd case: the general reader
		}
		_, ok := s.value(1)
		return ok
	})
	if jr.limited {
		return jr.finish(nil)
	}
	if errors.Is(s.rerr, ErrLimit) && jr.traces == 0 {
		// A size or token limit before any complete trace: the general
		// reader would fail the same way after reading it all again.
		return nil, &InputError{File: name, Offset: -1, Err: s.rerr}
	}
	if !ok || !s.atEnd() || s.buf == nil || jr.badSpans > 0 || len(jr.b.Spans) == 0 {
		return nil, ErrSlowPath
	}
	return jr.finish(nil)
}

// fastTrace reads one trace object of the data array and commits its spans.
func (r *jaegerReader) fastTrace(s *fastScanner) bool {
	r.tr.reset()
	var sk seen
	ok := s.objectHinted(traceHints, func(key string) bool {
		switch key {
		case "traceID":
			v, ok := s.str()
			r.tr.id = v
			return sk.first(0) && ok
		case "spans":
			return sk.first(1) && s.array(func() bool { return r.fastSpan(s) })
		case "processes":
			if !sk.first(2) {
				return false
			}
			return r.fastProcesses(s)
		case "warnings":
			var ok bool
			r.tr.warnings, ok = s.strings(r.tr.warnings)
			return sk.first(3) && ok
		}
		if foldsTo(key, traceKeys...) {
			return false
		}
		_, ok := s.value(2)
		return ok
	})
	if !ok || r.badSpans > 0 {
		return false
	}
	r.flushTrace()
	s.recycle()
	return !r.limited
}

// maxProcCache bounds the cache of resolved process objects.
const maxProcCache = 4096

// fastProcesses reads a trace's "processes" object. Each process value is
// resolved once per distinct raw text (traces of one service repeat the same
// process objects) and its procInfo is put in the trace's procCache, so
// flushTrace never resolves it again. A process whose resolution truncates a
// name is left to flushTrace, keeping the interner's per-use truncation count
// equal to the general reader's.
func (r *jaegerReader) fastProcesses(s *fastScanner) bool {
	if r.fastProcs == nil {
		r.fastProcs = map[string]procInfo{}
	}
	if r.fastProcSet == nil {
		r.fastProcSet = map[string]jProcess{}
	}
	clear(r.fastProcSet) // the previous trace is flushed: reuse its map
	r.tr.procs = r.fastProcSet
	return s.object(func(id string) bool {
		if _, dup := r.tr.procs[id]; dup {
			return false
		}
		raw, ok := s.rawObject()
		if !ok {
			return false
		}
		r.tr.procs[id] = jProcess{}
		if pi, hit := r.fastProcs[unsafe.String(&raw[0], len(raw))]; hit {
			r.tr.procCache[id] = pi
			return true
		}
		sub := &fastScanner{buf: raw, eof: true, keep: -1, maxDepth: s.maxDepth - 3, maxTok: s.maxTok}
		p, ok := fastProcess(sub)
		if !ok || !sub.atEnd() {
			return false
		}
		before := r.in.truncated
		pi := r.process(p)
		if r.in.truncated != before {
			// Leave it to flushTrace, which counts truncations per use.
			r.in.truncated = before
			r.tr.procs[id] = p
			return true
		}
		r.tr.procCache[id] = pi
		if len(r.fastProcs) < maxProcCache {
			r.fastProcs[string(raw)] = pi
		}
		return true
	})
}

// fastProcess reads one process object.
func fastProcess(s *fastScanner) (jProcess, bool) {
	var p jProcess
	var sk seen
	ok := s.objectHinted(procHints, func(key string) bool {
		switch key {
		case "serviceName":
			v, ok := s.str()
			p.ServiceName = v
			return sk.first(0) && ok
		case "tags":
			var ok bool
			p.Tags, ok = fastTags(s, nil)
			return sk.first(1) && ok
		}
		if foldsTo(key, procKeys...) {
			return false
		}
		_, ok := s.value(4)
		return ok
	})
	return p, ok
}

// fastTags reads an array of {key, type, value} tags into dst.
func fastTags(s *fastScanner, dst []jTag) ([]jTag, bool) {
	ok := s.array(func() bool {
		var t jTag
		var sk seen
		ok := s.objectHinted(tagHints, func(key string) bool {
			switch key {
			case "key":
				v, ok := s.str()
				t.Key = v
				return sk.first(0) && ok
			case "type":
				v, ok := s.str()
				t.Type = v
				return sk.first(1) && ok
			case "value":
				v, ok := s.value(5)
				t.Value = v
				return sk.first(2) && ok
			}
			if foldsTo(key, tagKeys...) {
				return false
			}
			_, ok := s.value(5)
			return ok
		})
		dst = append(dst, t)
		return ok
	})
	return dst, ok
}

// fastSpan reads one span of a trace's "spans" array and queues it.
func (r *jaegerReader) fastSpan(s *fastScanner) bool {
	js := &r.js
	tags, refs := js.Tags[:0], js.References[:0]
	*js = jSpan{Tags: tags, References: refs}
	var sk seen
	ok := s.objectHinted(spanHints, func(key string) bool {
		var ok bool
		switch key {
		case "traceID":
			js.TraceID, ok = s.str()
			return sk.first(0) && ok
		case "spanID":
			js.SpanID, ok = s.str()
			return sk.first(1) && ok
		case "parentSpanID":
			js.ParentSpanID, ok = s.str()
			return sk.first(2) && ok
		case "operationName":
			js.OperationName, ok = s.str()
			return sk.first(3) && ok
		case "references":
			ok = s.array(func() bool {
				var ref jRef
				var rk seen
				ok := s.objectHinted(refHints, func(key string) bool {
					var ok bool
					switch key {
					case "refType":
						ref.RefType, ok = s.str()
						return rk.first(0) && ok
					case "traceID":
						ref.TraceID, ok = s.str()
						return rk.first(1) && ok
					case "spanID":
						ref.SpanID, ok = s.str()
						return rk.first(2) && ok
					}
					if foldsTo(key, refKeys...) {
						return false
					}
					_, ok = s.value(5)
					return ok
				})
				if len(js.References) > maxSpanRefs {
					return false // the general reader counts them in a warning
				}
				js.References = append(js.References, ref)
				return ok
			})
			return sk.first(4) && ok
		case "startTime":
			var v int64
			v, ok = s.int()
			js.StartTime = flexInt(v)
			return sk.first(5) && ok
		case "duration":
			var v int64
			v, ok = s.int()
			js.Duration = flexInt(v)
			return sk.first(6) && ok
		case "tags":
			js.Tags, ok = fastTags(s, js.Tags)
			return sk.first(7) && ok
		case "processID":
			js.ProcessID, ok = s.str()
			return sk.first(8) && ok
		case "warnings":
			js.Warnings, ok = s.strings(nil)
			return sk.first(9) && ok
		}
		if foldsTo(key, spanKeys...) {
			return false // process, spans, processes, or an odd case
		}
		_, ok = s.value(3)
		return ok
	})
	if !ok {
		return false
	}
	if len(r.tr.pending) >= r.lim.MaxTraceSpans {
		// The views of a kept trace pin every buffer it was read from: a
		// trace over the limit goes to the general reader, which copies.
		return false
	}
	p, good := r.convert(js)
	if !good {
		return false
	}
	r.tr.pending = append(r.tr.pending, p)
	return true
}
