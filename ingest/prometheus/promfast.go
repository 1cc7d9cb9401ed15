package prometheus

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// The Prometheus fast path: query_range responses of the common shape
// ({"status", "data": {"resultType": "matrix", "result": [{"metric": {...},
// "values": [[t, "v"], ...]}]}}, plus "warnings", "errorType", "error" and
// ignored keys) are scanned by fastjson.Scanner instead of encoding/json, which
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
func decodePromFast(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	st := &promState{name: name, lim: lim, b: &ingest.Bundle{}}
	s := &fastjson.Scanner{R: r, Keep: -1, MaxDepth: lim.MaxDepth, MaxTok: lim.MaxTokenBytes, Size: ingest.SizeHint(r)}
	var pts []promPoint
	var metric map[string]string
	series := func() bool {
		clear(metric)
		if metric == nil {
			metric = map[string]string{}
		}
		pts = pts[:0]
		var sk fastjson.Seen
		ok := s.Object(func(key string) bool {
			switch key {
			case "metric":
				return sk.First(0) && s.Object(func(k string) bool {
					v, ok := s.Str()
					if _, dup := metric[k]; dup || !ok {
						return false
					}
					metric[strings.Clone(k)] = strings.Clone(v)
					return true
				})
			case "values":
				return sk.First(1) && s.Array(func() bool {
					p, ok := promFastPoint(s)
					pts = append(pts, p)
					return ok
				})
			}
			if fastjson.FoldsTo(key, promSeriesKeys...) {
				return false // "value" (a vector) or an odd case: the general reader
			}
			_, ok := s.Value(4)
			return ok
		})
		if !ok {
			return false
		}
		st.add(metric, pts) // parses the values; keeps no view
		s.Recycle()
		return true
	}
	var top fastjson.Seen
	ok := s.Object(func(key string) bool {
		switch key {
		case "status":
			return top.First(0) && s.SkipWS() == '"' && promFastString(s, &st.status)
		case "errorType":
			return top.First(1) && s.SkipWS() == '"' && promFastString(s, &st.errType)
		case "error":
			return top.First(2) && s.SkipWS() == '"' && promFastString(s, &st.errMsg)
		case "warnings":
			if !top.First(3) || s.SkipWS() != '[' {
				return false
			}
			var ok bool
			st.warnings, ok = s.Strings(nil)
			return ok
		case "data":
			var ds fastjson.Seen
			return top.First(4) && s.Object(func(key string) bool {
				switch key {
				case "resultType":
					return ds.First(0) && s.SkipWS() == '"' && promFastString(s, &st.resultType) && st.resultType == "matrix"
				case "result":
					// The general reader needs resultType to have been seen
					// only for "string"; require it first to keep the paths
					// equal in every other respect too.
					return ds.First(1) && st.resultType == "matrix" && s.SkipWS() == '[' && s.Array(series)
				}
				if fastjson.FoldsTo(key, promDataKeys...) {
					return false
				}
				_, ok := s.Value(2)
				return ok
			})
		}
		if fastjson.FoldsTo(key, promTopKeys...) {
			return false
		}
		_, ok := s.Value(1)
		return ok
	})
	if errors.Is(s.ReadErr, ingest.ErrLimit) {
		// The general reader rejects the input on any read error: spare it
		// reading the input again up to the same limit.
		return nil, &ingest.InputError{File: name, Offset: -1, Err: s.ReadErr}
	}
	if !ok || !s.AtEnd() || s.Buf == nil {
		return nil, ingest.ErrSlowPath
	}
	return st.finish()
}

// promFastString reads a string into dst as a copy.
func promFastString(s *fastjson.Scanner, dst *string) bool {
	v, ok := s.Str()
	*dst = strings.Clone(v)
	return ok
}

// promFastPoint reads one [number, "value"] sample. The value is a view,
// valid until the scanner recycles its buffers; escapes are decoded, as the
// general reader decodes them. A quoted or out-of-range timestamp, or an
// unquoted value, is left to the general reader.
func promFastPoint(s *fastjson.Scanner) (promPoint, bool) {
	var p promPoint
	if !s.Expect('[') {
		return p, false
	}
	raw, ok := s.Value(5)
	if !ok || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return p, false
	}
	t, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return p, false // out of range: the general reader reports it
	}
	if !s.Expect(',') || s.SkipWS() != '"' {
		return p, false
	}
	v, ok := s.Str()
	if !ok || !s.Expect(']') {
		return p, false
	}
	p.T, p.V = t, v
	return p, true
}
