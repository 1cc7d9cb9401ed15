package ingest

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// A toy schema: a top message whose field 1 is a leaf with an 8-byte ID
// (1), a name (2) and a count (3).
var testLeaf = &ProtoSchema{Leaf: true, NeedAny: []protowire.Number{1}, Fields: map[protowire.Number]ProtoField{
	1: {Type: protowire.BytesType, Size: 8}, 2: {Type: protowire.BytesType}, 3: {Type: protowire.VarintType}}}
var testTop = &ProtoSchema{Strict: true, Fields: map[protowire.Number]ProtoField{1: {Type: protowire.BytesType, Msg: testLeaf}}}

func testLeafMsg(name string) []byte {
	b := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("01234567"))
	b = protowire.AppendString(protowire.AppendTag(b, 2, protowire.BytesType), name)
	b = protowire.AppendVarint(protowire.AppendTag(b, 3, protowire.VarintType), 7)
	return protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b) // a top message holding it
}

func TestSniffProtoFramings(t *testing.T) {
	one, two := testLeafMsg("a"), testLeafMsg("bb")
	plain := append(append([]byte{}, one...), two...)
	be32 := append(binary.BigEndian.AppendUint32(nil, uint32(len(one))), one...)
	varint := append(protowire.AppendVarint(nil, uint64(len(one))), one...)
	for name, tc := range map[string]struct {
		in   []byte
		want ProtoFraming
	}{
		"plain":                {plain, FramePlain},
		"be32":                 {be32, FrameBE32},
		"varint":               {varint, FrameVarint},
		"cut inside a message": {plain[:len(plain)-3], FramePlain},
		"JSON":                 {[]byte(`{"resourceSpans":[]}`), FrameNone},
		"leaf without its ID":  {protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 7)), FrameNone},
		"text":                 {[]byte("2026-11-30T02:00:00Z INFO hello\n"), FrameNone},
		"wrong ID size":        {protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("0123"))), FrameNone},
		"no leaf field":        {protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1), FrameNone},
		"wrong wire type":      {protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1), FrameNone},
	} {
		if got := SniffProto(tc.in, testTop); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

func TestProtoStream(t *testing.T) {
	one, two := testLeafMsg("a"), testLeafMsg("bb")
	read := func(in []byte, f ProtoFraming, max int64) ([]string, error) {
		ps := NewProtoStream("x.pb", strings.NewReader(string(in)), f, max)
		var out []string
		for {
			msg, _, err := ps.Next()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, string(msg))
		}
	}
	plain := append(append([]byte{}, one...), two...)
	got, err := read(plain, FramePlain, 1<<20)
	if err != nil || len(got) != 2 || got[0] != string(one) || got[1] != string(two) {
		t.Errorf("plain: %q %v", got, err)
	}
	be32 := append(binary.BigEndian.AppendUint32(nil, uint32(len(plain))), plain...)
	if got, err := read(be32, FrameBE32, 1<<20); err != nil || len(got) != 1 || got[0] != string(plain) {
		t.Errorf("be32: %q %v", got, err)
	}
	if _, err := read(be32, FrameBE32, 4); !errors.Is(err, ErrLimit) {
		t.Errorf("a message over the bound: %v, want ErrLimit", err)
	}
	var ie *InputError
	if got, err := read(plain[:len(plain)-2], FramePlain, 1<<20); len(got) != 1 || !errors.As(err, &ie) || ie.Offset != int64(len(plain)-2) {
		t.Errorf("cut short: %q %v, want one message and an error at the end", got, err)
	}
}
