package prometheus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/classify"
	"io"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// promPoint is one [timestamp, "value"] pair of a query_range result.
type promPoint struct {
	T float64
	V string
}

// UnmarshalJSON parses [1661140279.5, "0.25"] by hand: points are the bulk
// of a metrics file and reflection per pair is slow. A quoted timestamp is
// accepted too.
func (p *promPoint) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("sample is not a [timestamp, value] pair: %.40q", b)
	}
	inner := b[1 : len(b)-1]
	i := bytes.IndexByte(inner, ',')
	if i < 0 {
		return fmt.Errorf("sample is not a [timestamp, value] pair: %.40q", b)
	}
	ts := bytes.Trim(bytes.TrimSpace(inner[:i]), `"`)
	t, err := strconv.ParseFloat(string(ts), 64)
	if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("bad sample timestamp %q", ts)
	}
	raw := bytes.TrimSpace(inner[i+1:])
	if bytes.IndexByte(raw, '\\') >= 0 || len(raw) < 2 || raw[0] != '"' {
		// Rare: escaped or unquoted value; let encoding/json decide.
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("bad sample value %.40q: %w", raw, err)
		}
		p.T, p.V = t, fmt.Sprint(v)
		return nil
	}
	if raw[len(raw)-1] != '"' {
		return fmt.Errorf("bad sample value %.40q", raw)
	}
	p.T, p.V = t, string(raw[1:len(raw)-1])
	return nil
}

// promResult is one element of data.result for a matrix or vector.
type promResult struct {
	Metric map[string]string `json:"metric"`
	Values []promPoint       `json:"values"`
	Value  *promPoint        `json:"value"`
}

// promBaseName is the metric name used when a series has no __name__
// (histogram_quantile, rate, ... results): the file's base name without
// directory, ".gz" and ".json", and without a leading "metrics_" or "qr_"
// collection prefix: "case/metrics_pod_request_duration_seconds_p99.json.gz"
// → "pod_request_duration_seconds_p99". It is "value" when nothing is left.
func promBaseName(name string) string {
	base := path.Base(filepath.ToSlash(name))
	base = strings.TrimSuffix(base, ".gz")
	base = strings.TrimSuffix(base, ".json")
	for _, p := range []string{"metrics_", "qr_"} {
		if strings.HasPrefix(base, p) && len(base) > len(p) {
			base = base[len(p):]
			break
		}
	}
	if base == "" || base == "." || base == "/" || base == "<stdin>" {
		return "value"
	}
	return base
}

// promState accumulates one query_range response while it streams by.
type promState struct {
	name       string
	lim        ingest.Limits
	b          *ingest.Bundle
	status     string
	errType    string
	errMsg     string
	resultType string
	warnings   []string
	infs       int // ±Inf samples turned into NaN
	badValues  int // unparsable sample values turned into NaN
	points     int
	dropped    int // series dropped over the limits
	truncated  int // label values cut to lim.MaxStringBytes
	scalar     []json.RawMessage
}

