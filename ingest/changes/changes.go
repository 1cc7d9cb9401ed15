package changes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// record is one change record's fields as text (fieldNone unused); rank
// is the synonym rank each came from (a preferred name wins over another
// one of the same record).
type record struct {
	v    [numFields]string
	rank [numFields]int
}

// set keeps value under name when name is a field's synonym that ranks
// before the one the field has.
func (r *record) set(name, value string) {
	fo, ok := fieldOf[normKey(name)]
	if !ok || r.v[fo.f] != "" && r.rank[fo.f] <= fo.rank {
		return
	}
	r.v[fo.f], r.rank[fo.f] = value, fo.rank
}

// pos is where a record is: a 1-based line (CSV) or a byte offset (JSON).
type pos struct {
	line int
	off  int64
}

// problem counts the records with one problem and where the first was.
type problem struct {
	n     int
	first pos
}

func (p *problem) add(at pos) {
	if p.n == 0 {
		p.first = at
	}
	p.n++
}

// reader reads one input's records into b.
type reader struct {
	name string
	lim  ingest.Limits
	b    *ingest.Bundle

	seen    int // records met
	dropped int // records over lim.MaxEvents
	// what was wrong with records, and where first
	noTime, noService, badKind, noZone, notObject, truncated problem
}

// decode reads change records (JSON, JSON Lines or CSV, told apart by the
// first significant byte) into Bundle.Events, in input order.
func decode(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	rd := &reader{name: name, lim: lim.WithDefaults(), b: &ingest.Bundle{}}
	br := bufio.NewReaderSize(r, ingest.SniffLen)
	head, err := br.Peek(ingest.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, ingest.ErrorAt(name, int64(len(head)), err)
	}
	h := ingest.NewHead(head)
	if h.JSON() {
		err = rd.readJSON(br, h)
	} else {
		err = rd.readCSV(br, h)
	}
	if err != nil {
		return nil, err
	}
	rd.warn()
	return rd.b, nil
}

// add turns one record into an event, or counts why it cannot be one.
func (rd *reader) add(r *record, at pos) {
	rd.seen++
	if len(rd.b.Events) >= rd.lim.MaxEvents {
		rd.dropped++
		return
	}
	svc := strings.TrimSpace(r.v[fieldService])
	if i := strings.LastIndexByte(svc, '/'); i >= 0 {
		svc = strings.TrimSpace(svc[i+1:]) // "namespace/name", "deployment/name"
	}
	if svc == "" {
		rd.noService.add(at)
		return
	}
	t, noZone, ok := parseTime(r.v[fieldTime])
	if !ok {
		rd.noTime.add(at)
		return
	}
	if noZone {
		rd.noZone.add(at)
	}
	what, kindText := strings.TrimSpace(r.v[fieldWhat]), strings.TrimSpace(r.v[fieldKind])
	kind, reason, known := parseKind(kindText)
	switch {
	case kindText == "":
		if k, rs, ok := kindFromWhat(what); ok {
			kind, reason = k, rs
		}
	case !known:
		rd.badKind.add(at)
		what = strings.TrimSpace(kindText + ": " + what)
	}
	msg := what
	if msg == "" {
		msg = strings.ToLower(reason)
	}
	if v := strings.TrimSpace(r.v[fieldVersion]); v != "" && !strings.Contains(msg, v) {
		msg += " (version " + v + ")"
	}
	if who := strings.TrimSpace(r.v[fieldWho]); who != "" {
		msg += " by " + who
	}
	svc, msg = rd.cut(svc, at), rd.cut(msg, at)
	rd.b.Events = append(rd.b.Events, ingest.Event{Time: t, Entity: ingest.Entity{Kind: ingest.KindService, Name: svc, Service: svc},
		Kind: kind, Reason: reason, Message: msg, Count: 1, Source: rd.name})
}

