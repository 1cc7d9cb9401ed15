package changes

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// readJSON reads an array of records, an envelope ({"changes": [...]}),
// or a stream of records (one record, JSON Lines, concatenated objects).
// A syntax error ends the input: the records before it are kept
// (partial). O(input).
func (rd *reader) readJSON(br *bufio.Reader, h *ingest.Head) error {
	dec := json.NewDecoder(br)
	if h.Text[0] == '[' {
		if err := ingest.JSONDelim(dec, rd.name, '['); err != nil {
			return err
		}
		if err := rd.jsonArray(dec); err != nil {
			return rd.partial(err)
		}
		return rd.trailing(dec)
	}
	if _, envelope := firstRecord(h.Text); envelope {
		if err := rd.jsonEnvelope(dec); err != nil {
			return rd.partial(err)
		}
		return rd.trailing(dec)
	}
	for {
		off := dec.InputOffset()
		var m map[string]json.RawMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !rd.typeError(err, off) {
			return rd.partial(ingest.JSONErrorAt(rd.name, err, dec, off))
		}
		if err == nil {
			rd.addJSON(m, off)
		}
	}
}

// jsonArray reads the elements of an array whose '[' dec returned, and
// its ']'.
func (rd *reader) jsonArray(dec *json.Decoder) error {
	for dec.More() {
		off := dec.InputOffset()
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			if rd.typeError(err, off) {
				continue
			}
			return ingest.JSONErrorAt(rd.name, err, dec, off)
		}
		rd.addJSON(m, off)
	}
	return ingest.JSONDelim(dec, rd.name, ']')
}

// jsonEnvelope reads an object whose arrays under envelopeKeys hold the
// records; its other keys are skipped.
func (rd *reader) jsonEnvelope(dec *json.Decoder) error {
	if err := ingest.JSONDelim(dec, rd.name, '{'); err != nil {
		return err
	}
	for dec.More() {
		k, err := ingest.JSONKey(dec, rd.name)
		if err != nil {
			return err
		}
		if !envelopeKeys[normKey(k)] {
			if err := ingest.JSONSkip(dec); err != nil {
				return ingest.JSONError(rd.name, err, dec)
			}
			continue
		}
		if err := ingest.JSONDelim(dec, rd.name, '['); err != nil {
			return err
		}
		if err := rd.jsonArray(dec); err != nil {
			return err
		}
	}
	return ingest.JSONDelim(dec, rd.name, '}')
}

// trailing checks that nothing but white space follows the document; what
// does is dropped with an ErrPartialInput warning.
func (rd *reader) trailing(dec *json.Decoder) error {
	off := dec.InputOffset()
	if _, err := dec.Token(); errors.Is(err, io.EOF) {
		return nil
	}
	rd.b.Warn(ingest.ErrPartialInput, rd.name, 1, "the input goes on after the change records (at %s): the rest was not read", rd.where(pos{off: off}))
	return nil
}

// typeError counts a JSON value that is not an object (a record) and
// reports whether err was that; the decoder has consumed the value.
func (rd *reader) typeError(err error, off int64) bool {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return false
	}
	rd.seen++
	rd.notObject.add(pos{off: off})
	return true
}

// addJSON adds one JSON record: strings unquoted, numbers and booleans as
// written, objects and arrays as compact JSON (a what that is a diff).
func (rd *reader) addJSON(m map[string]json.RawMessage, off int64) {
	var r record
	for _, k := range slices.Sorted(maps.Keys(m)) { // "Service" and "service": the same one each time
		if _, ok := fieldOf[normKey(k)]; ok {
			r.set(k, jsonText(m[k]))
		}
	}
	rd.add(&r, pos{off: off})
}

// jsonText renders a JSON value as a field's text ("" for null).
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case raw[0] == '{' || raw[0] == '[':
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.String()
		}
	}
	return string(raw)
}

// readCSV reads CSV with a header row. A row that cannot be parsed ends
// the input, keeping the rows before it (partial); a short row is read as
// far as it goes. O(input).
func (rd *reader) readCSV(br *bufio.Reader, h *ingest.Head) error {
	cr := csv.NewReader(br)
	cr.Comma = delimiter(headerLine(h.Text))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		err = errors.New("no header row")
	}
	if err != nil {
		return rd.csvError(cr, err)
	}
	col := [numFields]int{}
	rank := [numFields]int{}
	for f := range col {
		col[f] = -1
	}
	for i, name := range header {
		fo, ok := fieldOf[normKey(trimCell(name))]
		if ok && (col[fo.f] < 0 || fo.rank < rank[fo.f]) {
			col[fo.f], rank[fo.f] = i, fo.rank
		}
	}
	line, _ := cr.FieldPos(0)
	for _, need := range []struct {
		f    field
		what string
	}{{fieldTime, "time"}, {fieldService, "service"}} {
		if col[need.f] < 0 {
			return &ingest.InputError{File: rd.name, Offset: -1, Line: line, Column: 1,
				Err: fmt.Errorf("change records csv: the header names no %s column (%s)", need.what, strings.Join(synonyms[need.f], ", "))}
		}
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return rd.partial(rd.csvError(cr, err))
		}
		line, _ := cr.FieldPos(0)
		var r record
		for f, i := range col {
			if i >= 0 && i < len(row) {
				r.v[f] = strings.TrimSpace(row[i])
			}
		}
		rd.add(&r, pos{line: line})
	}
}

// csvError positions a CSV error (an *ingest.InputError as it is).
func (rd *reader) csvError(cr *csv.Reader, err error) error {
	var ie *ingest.InputError
	if errors.As(err, &ie) {
		return err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ingest.InputError{File: rd.name, Offset: -1, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("change records csv: %w", pe.Err)}
	}
	return ingest.ErrorAt(rd.name, cr.InputOffset(), fmt.Errorf("change records csv: %w", err))
}

// headerLine is the first line of a text head that is neither blank nor a
// '#' comment, without its line break.
func headerLine(text []byte) []byte {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return line
		}
	}
	return nil
}

// delimiter is the separator of a header line: the most frequent of
// comma, tab and semicolon (comma on a tie).
func delimiter(line []byte) rune {
	best, n := ',', bytes.Count(line, []byte(","))
	for _, d := range []rune{'\t', ';'} {
		if c := bytes.Count(line, []byte(string(d))); c > n {
			best, n = d, c
		}
	}
	return best
}

// splitHeader splits a header line into its cells' names (quotes and
// space trimmed); a sniff rule's view, not a CSV parse.
func splitHeader(line []byte, d rune) []string {
	if len(line) == 0 || len(line) > 4096 {
		return nil
	}
	cells := strings.Split(string(line), string(d))
	for i := range cells {
		cells[i] = trimCell(cells[i])
	}
	return cells
}

// trimCell trims space, quotes and a byte-order mark from a header cell.
func trimCell(s string) string { return strings.Trim(s, " \t\r\"'\ufeff") }
