package ingest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Binary protobuf inputs (OTLP traces and logs, Jaeger's span model) carry
// no magic number, so they are recognised by walking the wire format of the
// head against the message's schema: every field number and wire type must
// be one the schema allows, nested messages are walked the same way, and at
// least one leaf message (a span, a log record) must be seen. Three framings
// exist in the wild and all are recognised:
//
//   - FramePlain: one message (a .binpb file, a raw gRPC payload, or several
//     such messages concatenated, which protobuf reads as one message whose
//     repeated field holds them all);
//   - FrameBE32: each message prefixed by its length as a big-endian uint32
//     (the OpenTelemetry Collector's file exporter with format: proto);
//   - FrameVarint: each message prefixed by its length as a varint
//     (protobuf's delimited streams, Java's writeDelimitedTo).
//
// ProtoStream then reads the input one message at a time, so memory is
// O(largest message): for a plain file, each element of the top-level
// repeated field 1 (a ResourceSpans, a Jaeger span) is returned as a
// message of its own, which protobuf reads as the top-level type holding
// that one element.

// ProtoFraming is how a binary protobuf input delimits its messages.
type ProtoFraming uint8

// The framings of binary protobuf inputs.
const (
	FrameNone   ProtoFraming = iota // not recognised
	FramePlain                      // one message, read element by element of its field 1
	FrameBE32                       // big-endian uint32 length before each message
	FrameVarint                     // varint length before each message
)

// String names the framing as the format's documentation does.
func (f ProtoFraming) String() string {
	switch f {
	case FramePlain:
		return "plain"
	case FrameBE32:
		return "length-prefixed (uint32, big-endian)"
	case FrameVarint:
		return "length-delimited (varint)"
	}
	return "none"
}

// ProtoSchema is what the sniffer knows of one message: the wire type (and,
// for a nested message, the schema) of each field number. Field numbers above
// the highest one listed are accepted (fields added by a newer version of
// the message); an unlisted number below it, or a wrong wire type, rejects
// the input.
type ProtoSchema struct {
	Fields map[protowire.Number]ProtoField
	// Leaf marks the message whose presence makes a match (a span, a log
	// record): a head without one is not recognised.
	Leaf bool
	// Strict rejects every unlisted field number (the top-level message,
	// whose one field identifies the format).
	Strict bool
	// NeedAny, for a leaf, are fields of which one must be present for
	// the message to count as a leaf (a span's trace ID or start time):
	// an empty or stray message proves nothing.
	NeedAny []protowire.Number
}

// ProtoField is one field of a ProtoSchema.
type ProtoField struct {
	Type protowire.Type
	Msg  *ProtoSchema // a nested message (BytesType only), nil: opaque bytes
	Size int          // BytesType: the exact length when > 0 (IDs)
}

// maxProtoSniffDepth bounds the nesting the sniffer walks.
const maxProtoSniffDepth = 12

// walk checks b (possibly cut short by the end of the head: cut) against s
// and returns how many leaf messages it saw; ok is false on a field the
// schema does not allow.
func (s *ProtoSchema) walk(b []byte, cut bool, depth int) (leaves int, ok bool) {
	top := protowire.Number(0) // computed on each visit: schemas are shared by concurrent sniffs and never written
	for n := range s.Fields {
		top = max(top, n)
	}
	own := s.Leaf && len(s.NeedAny) == 0
	defer func() {
		if own && ok {
			leaves++
		}
	}()
	if depth > maxProtoSniffDepth {
		return 0, true
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return leaves, cut
		}
		f, known := s.Fields[num]
		if !known && (s.Strict || num <= top || num > protowire.MaxValidNumber) {
			return 0, false
		}
		if s.Leaf && !own && slices.Contains(s.NeedAny, num) {
			own = true
		}
		if known && f.Type != typ {
			return 0, false
		}
		b = b[n:]
		if typ == protowire.BytesType {
			l, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return leaves, cut
			}
			b = b[m:]
			short := uint64(len(b)) < l
			body := b
			if !short {
				body = b[:l]
			}
			if known && f.Size > 0 && !short && int(l) != f.Size && l != 0 {
				return 0, false
			}
			if known && f.Msg != nil {
				k, good := f.Msg.walk(body, short && cut, depth+1)
				if !good {
					return 0, false
				}
				leaves += k
			}
			if short {
				return leaves, cut
			}
			b = b[l:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			if cut && (typ == protowire.VarintType || typ == protowire.Fixed32Type || typ == protowire.Fixed64Type) {
				return leaves, true
			}
			return 0, false
		}
		b = b[m:]
	}
	return leaves, true
}