// cut bounds a string to Limits.MaxStringBytes, counting the cuts.
func (rd *reader) cut(s string, at pos) string {
	if len(s) <= rd.lim.MaxStringBytes {
		return s
	}
	rd.truncated.add(at)
	return ingest.TruncateUTF8(s, rd.lim.MaxStringBytes)
}

// partial keeps the records read before a broken part of the input with an
// ErrPartialInput warning, or returns err when there were none.
func (rd *reader) partial(err error) error {
	if rd.seen == 0 {
		return err
	}
	rd.b.Warn(ingest.ErrPartialInput, rd.name, 1, "read %d change records, then an unreadable part: %v", rd.seen, err)
	return nil
}

// warn records the summary warnings, one per problem.
func (rd *reader) warn() {
	if rd.dropped > 0 {
		rd.b.Warn(ingest.ErrLimit, rd.name, rd.dropped, "%d of %d change records dropped: more than %d (--max-events)", rd.dropped, rd.seen, rd.lim.MaxEvents)
	}
	for _, p := range []struct {
		p    *problem
		kind error
		what string
	}{
		{&rd.noTime, ingest.ErrBadValue, "change records without a readable time skipped"},
		{&rd.noService, ingest.ErrBadValue, "change records without a service skipped"},
		{&rd.notObject, ingest.ErrBadValue, "values that are not change records (JSON objects) skipped"},
		{&rd.badKind, ingest.ErrBadValue, "change records of an unknown kind read as deploys"},
		{&rd.noZone, ingest.ErrBadValue, "change record times without a zone read as UTC"},
		{&rd.truncated, ingest.ErrLimit, fmt.Sprintf("values longer than %d bytes truncated", rd.lim.MaxStringBytes)},
	} {
		if p.p.n > 0 {
			rd.b.Warn(p.kind, rd.name, p.p.n, "%d %s (first at %s)", p.p.n, p.what, rd.where(p.p.first))
		}
	}
}

// where renders a position: its line, else the line of its byte offset
// when the input can be read again, else the offset.
func (rd *reader) where(p pos) string {
	if p.line > 0 {
		return fmt.Sprintf("line %d", p.line)
	}
	if line, _ := ingest.Locate(rd.name, p.off); line > 0 {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("byte %d", p.off)
}

// envelopeKeys are the keys of {"changes": [...]} whose array holds the
// records.
var envelopeKeys = map[string]bool{"changes": true, "items": true, "records": true}

// firstRecord returns the names of the first record in a JSON head (the
// first element of an array or of an envelope's array, else the top
// object's keys), as far as the head holds them, and whether the head is
// an envelope.
func firstRecord(head []byte) (names []string, envelope bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return nil, false
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, false
		}
		return objectKeys(dec), false
	}
	if tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() && len(names) < 64 {
		tok, err := dec.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		if envelopeKeys[normKey(k)] {
			if t, err := dec.Token(); err == nil && t == json.Delim('[') {
				if t, err := dec.Token(); err == nil && t == json.Delim('{') {
					return objectKeys(dec), true
				}
				return nil, true
			}
			break
		}
		names = append(names, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return names, false
}

// objectKeys reads the keys of the object whose '{' dec just returned, as
// far as it can.
func objectKeys(dec *json.Decoder) []string {
	var names []string
	for dec.More() && len(names) < 64 {
		tok, err := dec.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		names = append(names, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return names
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatChangeRecords, Decode: decode, History: true,
		Sniff: []ingest.SniffRule{
			{Priority: ingest.PriorityChangeRecords, Match: func(h *ingest.Head) bool {
				if !h.JSON() {
					return false
				}
				names, _ := firstRecord(h.Text)
				return looksLikeRecord(names)
			}},
			{Priority: ingest.PriorityChangeCSV, Match: func(h *ingest.Head) bool {
				if h.JSON() {
					return false
				}
				line := headerLine(h.Text)
				names := splitHeader(line, delimiter(line))
				return len(names) >= 2 && looksLikeRecord(names)
			}},
		}})
}
