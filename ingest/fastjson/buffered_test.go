package fastjson

import (
	"encoding/binary"
	"strings"
	"testing"
)

// bufferedCases are values, valid and not, for the buffered primitives,
// each followed by a delimiter (or not) so that every prefix is tried too.
var bufferedCases = []string{
	`"abc",`, `"",`, `"a\"b",`, `"a\\",`, "\"\u00e9\",", "\"a\x01\",", `"abcdefghijklmnopq",`, `"abc`,
	`0,`, `-0,`, `7}`, `123456789012345678,`, `1234567890123456789,`, `01,`, `-,`, `-a,`, `00,`, `10,`,
	`1.5,`, `1e5,`, `1E+5,`, `1e-5}`, `-1.25e10,`, `1.,`, `.5,`, `1e,`, `1e+,`, `0.0001,`, `1e400,`, `1e308,`,
	`1` + strings.Repeat("0", 310) + `,`, `1.` + strings.Repeat("0", 400) + `,`,
	`true,`, `false}`, `null]`, `tru,`, `nul`, `true`,
}

// scanAt returns a Scanner over in with the token bound maxTok.
func scanAt(in string, maxTok int64) *Scanner {
	return &Scanner{Buf: []byte(in), EOF: true, Keep: -1, MaxDepth: 10, MaxTok: maxTok}
}

// TestStrAtMatchesStr: where StrAt accepts a string, Str reads the same
// one and stops at the same byte; plain buffered strings are accepted.
func TestStrAtMatchesStr(t *testing.T) {
	for _, tok := range []int64{0, 3, 17} {
		for _, c := range bufferedCases {
			for n := 0; n <= len(c); n++ {
				in := c[:n]
				end := StrAt([]byte(in), 0, tok)
				s := scanAt(in, tok)
				v, ok := s.Str()
				if end >= 0 && (!ok || s.Pos() != end || v != in[1:end-1]) {
					t.Errorf("maxTok %d, %q: StrAt end %d; Str %q %v at %d", tok, in, end, v, ok, s.Pos())
				}
			}
		}
	}
	if StrAt([]byte(`"abc",`), 0, 0) != 5 || StrAt([]byte(`"abc",`), 0, 3) != 5 || StrAt([]byte(`"abcd",`), 0, 3) != -1 {
		t.Error("StrAt declines a plain string within the bound, or accepts one beyond it")
	}
}

// TestIntAtMatchesInt: where IntAt accepts an integer, Int reads the same
// value and stops at the same byte; and it accepts what Int reads when a
// delimiter follows.
func TestIntAtMatchesInt(t *testing.T) {
	more := []string{`-123456789012345678,`, `5`, `-`, `1796004120017851,`, `1000000000000000}`, `1234567800000000,`, `12345678012345678,`,
		`12345678901234567,`, `-1234567890123456789,`, `12345678x`, `1234567:,`, `1234567/,`, `123456789012345.6,`, `0000000012345678,`, `12345678e5,`,
		`9999999999999999,`, `99999999999999999,`, `10000000,`, `1000000,`, `123456781234567`}
	for _, c := range append(bufferedCases, more...) {
		for n := 0; n <= len(c); n++ {
			in := c[:n]
			v, end := IntAt([]byte(in), 0)
			s := scanAt(in, 0)
			w, ok := s.Int()
			if end >= 0 && (!ok || s.Pos() != end || v != w) {
				t.Errorf("%q: IntAt %d end %d; Int %d %v at %d", in, v, end, w, ok, s.Pos())
			}
			if end < 0 && ok && s.Pos() < len(in) {
				t.Errorf("%q: IntAt declines what Int reads (%d)", in, w)
			}
		}
	}
}

