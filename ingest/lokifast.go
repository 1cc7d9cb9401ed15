package ingest

import (
	"io"
)

// The Loki fast path: streams responses (and push bodies) of the common
// shape are scanned by fastScanner (jaegerfast.go) instead of encoding/json,
// which decoded every entry twice (RawMessage, then Unmarshal). Entries go
// through the same logSink as the general reader's, so records, templates
// and warnings are the same. On anything else — a malformed entry, metadata
// that is not flat strings (or Loki 3's one level of categories), a
// duplicate or case-folded key, a status other than success, a syntax
// error — it gives up with ErrSlowPath and ReadFile re-reads the file with
// decodeLoki, which owns every positioned error and warning.

var (
	lokiTopKeys    = []string{"status", "data", "streams", "error"}
	lokiDataKeys   = []string{"resultType", "result"}
	lokiStreamKeys = []string{"stream", "values"}
)

// decodeLokiFast is decodeLoki's fast path; see above.
func decodeLokiFast(name string, r io.Reader, lim Limits) (*Bundle, error) {
	lim = lim.withDefaults()
	b := &Bundle{}
	s := newLogSink(name, lim, b)
	sc := &fastScanner{r: r, keep: -1, maxDepth: lim.MaxDepth}
	var status, resultType string
	labels := map[string]string{}
	var entries []lokiEntry
	hasStream := false // the result has "stream" labels (logmixed.go)
	stream := func() bool {
		clear(labels)
		entries = entries[:0]
		hasStream = false
		var sk seen
		ok := sc.object(func(key string) bool {
			switch key {
			case "stream":
				hasStream = true
				return sk.first(0) && sc.object(func(k string) bool {
					v, ok := sc.str()
					if _, dup := labels[k]; dup || !ok {
						return false
					}
					labels[k] = v // views: valid until recycle
					return true
				})
			case "values":
				return sk.first(1) && sc.array(func() bool {
					e, ok := lokiFastValue(sc)
					entries = append(entries, e)
					return ok
				})
			}
			if foldsTo(key, lokiStreamKeys...) {
				return false
			}
			_, ok := sc.value(4)
			return ok
		})
		if !ok || s.full() {
			return ok
		}
		if !hasStream {
			s.notStreams++
		}
		s.lokiFeed(labels, entries)
		sc.recycle()
		return true
	}
	result := func() bool { return sc.array(stream) }
	var top seen
	ok := sc.object(func(key string) bool {
		switch key {
		case "status":
			v, ok := sc.str()
			status = string([]byte(v))
			return top.first(0) && ok
		case "data":
			var dk seen
			return top.first(1) && sc.object(func(k string) bool {
				switch k {
				case "resultType":
					v, ok := sc.str()
					resultType = string([]byte(v))
					return dk.first(0) && ok && resultType == "streams"
				case "result":
					return dk.first(1) && resultType == "streams" && result()
				}
				if foldsTo(k, lokiDataKeys...) {
					return false
				}
				_, ok := sc.value(3)
				return ok
			})
		case "streams":
			resultType = "streams"
			return top.first(2) && result()
		}
		if foldsTo(key, lokiTopKeys...) {
			return false
		}
		_, ok := sc.value(2)
		return ok
	})
	if !ok || !sc.atEnd() || status != "success" && status != "" || resultType != "streams" || s.full() {
		return nil, ErrSlowPath
	}
	s.finish()
	return b, nil
}

// lokiFastValue reads ["ns", "line"] or ["ns", "line", {metadata}].
func lokiFastValue(sc *fastScanner) (lokiEntry, bool) {
	var e lokiEntry
	n := 0
	ok := sc.array(func() bool {
		n++
		switch n {
		case 1:
			v, ok := sc.str()
			if !ok || len(v) == 0 || len(v) > 19 {
				return false
			}
			var ns int64
			for i := 0; i < len(v); i++ {
				c := v[i]
				if c < '0' || c > '9' {
					return false
				}
				ns = ns*10 + int64(c-'0')
			}
			if ns <= 0 {
				return false
			}
			e.t = Time(ns)
			return true
		case 2:
			v, ok := sc.str()
			e.line = v
			return ok
		case 3:
			e.meta = map[string]string{}
			return sc.object(func(k string) bool {
				if sc.ws() == '{' { // structuredMetadata / parsed
					return sc.object(func(k2 string) bool {
						v, ok := sc.str()
						e.meta[k2] = v
						return ok
					})
				}
				v, ok := sc.str()
				e.meta[k] = v
				return ok
			})
		}
		return false
	})
	return e, ok && n >= 2
}

// lokiFeed feeds one stream's entries, oldest first (as lokiStream does).
func (s *logSink) lokiFeed(labels map[string]string, entries []lokiEntry) {
	get := func(k string) string { return labels[k] }
	st := s.stream(streamFromLabels(get))
	s.lokiEntries(st, labelSeverity(get), entries)
}