// matches reports whether msg (cut short when cut) is a message of schema
// s holding at least one leaf.
func (s *ProtoSchema) matches(msg []byte, cut bool) bool {
	if len(msg) == 0 {
		return false
	}
	leaves, ok := s.walk(msg, cut, 0)
	return ok && leaves > 0
}

// SniffProto recognises a binary protobuf head: the framing under which the
// head is a stream of messages of schema top. FrameNone when it is not one.
// The framings are tried in the order BE32 (a plain message never starts
// with a zero byte), plain, varint.
func SniffProto(raw []byte, top *ProtoSchema) ProtoFraming {
	if len(raw) == 0 {
		return FrameNone
	}
	if len(raw) > 4 && raw[0] == 0 {
		l := int(binary.BigEndian.Uint32(raw))
		if body, cut := frameBody(raw[4:], l); l > 0 && top.matches(body, cut) {
			return FrameBE32
		}
	}
	if top.matches(raw, true) { // a file cut short is still this format: its reader says what was lost
		return FramePlain
	}
	if l, n := protowire.ConsumeVarint(raw); n > 0 && l > 0 && l < 1<<40 {
		// A varint prefix is any byte: the frame must fit the head unless
		// the head is the whole sniff window.
		if body, cut := frameBody(raw[n:], int(l)); (!cut || len(raw) >= SniffLen) && top.matches(body, cut) {
			return FrameVarint
		}
	}
	return FrameNone
}

// frameBody is the first l bytes of b, or all of b (cut) when it is shorter.
func frameBody(b []byte, l int) ([]byte, bool) {
	if l > len(b) {
		return b, true
	}
	return b[:l], false
}

// ProtoStream reads a binary protobuf input one message at a time (see
// the framings above). Max bounds one message: a longer one is an
// ErrLimit error.
type ProtoStream struct {
	// Keep are the top-level fields a FramePlain stream returns, each
	// element as a message of its own (nil: field 1 only); the others are
	// skipped.
	Keep    []protowire.Number
	r       *bufio.Reader
	framing ProtoFraming
	max     int64
	off     int64 // bytes consumed
	buf     []byte
	name    string
}

// NewProtoStream returns a stream over r under the given framing. name is
// the input's name, for positioned errors.
func NewProtoStream(name string, r io.Reader, framing ProtoFraming, max int64) *ProtoStream {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 256<<10)
	}
	return &ProtoStream{r: br, framing: framing, max: max, name: name}
}

// Offset is how many bytes of the input have been consumed.
func (p *ProtoStream) Offset() int64 { return p.off }