// TestNumberAtMatchesValue: where NumberAt accepts a number, Value accepts
// it with the same bytes; and it accepts what Value does when a delimiter
// follows.
func TestNumberAtMatchesValue(t *testing.T) {
	for _, tok := range []int64{0, 2, 6} {
		for _, c := range bufferedCases {
			for n := 0; n <= len(c); n++ {
				in := c[:n]
				if in == "" || !(in[0] == '-' || in[0] >= '0' && in[0] <= '9') {
					continue
				}
				end := NumberAt([]byte(in), 0, tok)
				s := scanAt(in, tok)
				raw, ok := s.Value(1)
				if end >= 0 && (!ok || s.Pos() != end || string(raw) != in[:end]) {
					t.Errorf("maxTok %d, %q: NumberAt end %d; Value %q %v at %d", tok, in, end, raw, ok, s.Pos())
				}
				if end < 0 && ok && s.Pos() < len(in) {
					t.Errorf("maxTok %d, %q: NumberAt declines what Value reads (%q)", tok, in, raw)
				}
			}
		}
	}
}

// TestLitAtMatchesLit: LitAt accepts a literal only where Lit does, with a
// byte after it.
func TestLitAtMatchesLit(t *testing.T) {
	for _, c := range bufferedCases {
		for n := 0; n <= len(c); n++ {
			in := c[:n]
			for _, w := range []string{"true", "false", "null"} {
				end := LitAt([]byte(in), 0, w)
				s := scanAt(in, 0)
				ok := s.Lit(w)
				if end >= 0 && (!ok || s.Pos() != end) || end < 0 && ok && s.Pos() < len(in) {
					t.Errorf("%q, %s: LitAt %d; Lit %v at %d", in, w, end, ok, s.Pos())
				}
			}
		}
	}
}

// TestHintsMatch: Match finds the first hint at or after from that the
// bytes start with, as a comparison with each spelling does.
func TestHintsMatch(t *testing.T) {
	h := HintKeys("a", "bb", "a_key_of_twenty_bytes", "c")
	for _, in := range []string{`"a":1`, `"bb":`, `"bb" :`, `"a_key_of_twenty_bytes":1,"x":2,"y":3`, `"a_key_of_twenty_bytes"`, `"c":"`, `"c":1234567890123456789`, `"d":1`, `"`, ``} {
		for from := 0; from <= len(h); from++ {
			want := -1
			for j := from; j < len(h); j++ {
				if strings.HasPrefix(in, `"`+h[j].key+`":`) {
					want = j
					break
				}
			}
			if got := h.Match([]byte(in), from, 0); got != want {
				t.Errorf("%q from %d: Match %d, want %d", in, from, got, want)
			}
			if h.At([]byte(in), from) != (want == from) {
				t.Errorf("%q: At(%d) = %v, Match %d", in, from, h.At([]byte(in), from), want)
			}
			if want >= 0 && h.Len(want) != len(h[want].key)+3 {
				t.Errorf("Len(%d) = %d", want, h.Len(want))
			}
			// Past hint from the key is read by Str, under the token bound.
			if want > from && len(h[want].key) > 1 && h.Match([]byte(in), from, 1) != -1 {
				t.Errorf("%q from %d: Match takes a skipped key over the token bound", in, from)
			}
			if want == from && h.Match([]byte(in), from, 1) != want {
				t.Errorf("%q from %d: Match bounds the hinted key", in, from)
			}
		}
	}
}

// TestDigits8 checks digits8 against a byte-by-byte reading on words of
// digits and on words with one byte of each other value.
func TestDigits8(t *testing.T) {
	words := []string{"00000000", "12345678", "99999999", "17960041", "00000001", "10000000", "90000009"}
	for c := range 256 {
		for pos := range 8 {
			b := []byte("31415926")
			b[pos] = byte(c)
			words = append(words, string(b))
		}
	}
	for _, w := range words {
		var want uint64
		ok := true
		for i := range 8 {
			if w[i] < '0' || w[i] > '9' {
				ok = false
				break
			}
			want = want*10 + uint64(w[i]-'0')
		}
		got := digits8(binary.LittleEndian.Uint64([]byte(w)))
		if ok && got != want || !ok && got <= 99999999 {
			t.Errorf("digits8(%q) = %d, want %d (digits %v)", w, got, want, ok)
		}
	}
}