// decodePromQueryRange reads a Prometheus /api/v1/query_range (or /query)
// response: {"status", "data": {"resultType", "result"}, "warnings",
// "errorType", "error"}, keys in any order. Matrix results are streamed one
// series at a time; vector and scalar results give one point per series.
//
// Values "NaN" stay NaN; "+Inf"/"-Inf" become NaN and are summarised in one
// ErrBadValue warning per file. Labels are sorted and lose __name__, which
// becomes the series name (promBaseName when absent). "status":"error"
// fails with "prometheus error (<errorType>): <error>"; "status":"warning"
// or a "warnings" list keeps the data and adds an ErrSourceWarning. Series
// and points beyond lim.MaxSeries / lim.MaxPoints are dropped with an
// ErrLimit warning. Every series is classified (classify.Series).
func decodePromQueryRange(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	st := &promState{name: name, lim: lim, b: &ingest.Bundle{}}
	dec := json.NewDecoder(r)
	if err := ingest.JSONDelim(dec, name, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		key, err := ingest.JSONKey(dec, name)
		if err != nil {
			return nil, err
		}
		switch key {
		case "status":
			err = dec.Decode(&st.status)
		case "errorType":
			err = dec.Decode(&st.errType)
		case "error":
			err = dec.Decode(&st.errMsg)
		case "warnings":
			err = dec.Decode(&st.warnings)
		case "data":
			err = st.data(dec)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	b, err := st.finish()
	if err == nil {
		trailingData(name, io.MultiReader(dec.Buffered(), r), lim, b, "Prometheus response") // logmixed.go
	}
	return b, err
}

// finish turns the accumulated state into the bundle (or the source's error).
func (st *promState) finish() (*ingest.Bundle, error) {
	switch st.status {
	case "error":
		msg := st.errMsg
		if msg == "" {
			msg = "no error message"
		}
		et := st.errType
		if et == "" {
			et = "unknown"
		}
		return nil, &ingest.InputError{File: st.name, Offset: -1, Err: fmt.Errorf("prometheus error (%s): %s", et, msg)}
	case "success", "warning":
	case "":
		if st.resultType == "" {
			return nil, &ingest.InputError{File: st.name, Offset: -1, Err: errors.New("not a Prometheus query response: no status and no data")}
		}
	default:
		return nil, &ingest.InputError{File: st.name, Offset: -1, Err: fmt.Errorf("prometheus: unknown status %q", st.status)}
	}
	b := st.b
	if st.resultType == "scalar" && len(st.scalar) == 2 {
		var p promPoint
		raw := append(append(append([]byte{'['}, st.scalar[0]...), ','), st.scalar[1]...)
		if err := p.UnmarshalJSON(append(raw, ']')); err != nil {
			return nil, &ingest.InputError{File: st.name, Offset: -1, Err: err}
		}
		st.add(nil, []promPoint{p})
	}
	if len(st.warnings) > 0 || st.status == "warning" {
		msg := strings.Join(st.warnings, "; ")
		if msg == "" {
			msg = "status warning without details"
		}
		b.Warn(ingest.ErrSourceWarning, st.name, max(1, len(st.warnings)), "prometheus warnings: %s", msg)
	}
	if st.infs > 0 {
		b.Warn(ingest.ErrBadValue, st.name, st.infs, "%d infinite sample values replaced by NaN", st.infs)
	}
	if st.badValues > 0 {
		b.Warn(ingest.ErrBadValue, st.name, st.badValues, "%d unparsable sample values replaced by NaN", st.badValues)
	}
	if st.truncated > 0 {
		b.Warn(ingest.ErrLimit, st.name, st.truncated, "%d label values truncated to %d bytes", st.truncated, st.lim.MaxStringBytes)
	}
	if st.dropped > 0 {
		b.Warn(ingest.ErrLimit, st.name, st.dropped, "%d series dropped: more than %d series or %d points", st.dropped, st.lim.MaxSeries, st.lim.MaxPoints)
	}
	return b, nil
}

// data walks the "data" object, streaming "result" element by element.
func (st *promState) data(dec *json.Decoder) error {
	if err := ingest.JSONDelim(dec, st.name, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := ingest.JSONKey(dec, st.name)
		if err != nil {
			return err
		}
		switch key {
		case "resultType":
			err = dec.Decode(&st.resultType)
			if err == nil && st.resultType == "string" {
				return ingest.ErrorAt(st.name, dec.InputOffset(), errors.New("prometheus: resultType \"string\" holds no series"))
			}
		case "result":
			err = st.result(dec)
		default:
			err = ingest.JSONSkip(dec)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// result streams the "result" array. Elements that are objects are series
// (matrix or vector); anything else is the [t, "v"] pair of a scalar.
func (st *promState) result(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // "result": null
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return ingest.ErrorAt(st.name, dec.InputOffset(), fmt.Errorf("prometheus: result is %v, want an array", tok))
	}
	for dec.More() {
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if len(raw) == 0 || raw[0] != '{' {
			st.scalar = append(st.scalar, raw)
			continue
		}
		var pr promResult
		if err := json.Unmarshal(raw, &pr); err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				off += se.Offset
			case errors.As(err, &te):
				off += te.Offset
				err = fmt.Errorf("expected %v for field %q, found JSON %s", te.Type, te.Field, te.Value)
			}
			return ingest.ErrorAt(st.name, off, fmt.Errorf("prometheus series: %w", err))
		}
		pts := pr.Values
		if pr.Value != nil {
			pts = append(pts, *pr.Value)
		}
		st.add(pr.Metric, pts)
	}
	_, err = dec.Token()
	return err
}

// add converts one series, enforcing the limits and classifying it.
func (st *promState) add(metric map[string]string, pts []promPoint) {
	if len(st.b.Series) >= st.lim.MaxSeries || st.points+len(pts) > st.lim.MaxPoints {
		st.dropped++
		return
	}
	s := &ingest.Series{Source: st.name, Labels: make(ingest.Labels, 0, len(metric))}
	for k, v := range metric {
		if k == "__name__" {
			s.Name = v
			continue
		}
		if len(v) > st.lim.MaxStringBytes {
			v = v[:st.lim.MaxStringBytes]
			st.truncated++
		}
		s.Labels = append(s.Labels, ingest.Label{Name: k, Value: v})
	}
	ingest.SortLabels(s.Labels)
	if s.Name == "" {
		s.Name = promBaseName(st.name)
	}
	s.T = make([]ingest.Time, len(pts))
	s.V = make([]float64, len(pts))
	for i, p := range pts {
		s.T[i] = ingest.FromUnixSeconds(p.T)
		v, err := strconv.ParseFloat(p.V, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			v = math.NaN()
			st.badValues++
		case math.IsInf(v, 0):
			v = math.NaN()
			st.infs++
		}
		s.V[i] = v
	}
	st.points += len(pts)
	classify.Series(s)
	st.b.Series = append(st.b.Series, s)
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatPromQueryRange, Decode: decodePromQueryRange, Fast: decodePromFast, SelfGuarded: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityPromQueryRange, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("resultType") || (h.Has("status") && (h.Has("errorType") || h.Has("warnings")) && !h.Has("alerts")))
		}}}})
}

