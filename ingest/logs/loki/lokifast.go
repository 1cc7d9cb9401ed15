package loki

import (
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"
)

// The Loki fast path: streams responses (and push bodies) of the common
// shape are scanned by fastjson.Scanner (package ingest/fastjson) instead of encoding/json,
// which decoded every entry twice (RawMessage, then Unmarshal). Entries go
// through the same LogSink as the general reader's, so records, templates
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
func decodeLokiFast(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	sc := &fastjson.Scanner{R: r, Keep: -1, MaxDepth: lim.MaxDepth, Size: ingest.SizeHint(r)}
	var status, resultType string
	labels := map[string]string{}
	var entries []lokiEntry
	hasStream := false // the result has "stream" labels (logmixed.go)
	stream := func() bool {
		clear(labels)
		entries = entries[:0]
		hasStream = false
		var sk fastjson.Seen
		ok := sc.Object(func(key string) bool {
			switch key {
			case "stream":
				hasStream = true
				return sk.First(0) && sc.Object(func(k string) bool {
					v, ok := sc.Str()
					if _, dup := labels[k]; dup || !ok {
						return false
					}
					labels[k] = v // views: valid until recycle
					return true
				})
			case "values":
				return sk.First(1) && sc.Array(func() bool {
					e, ok := lokiFastValue(sc)
					entries = append(entries, e)
					return ok
				})
			}
			if fastjson.FoldsTo(key, lokiStreamKeys...) {
				return false
			}
			_, ok := sc.Value(4)
			return ok
		})
		if !ok || s.Full() {
			return ok
		}
		if !hasStream {
			s.Count(notStreams, 1)
		}
		lokiFeed(s, labels, entries)
		sc.Recycle()
		return true
	}
	result := func() bool { return sc.Array(stream) }
	var top fastjson.Seen
	ok := sc.Object(func(key string) bool {
		switch key {
		case "status":
			v, ok := sc.Str()
			status = string([]byte(v))
			return top.First(0) && ok
		case "data":
			var dk fastjson.Seen
			return top.First(1) && sc.Object(func(k string) bool {
				switch k {
				case "resultType":
					v, ok := sc.Str()
					resultType = string([]byte(v))
					return dk.First(0) && ok && resultType == "streams"
				case "result":
					return dk.First(1) && resultType == "streams" && result()
				}
				if fastjson.FoldsTo(k, lokiDataKeys...) {
					return false
				}
				_, ok := sc.Value(3)
				return ok
			})
		case "streams":
			resultType = "streams"
			return top.First(2) && result()
		}
		if fastjson.FoldsTo(key, lokiTopKeys...) {
			return false
		}
		_, ok := sc.Value(2)
		return ok
	})
	if !ok || !sc.AtEnd() || status != "success" && status != "" || resultType != "streams" || s.Full() {
		return nil, ingest.ErrSlowPath
	}
	s.Finish()
	return b, nil
}

// lokiFastValue reads ["ns", "line"] or ["ns", "line", {metadata}].
func lokiFastValue(sc *fastjson.Scanner) (lokiEntry, bool) {
	var e lokiEntry
	n := 0
	ok := sc.Array(func() bool {
		n++
		switch n {
		case 1:
			v, ok := sc.Str()
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
			e.t = ingest.Time(ns)
			return true
		case 2:
			v, ok := sc.Str()
			e.line = v
			return ok
		case 3:
			e.meta = map[string]string{}
			return sc.Object(func(k string) bool {
				if sc.SkipWS() == '{' { // structuredMetadata / parsed
					return sc.Object(func(k2 string) bool {
						v, ok := sc.Str()
						e.meta[k2] = v
						return ok
					})
				}
				v, ok := sc.Str()
				e.meta[k] = v
				return ok
			})
		}
		return false
	})
	return e, ok && n >= 2
}

// lokiFeed feeds one stream's entries, oldest first (as lokiStream does).
func lokiFeed(s *logs.LogSink, labels map[string]string, entries []lokiEntry) {
	get := func(k string) string { return labels[k] }
	st := s.Stream(logs.StreamFromLabels(get))
	lokiEntries(s, st, logs.LabelSeverity(get), entries)
}
