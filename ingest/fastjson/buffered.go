package fastjson

import (
	"encoding/binary"
	"math/bits"
)

// Buffered scanning: primitives over the bytes already in the read buffer,
// for a caller that parses a whole object of a known shape in one pass
// (ingest/jaeger's spanBuf) and falls back to the Scanner's methods when
// anything is unusual. Each one accepts only what the matching Scanner
// method would accept and consume exactly so, and only when the value ends
// inside the given bytes (the Scanner would refill there): -1 means "read
// it the usual way", never "invalid".

// Rest returns the buffered unread input: a view of Buf, valid for as long
// as Str's views are. Nothing is read or skipped.
func (s *Scanner) Rest() []byte { return s.Buf[s.pos:] }

// Advance consumes the first n bytes of Rest (a caller that parsed them).
func (s *Scanner) Advance(n int) { s.pos += n }

// StrAt returns the end (the index past the closing quote) of the string
// that starts at b[i] (a quote) when Str would return it as a view at once:
// no escape, control or non-ASCII byte, the closing quote in b, and a body
// of at most maxTok bytes (maxTok <= 0: any length). Otherwise -1.
func StrAt(b []byte, i int, maxTok int64) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	// plainRun's loop, here to save a call a string.
	end := i + 1
	for {
		if end+8 > len(b) {
			for end < len(b) && !strSpecial[b[end]] {
				end++
			}
			break
		}
		if m := special8(binary.LittleEndian.Uint64(b[end:])); m != 0 {
			end += bits.TrailingZeros64(m) >> 3
			break
		}
		end += 8
	}
	if end >= len(b) || b[end] != '"' || maxTok > 0 && int64(end-i-1) > maxTok {
		return -1
	}
	return end + 1
}

// IntAt reads the integer at b[i:] as Int would (an optional minus, one
// to 18 digits without a leading zero, no fraction or exponent) when a
// byte after its digits is in b; end is -1 where Int would fail or would
// read further input.
func IntAt(b []byte, i int) (v int64, end int) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	n := 0
	var v8 uint64
	// Eight digits at a time while a word of them is left, to 16 digits,
	// when the number does not start with 0: the byte loop would take them
	// alike (no leading zero, fewer than 18 digits) and decides the rest.
	for n <= 8 && i+8 <= len(b) && (n > 0 || b[i] != '0') {
		if v8 = digits8(binary.LittleEndian.Uint64(b[i:])); v8 > 99999999 {
			break
		}
		v = v*100000000 + int64(v8)
		n += 8
		i += 8
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			if c == '.' || c == 'e' || c == 'E' || n == 0 {
				return 0, -1
			}
			if neg {
				v = -v
			}
			return v, i
		}
		if n > 0 && v == 0 || n >= 18 {
			return 0, -1
		}
		v = v*10 + int64(c-'0')
		n++
	}
	return 0, -1 // the digits reach the end of b
}

// digits8 returns the value of the eight ASCII digits of w (the first
// the most significant, little-endian), or a value over 99999999 when a
// byte of w is not a digit.
func digits8(w uint64) uint64 {
	const ones = 0x0101010101010101
	// A digit is 0x30-0x39: its high nibble is 3, and still 3 plus 6. The
	// sum carries into another byte only from a byte over 0xf9, which the
	// first test refuses.
	if w&(ones*0xf0) != ones*0x30 || (w+ones*6)&(ones*0xf0) != ones*0x30 {
		return 1 << 32
	}
	w -= ones * '0'
	w = w*10 + w>>8 // pairs: 10a+b in the even bytes
	w = (w&0x000000ff000000ff)*(100+(1000000<<32)) + (w>>16&0x000000ff000000ff)*(1+(10000<<32))
	return w >> 32
}

// NumberAt returns the end of the JSON number at b[i:] as the Scanner's
// number consumes it, when a byte after it is in b: the grammar, the token
// bound maxTok (<= 0: none) and float64's range as number checks them.
// Otherwise -1.
func NumberAt(b []byte, i int, maxTok int64) int {
	start := i
	digits := func() int {
		d := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			d++
		}
		return d
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	intDigits := 0
	if i < len(b) && b[i] == '0' {
		i++
	} else if intDigits = digits(); intDigits == 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		sign := 1
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			if b[i] == '-' {
				sign = -1
			}
			i++
		}
		d := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			exp = min(exp*10+int(b[i]-'0'), 1<<20)
			i++
			d++
		}
		if d == 0 {
			return -1
		}
		exp *= sign
	}
	if i >= len(b) || intDigits+exp > 308 || maxTok > 0 && int64(i-start) > maxTok {
		return -1
	}
	return i
}

// LitAt returns the end of the literal w (true, false or null) at b[i:]
// when b holds it and a byte after it; otherwise -1.
func LitAt(b []byte, i int, w string) int {
	if end := i + len(w); end < len(b) && string(b[i:end]) == w {
		return end
	}
	return -1
}

// Match returns the index of the first hint at or after from that b
// starts with, where ObjectHinted would see that key next (its hint from
// being from), or -1. A key past hint from is one ObjectHinted reads with
// Str: it is refused beyond the token bound maxTok (<= 0: none), as Str
// refuses it.
func (h keyHints) Match(b []byte, from int, maxTok int64) int {
	for j := from; j < len(h); j++ {
		if h[j].matches(b) {
			if j > from && maxTok > 0 && int64(len(h[j].key)) > maxTok {
				return -1
			}
			return j
		}
	}
	return -1
}

// At reports whether b starts with hint j (false for j past the hints):
// Match's usual case, small enough to be inlined.
func (h keyHints) At(b []byte, j int) bool { return j < len(h) && h[j].matches(b) }

// Len returns the length of hint j's spelling `"key":`.
func (h keyHints) Len(j int) int { return len(h[j].q) }
