package ingest

import (
	"errors"
	"io"
	"strconv"
	"strings"
)

// The Prometheus fast path: query_range responses of the common shape
// ({"status", "data": {"resultType": "matrix", "result": [{"metric": {...},
// "values": [[t, "v"], ...]}]}}, plus "warnings", "errorType", "error" and
// ignored keys) are scanned by fastScanner instead of encoding/json, which
// spent most of its time re-scanning each series (RawMessage, then
// Unmarshal). Series go through the general reader's promState.add and
// finish, so limits, classification, warnings and errors are the same. On
// anything else (another result type, an unquoted value, a quoted or
// out-of-range timestamp, a duplicate or case-folded key, a syntax error) it
// gives up with ErrSlowPath and ReadFile re-reads the file with the general
// reader, which owns every positioned error.

// promTopKeys, promDataKeys and promSeriesKeys are the keys the general
// reader acts on, refused when they arrive in another case.
var (
	promTopKeys    = []string{"status", "errorType", "error", "warnings", "data"}
	promDataKeys   = []string{"resultType", "result"}
	promSeriesKeys = []string{"metric", "values", "value"}
)

// decodePromFast is decodePromQueryRange's fast path; see above.
func decodePromFast(name string, r io.Reader, lim Limits) (*Bundle, error) {
	lim = lim.withDefaults()
	st := &promState{name: name, lim: lim, b: &Bundle{}}
	s := &fastScanner{r: r, keep: -1, maxDepth: lim.MaxDepth, maxTok: lim.MaxTokenBytes}
	var pts []promPoint
	var metric map[string]string
	series := func() bool {
		clear(metric)
		if metric == nil {
			metric = map[string]string{}
		}
		pts = pts[:0]
		var sk seen
		ok := s.object(func(key string) bool {
			switch key {
			case "metric":
				return sk.first(0) && s.object(func(k string) bool {
					v, ok := s.str()
					if _, dup := metric[k]; dup || !ok {
						return false
					}
					metric[strings.Clone(k)] = strings.Clone(v)
					return true
				})
			case "values":
				return sk.first(1) && s.array(func() bool {
					p, ok := promFastPoint(s)
					pts = append(pts, p)
					return ok
				})
			}
			if foldsTo(key, promSeriesKeys...) {
				return false // "value" (a vector) or an odd case: the general reader
			}
			_, ok := s.value(4)
			return ok
		})
		if !ok {
			return false
		}
		st.add(metric, pts) // parses the values; keeps no view
		s.recycle()
		return true
	}
	var top seen
	ok := s.object(func(key string) bool {
		switch key {
		case "status":
			return top.first(0) && s.ws() == '"' && promFastString(s, &st.status)
		case "errorType":
			return top.first(1) && s.ws() == '"' && promFastString(s, &st.errType)
		case "error":
			return top.first(2) && s.ws() == '"' && promFastString(s, &st.errMsg)
		case "warnings":
			if !top.first(3) || s.ws() != '[' {
				return false
			}
			var ok bool
			st.warnings, ok = s.strings(nil)
			return ok
		case "data":
			var ds seen
			return top.first(4) && s.object(func(key string) bool {
				switch key {
				case "resultType":
					return ds.first(0) && s.ws() == '"' && promFastString(s, &st.resultType) && st.resultType == "matrix"
				case "result":
					// The general reader needs resultType to have been seen
					// only for "string"; require it first to keep the paths
					// equal in every other respect too.
					return ds.first(1) && st.resultType == "matrix" && s.ws() == '[' && s.array(series)
				}
				if foldsTo(key, promDataKeys...) {
					return false
				}
				_, ok := s.value(2)
				return ok
			})
		}
		if foldsTo(key, promTopKeys...) {
			return false
		}
		_, ok := s.value(1)
		return ok
	})
	if errors.Is(s.rerr, ErrLimit) {
		// The general reader rejects the input on any read error: spare it
		// reading the input again up to the same limit.
		return nil, &InputError{File: name, Offset: -1, Err: s.rerr}
	}
	if !ok || !s.atEnd() || s.buf == nil {
		return nil, ErrSlowPath
	}
	return st.finish()
}

// promFastString reads a string into dst as a copy.
func promFastString(s *fastScanner, dst *string) bool {
	v, ok := s.str()
	*dst = strings.Clone(v)
	return ok
}

// promFastPoint reads one [number, "value"] sample. The value is a view,
// valid until the scanner recycles its buffers; escapes are decoded, as the
// general reader decodes them. A quoted or out-of-range timestamp, or an
// unquoted value, is left to the general reader.
func promFastPoint(s *fastScanner) (promPoint, bool) {
	var p promPoint
	if !s.expect('[') {
		return p, false
	}
	raw, ok := s.value(5)
	if !ok || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return p, false
	}
	t, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return p, false // out of range: the general reader reports it
	}
	if !s.expect(',') || s.ws() != '"' {
		return p, false
	}
	v, ok := s.str()
	if !ok || !s.expect(']') {
		return p, false
	}
	p.T, p.V = t, v
	return p, true
}