// trailingData reads what follows the document of a what (e.g.
// "Prometheus response") in rest, adding to b.
func trailingData(name string, rest io.Reader, lim ingest.Limits, b *ingest.Bundle, what string) {
	br := bufio.NewReaderSize(rest, ingest.SniffLen)
	head, _ := br.Peek(ingest.SniffLen)
	if len(bytes.TrimSpace(head)) == 0 {
		n, _ := io.Copy(io.Discard, br)
		if n > int64(len(head)) { // white space beyond the peek: look again
			b.Warn(ingest.ErrPartialInput, name, 1, "%d bytes after the %s dropped", n, what)
		}
		return
	}
	if ingest.Sniff(head) == ingest.FormatVictoriaLogs {
		part, err := ingest.Decoder(ingest.FormatVictoriaLogs)(name, br, lim)
		if err != nil {
			b.Warn(ingest.ErrPartialInput, name, 1, "the lines after the %s look like VictoriaLogs records but were not read: %v", what, err)
			return
		}
		b.Warn(ingest.ErrSourceWarning, name, len(part.Logs), "%d VictoriaLogs records after the %s read as logs (mixed formats in one file)", len(part.Logs), what)
		b.Merge(part)
		return
	}
	n, _ := io.Copy(io.Discard, br)
	b.Warn(ingest.ErrPartialInput, name, 1, "%d bytes after the %s dropped (not a format that can follow it: %s)", n, what, ingest.Sniff(head))
}