// Next returns the next message and the offset where it starts; io.EOF at
// the clean end of the input. The returned bytes are valid until the next
// call. Under FramePlain, each element of the top-level field 1 is
// returned as a message holding only it (its tag and length included);
// other top-level fields are skipped.
func (p *ProtoStream) Next() ([]byte, int64, error) {
	for {
		start := p.off
		var l uint64
		switch p.framing {
		case FrameBE32:
			var hdr [4]byte
			n, err := io.ReadFull(p.r, hdr[:])
			p.off += int64(n)
			if err == io.EOF {
				return nil, start, io.EOF
			}
			if err != nil {
				return nil, start, ErrorAt(p.name, start, fmt.Errorf("protobuf: truncated length prefix: %w", err))
			}
			l = uint64(binary.BigEndian.Uint32(hdr[:]))
		case FrameVarint:
			v, err := p.varint(true)
			if err != nil {
				return nil, start, err
			}
			l = v
		case FramePlain:
			tag, err := p.varint(true)
			if err != nil {
				return nil, start, err
			}
			num, typ := protowire.DecodeTag(tag)
			if num < protowire.MinValidNumber {
				return nil, start, ErrorAt(p.name, start, errors.New("protobuf: invalid field number 0"))
			}
			if typ != protowire.BytesType {
				if err := p.skipScalar(typ); err != nil {
					return nil, start, err
				}
				continue
			}
			v, err := p.varint(false)
			if err != nil {
				return nil, start, err
			}
			if !p.keep(num) {
				if err := p.discard(v); err != nil {
					return nil, start, err
				}
				continue
			}
			if p.max < 0 || v > uint64(p.max) { // as unsigned: a length past 2⁶³ is not negative
				return nil, start, ErrorAt(p.name, start, fmt.Errorf("%w: protobuf message of %d bytes (the limit is %d)", ErrLimit, v, p.max))
			}
			head := protowire.AppendVarint(protowire.AppendTag(p.buf[:0], num, protowire.BytesType), v)
			return p.body(head, v, start)
		default:
			return nil, start, ErrorAt(p.name, start, errors.New("protobuf: unknown framing"))
		}
		if p.max < 0 || l > uint64(p.max) { // as unsigned: a length past 2⁶³ is not negative
			return nil, start, ErrorAt(p.name, start, fmt.Errorf("%w: protobuf message of %d bytes (the limit is %d)", ErrLimit, l, p.max))
		}
		return p.body(p.buf[:0], l, start)
	}
}

// keep reports whether a FramePlain stream returns top-level field num.
func (p *ProtoStream) keep(num protowire.Number) bool {
	if p.Keep == nil {
		return num == 1
	}
	return slices.Contains(p.Keep, num)
}

// body reads l bytes after prefix into the stream's buffer.
func (p *ProtoStream) body(prefix []byte, l uint64, start int64) ([]byte, int64, error) {
	need := len(prefix) + int(l)
	if cap(p.buf) < need {
		nb := make([]byte, len(prefix), need)
		copy(nb, prefix)
		prefix = nb
	}
	msg := prefix[:need]
	n, err := io.ReadFull(p.r, msg[len(prefix):])
	p.off += int64(n)
	p.buf = msg
	if err != nil {
		return nil, start, ErrorAt(p.name, p.off, fmt.Errorf("protobuf: message of %d bytes cut short after %d: %w", l, n, io.ErrUnexpectedEOF))
	}
	return msg, start, nil
}

// varint reads a varint; atStart: a clean EOF before its first byte is io.EOF.
func (p *ProtoStream) varint(atStart bool) (uint64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		c, err := p.r.ReadByte()
		if err != nil {
			if err == io.EOF && i == 0 && atStart {
				return 0, io.EOF
			}
			return 0, ErrorAt(p.name, p.off, fmt.Errorf("protobuf: truncated varint: %w", io.ErrUnexpectedEOF))
		}
		p.off++
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, ErrorAt(p.name, p.off, errors.New("protobuf: varint longer than 10 bytes"))
}

// skipScalar skips one non-length-delimited field value.
func (p *ProtoStream) skipScalar(typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		_, err := p.varint(false)
		return err
	case protowire.Fixed32Type:
		return p.discard(4)
	case protowire.Fixed64Type:
		return p.discard(8)
	}
	return ErrorAt(p.name, p.off, fmt.Errorf("protobuf: unsupported wire type %d at the top level", typ))
}

// discard skips n bytes.
func (p *ProtoStream) discard(n uint64) error {
	if n > math.MaxInt64 { // no input is that long: CopyN of a negative count would skip nothing
		return ErrorAt(p.name, p.off, fmt.Errorf("protobuf: field of %d bytes cut short: %w", n, io.ErrUnexpectedEOF))
	}
	m, err := io.CopyN(io.Discard, p.r, int64(n))
	p.off += m
	if err != nil {
		return ErrorAt(p.name, p.off, fmt.Errorf("protobuf: field of %d bytes cut short: %w", n, io.ErrUnexpectedEOF))
	}
	return nil
}
