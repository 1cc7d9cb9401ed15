package victorialogs

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/logs"
)

// VictoriaLogs /select/logsql/query responses: JSON Lines, one record per
// line, every value a string:
//
//	{"_time":"2023-01-29T08:42:09.706182947Z","_msg":"…","_stream":"{pod=\"a\",service_name=\"b\"}","level":"INFO","trace_id":"…"}
//
// The stream is placed by the labels of "_stream" (then by the record's own
// fields); level, trace and span IDs come from the fields as for Loki
// metadata. Records are stored whole (VictoriaLogs keeps a multi-line
// message as one record, and a query returns them in no particular order
// unless it ends with "| sort by (_time)"), so lines are not folded.

// decodeVictoriaLogs reads VictoriaLogs query JSON Lines.
func decodeVictoriaLogs(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	s := logs.NewLogSink(name, lim, b)
	s.NoFold()
	lr := logs.NewLineReader(r)
	if err := lr.Each(s, func(line string) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			s.Malformed(lr.N(), -1, "not a JSON object: %v", err)
			return
		}
		str := func(k string) string {
			switch v := rec[k].(type) {
			case string:
				return v
			case float64:
				return strconv.FormatFloat(v, 'f', -1, 64)
			}
			return ""
		}
		ts := str("_time")
		tt, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || !logs.YearOK(tt) {
			s.Malformed(lr.N(), -1, "bad _time %q", ingest.TruncateUTF8(ts, 40))
			return
		}
		labels := parseStreamLabels(str("_stream"))
		get := func(k string) string {
			if v, ok := labels[k]; ok {
				return v
			}
			return str(k)
		}
		st := s.Stream(logs.StreamFromLabels(get))
		f := logs.Fields{Severity: logs.LabelSeverity(get)}
		logs.MetaFields(&f, str)
		s.Line(st, ingest.FromTime(tt), lr.N(), str("_msg"), f)
	}); err != nil {
		return nil, err
	}
	s.Finish()
	return b, nil
}

// parseStreamLabels parses a LogsQL/Prometheus label set
// `{a="x",b="y \"q\""}` (nil when s is not one).
func parseStreamLabels(s string) map[string]string {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil
	}
	s = s[1 : len(s)-1]
	out := map[string]string{}
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return out
		}
		key := strings.TrimSpace(s[:eq])
		j := eq + 2
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			return out
		}
		v, err := strconv.Unquote(s[eq+1 : j+1])
		if err != nil {
			v = s[eq+2 : j]
		}
		out[key] = v
		s = strings.TrimLeft(s[j+1:], ", ")
	}
	return out
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatVictoriaLogs, Decode: decodeVictoriaLogs,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityVictoriaLogs, Match: func(h *ingest.Head) bool {
			if !h.JSON() || !h.Has("_msg") && !h.Has("_time") {
				return false // none of the keys appears at all (cheap)
			}
			k := h.TopKeys()
			return k["_msg"] || k["_time"] && k["_stream"]
		}}}})
}
