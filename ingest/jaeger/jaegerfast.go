package jaeger

import (
	"errors"
	"io"
	"strings"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
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
// (everything kept beyond a trace is copied by the Interner).

var (
	spanKeys  = []string{"traceID", "spanID", "parentSpanID", "operationName", "references", "startTime", "duration", "tags", "processID", "process", "warnings", "spans", "processes"}
	traceKeys = []string{"traceID", "spans", "processes", "warnings", "data", "errors"}
	tagKeys   = []string{"key", "type", "value"}
	refKeys   = []string{"refType", "traceID", "spanID"}
	procKeys  = []string{"serviceName", "tags"}

	// The keys in the order Jaeger's encoder writes them (ObjectHinted).
	spanHints  = fastjson.HintKeys("traceID", "spanID", "flags", "operationName", "references", "startTime", "duration", "tags", "logs", "processID", "warnings")
	traceHints = fastjson.HintKeys("traceID", "spans", "processes", "warnings")
	tagHints   = fastjson.HintKeys("key", "type", "value")
	refHints   = fastjson.HintKeys("refType", "traceID", "spanID")
	procHints  = fastjson.HintKeys("serviceName", "tags")
)

// decodeJaegerFast is the fast path of decodeJaeger; ErrSlowPath means
// "re-read with the general reader".
func decodeJaegerFast(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	jr, err := fastRead(name, r, ingest.SizeHint(r), lim)
	if err != nil {
		return nil, err
	}
	return jr.finish(nil)
}

// fastRead runs the fast scanner over r and returns the reader with what
// it read, for finish (or for combining with the other chunks of a file
// read in parallel, jaegersplit.go); ErrSlowPath means "re-read with the
// general reader". size is r's length when known (0: unknown), a hint
// for sizing the spans (growSpans).
func fastRead(name string, r io.Reader, size int64, lim ingest.Limits) (*jaegerReader, error) {
	lim = lim.WithDefaults()
	jr := &jaegerReader{name: name, file: ingest.Intern(name), src: r, lim: lim, b: &ingest.Bundle{}, in: ingest.NewInterner(lim.MaxStringBytes)}
	jr.tr.procCache = map[string]procInfo{}
	jr.size = size
	s := &fastjson.Scanner{R: &countingReader{r: r, n: &jr.read}, Keep: -1, MaxDepth: lim.MaxDepth, MaxTok: lim.MaxTokenBytes, Size: size}
	var sk fastjson.Seen
	ok := s.Object(func(key string) bool {
		switch key {
		case "data":
			return sk.First(0) && s.Array(func() bool { return jr.fastTrace(s) }) || jr.limited
		case "errors":
			return sk.First(1) && s.SkipWS() == 'n' && s.Lit("null")
		}
		if fastjson.FoldsTo(key, traceKeys...) {
			return false // a bare trace object or odd case: the general reader
		}
		_, ok := s.Value(1)
		return ok
	})
	if jr.limited {
		return jr, nil
	}
	if errors.Is(s.ReadErr, ingest.ErrLimit) && jr.traces == 0 {
		// A size or token limit before any complete trace: the general
		// reader would fail the same way after reading it all again.
		return nil, &ingest.InputError{File: name, Offset: -1, Err: s.ReadErr}
	}
	if !ok || !s.AtEnd() || s.Buf == nil || jr.badSpans > 0 || len(jr.b.Spans) == 0 {
		return nil, ingest.ErrSlowPath
	}
	return jr, nil
}

// fastTrace reads one trace object of the data array and commits its spans.
func (r *jaegerReader) fastTrace(s *fastjson.Scanner) bool {
	r.tr.reset()
	var sk fastjson.Seen
	ok := s.ObjectHinted(traceHints, func(key string) bool {
		switch key {
		case "traceID":
			v, ok := s.Str()
			r.tr.id = v
			return sk.First(0) && ok
		case "spans":
			return sk.First(1) && s.Array(func() bool { return r.fastSpan(s) })
		case "processes":
			if !sk.First(2) {
				return false
			}
			return r.fastProcesses(s)
		case "warnings":
			var ok bool
			r.tr.warnings, ok = s.Strings(r.tr.warnings)
			return sk.First(3) && ok
		}
		if fastjson.FoldsTo(key, traceKeys...) {
			return false
		}
		_, ok := s.Value(2)
		return ok
	})
	if !ok || r.badSpans > 0 {
		return false
	}
	r.flushTrace()
	s.Recycle()
	return !r.limited
}

// maxProcCache bounds the cache of resolved process objects.
const maxProcCache = 4096

// fastProcesses reads a trace's "processes" object. Each process value is
// resolved once per distinct raw text (traces of one service repeat the same
// process objects) and its procInfo is put in the trace's procCache, so
// flushTrace never resolves it again. A process whose resolution truncates a
// name is left to flushTrace, keeping the Interner's per-use truncation count
// equal to the general reader's.
func (r *jaegerReader) fastProcesses(s *fastjson.Scanner) bool {
	if r.fastProcs == nil {
		r.fastProcs = map[string]procText{}
	}
	if r.fastProcSet == nil {
		r.fastProcSet = map[string]jProcess{}
	}
	clear(r.fastProcSet) // the previous trace is flushed: reuse its map
	r.tr.procs = r.fastProcSet
	if r.recentProcs == nil {
		r.recentProcs = map[string]*recentProcs{}
	}
	return s.Object(func(id string) bool {
		if _, dup := r.tr.procs[id]; dup {
			return false
		}
		recent := r.recentProcs[id]
		if pi, hit := recent.match(s); hit {
			r.tr.procs[id] = jProcess{}
			r.tr.procCache[id] = pi
			return true
		}
		raw, ok := s.RawObject()
		if !ok {
			return false
		}
		r.tr.procs[id] = jProcess{}
		if e, hit := r.fastProcs[unsafe.String(&raw[0], len(raw))]; hit {
			r.tr.procCache[id] = e.pi
			if recent == nil && len(r.recentProcs) < maxProcCache {
				recent = &recentProcs{}
				r.recentProcs[strings.Clone(id)] = recent // id is a view of the buffer
			}
			recent.add(e.text, e.pi, s.MaxTok)
			return true
		}
		sub := &fastjson.Scanner{Buf: raw, EOF: true, Keep: -1, MaxDepth: s.MaxDepth - 3, MaxTok: s.MaxTok}
		p, ok := fastProcess(sub)
		if !ok || !sub.AtEnd() {
			return false
		}
		before := r.in.Truncated
		pi := r.process(p)
		if r.in.Truncated != before {
			// Leave it to flushTrace, which counts truncations per use.
			r.in.Truncated = before
			r.tr.procs[id] = p
			return true
		}
		r.tr.procCache[id] = pi
		if len(r.fastProcs) < maxProcCache {
			text := string(raw)
			r.fastProcs[text] = procText{text, pi}
		}
		return true
	})
}

// procText is a resolved process object with its raw JSON text (the
// fastProcs key, kept where recentProcs can take it).
type procText struct {
	text string
	pi   procInfo
}

// recentProcs are the texts of process objects last met under one process
// ID, most recent first, each a key of the reader's fastProcs with its
// procInfo. Traces of one service repeat a few such texts under the same
// ID: comparing the input with them costs less than delimiting the object
// (RawObject) and hashing it for the map. A match is what RawObject and
// the map would have given: RawObject's end of an object depends only on
// its bytes, and the text was a whole object. The texts of one ID share a
// long prefix (the service, the first tags): it is compared once, then
// each text's rest.
type recentProcs struct {
	n     int
	lcp   int // the texts all start with texts[0][:lcp]
	texts [recentProcN]string
	infos [recentProcN]procInfo
}

// recentProcN is how many texts are kept a process ID.
const recentProcN = 32

// match consumes the next value when it is one of the texts (the most
// recent first) and returns its procInfo, as Scanner.SkipPrefix with each
// text in turn would; a matched text moves up one place, so that a
// frequent one stays in front.
func (p *recentProcs) match(s *fastjson.Scanner) (procInfo, bool) {
	if p == nil || p.n == 0 || s.SkipWS() == 0 {
		return procInfo{}, false
	}
	b := s.Rest()
	if len(b) < p.lcp || string(b[:p.lcp]) != p.texts[0][:p.lcp] {
		return procInfo{}, false
	}
	for k := 0; k < p.n; k++ {
		t := p.texts[k]
		if len(t) <= len(b) && string(b[p.lcp:len(t)]) == t[p.lcp:] {
			s.Advance(len(t))
			pi := p.infos[k]
			if k > 0 {
				p.texts[k-1], p.texts[k] = p.texts[k], p.texts[k-1]
				p.infos[k-1], p.infos[k] = p.infos[k], p.infos[k-1]
			}
			return pi, true
		}
	}
	return procInfo{}, false
}

// add puts text (a copy that outlives the buffer) with its procInfo in
// front, unless it is longer than the token bound maxTok (RawObject may
// decline such an object where it straddles a refill; a match would not).
func (p *recentProcs) add(text string, pi procInfo, maxTok int64) {
	if maxTok > 0 && int64(len(text)) > maxTok {
		return
	}
	if p.n == 0 {
		p.lcp = len(text)
	} else {
		p.lcp = min(p.lcp, commonPrefix(text, p.texts[0])) // an evicted text only shortened it
	}
	copy(p.texts[1:], p.texts[:recentProcN-1])
	copy(p.infos[1:], p.infos[:recentProcN-1])
	p.texts[0], p.infos[0] = text, pi
	p.n = min(p.n+1, recentProcN)
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && a[i:i+8] == b[i:i+8] {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// fastProcess reads one process object.
func fastProcess(s *fastjson.Scanner) (jProcess, bool) {
	var p jProcess
	var sk fastjson.Seen
	ok := s.ObjectHinted(procHints, func(key string) bool {
		switch key {
		case "serviceName":
			v, ok := s.Str()
			p.ServiceName = v
			return sk.First(0) && ok
		case "tags":
			var ok bool
			p.Tags, ok = fastTags(s, nil)
			return sk.First(1) && ok
		}
		if fastjson.FoldsTo(key, procKeys...) {
			return false
		}
		_, ok := s.Value(4)
		return ok
	})
	return p, ok
}

// fastTags reads an array of {key, type, value} tags into dst.
func fastTags(s *fastjson.Scanner, dst []jTag) ([]jTag, bool) {
	ok := s.Array(func() bool {
		var t jTag
		var sk fastjson.Seen
		ok := s.ObjectHinted(tagHints, func(key string) bool {
			switch key {
			case "key":
				v, ok := s.Str()
				t.Key = v
				return sk.First(0) && ok
			case "type":
				v, ok := s.Str()
				t.Type = v
				return sk.First(1) && ok
			case "value":
				v, ok := s.Value(5)
				t.Value = v
				return sk.First(2) && ok
			}
			if fastjson.FoldsTo(key, tagKeys...) {
				return false
			}
			_, ok := s.Value(5)
			return ok
		})
		dst = append(dst, t)
		return ok
	})
	return dst, ok
}

// fastSpan reads one span of a trace's "spans" array and queues it.
func (r *jaegerReader) fastSpan(s *fastjson.Scanner) bool {
	js := &r.js
	tags, refs := js.Tags[:0], js.References[:0]
	*js = jSpan{Tags: tags, References: refs}
	if s.Pos() < len(s.Buf) && s.Buf[s.Pos()] == '{' {
		// Jaeger's own shape, buffered whole: one pass (jaegerbuf.go).
		if n := spanBuf(s.Rest(), js, s.MaxTok, s.MaxDepth); n >= 0 {
			s.Advance(n)
			return r.queueFast(js)
		}
		*js = jSpan{Tags: tags, References: refs}
	}
	if !spanWalk(s, js) {
		return false
	}
	return r.queueFast(js)
}

// spanWalk reads one span object into js (reset) key by key: the general
// fast path, for any shape spanBuf declines.
func spanWalk(s *fastjson.Scanner, js *jSpan) bool {
	var sk fastjson.Seen
	return s.ObjectHinted(spanHints, func(key string) bool {
		var ok bool
		switch key {
		case "traceID":
			js.TraceID, ok = s.Str()
			return sk.First(0) && ok
		case "spanID":
			js.SpanID, ok = s.Str()
			return sk.First(1) && ok
		case "parentSpanID":
			js.ParentSpanID, ok = s.Str()
			return sk.First(2) && ok
		case "operationName":
			js.OperationName, ok = s.Str()
			return sk.First(3) && ok
		case "references":
			ok = s.Array(func() bool {
				var ref jRef
				var rk fastjson.Seen
				ok := s.ObjectHinted(refHints, func(key string) bool {
					var ok bool
					switch key {
					case "refType":
						ref.RefType, ok = s.Str()
						return rk.First(0) && ok
					case "traceID":
						ref.TraceID, ok = s.Str()
						return rk.First(1) && ok
					case "spanID":
						ref.SpanID, ok = s.Str()
						return rk.First(2) && ok
					}
					if fastjson.FoldsTo(key, refKeys...) {
						return false
					}
					_, ok = s.Value(5)
					return ok
				})
				if len(js.References) > maxSpanRefs {
					return false // the general reader counts them in a warning
				}
				js.References = append(js.References, ref)
				return ok
			})
			return sk.First(4) && ok
		case "startTime":
			var v int64
			v, ok = s.Int()
			js.StartTime = flexInt(v)
			return sk.First(5) && ok
		case "duration":
			var v int64
			v, ok = s.Int()
			js.Duration = flexInt(v)
			return sk.First(6) && ok
		case "tags":
			js.Tags, ok = fastTags(s, js.Tags)
			return sk.First(7) && ok
		case "processID":
			js.ProcessID, ok = s.Str()
			return sk.First(8) && ok
		case "warnings":
			js.Warnings, ok = s.Strings(nil)
			return sk.First(9) && ok
		}
		if fastjson.FoldsTo(key, spanKeys...) {
			return false // process, spans, processes, or an odd case
		}
		_, ok = s.Value(3)
		return ok
	})
}

// queueFast converts a span the fast path read and queues it; false
// declines the input (see fastSpan).
func (r *jaegerReader) queueFast(js *jSpan) bool {
	if len(r.tr.pending) >= r.lim.MaxTraceSpans {
		// The views of a kept trace pin every buffer it was read from: a
		// trace over the limit goes to the general reader, which copies.
		return false
	}
	r.tr.pending = append(r.tr.pending, pendingSpan{})
	if !r.convertInto(js, &r.tr.pending[len(r.tr.pending)-1]) {
		r.tr.pending = r.tr.pending[:len(r.tr.pending)-1]
		return false
	}
	return true
}

// countingReader adds what it reads to *n: how far into its input a
// reader is, for growSpans' estimate.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	*c.n += int64(k)
	return k, err
}

// grownFor returns how many more elements to make room for in a slice of
// n elements that is full, when size bytes of input are expected and read
// of them gave the n: the estimate of the whole input's count (n scaled
// by size/read, plus a sixteenth) where the reader knows its size, at
// most 8n so that an early misestimate costs little; at least
// max(n, floor) (doubling), which is all it is without a size. A
// misestimate only costs another grow: the count is never bounded by it.
func grownFor(n, floor int, read, size int64) int {
	add := max(n, floor)
	if n == 0 || read <= 0 || size <= read {
		return add
	}
	est := float64(n) * float64(size) / float64(read)
	est += est / 16
	if want := int(min(est, float64(9*n))) - n; want > add {
		add = want
	}
	return add
}
