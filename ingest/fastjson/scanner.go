// Package fastjson is the hand-written JSON scanner under the fast paths of
// the Jaeger, Prometheus and Loki decoders (ingest/jaeger/jaegerfast.go,
// ingest/prometheus/promfast.go, ingest/logs/loki/lokifast.go): views into
// recycled read buffers, SWAR checks for string runs, and exact-case key
// matching. It reports only "not applicable" (false), never a positioned
// error: the general reader does. A library: it imports nothing of the
// module.
package fastjson

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// strSpecial marks the bytes that end the plain run of a JSON string: the
// quote, the escape, control characters and non-ASCII (checked for UTF-8).
var strSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// hasSpecial8 reports whether any of the eight bytes of w is one strSpecial
// marks: a quote, a backslash, a control character or a non-ASCII byte
// (the SWAR zero-byte tests of "Bit Twiddling Hacks").
func hasSpecial8(w uint64) bool { return special8(w) != 0 }

// special8 is hasSpecial8's mask: the high bit of each byte of w (little
// endian) that may be special. Borrows can flag bytes above a special one,
// never below it, so the lowest set bit is exact: the first special byte
// is bits.TrailingZeros64(m)/8.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := w^(ones*'"'), w^(ones*'\\')
	return (w & highs) | ((q - ones) &^ q & highs) | ((b - ones) &^ b & highs) | ((w - ones*0x20) &^ w & highs)
}

// plainRun returns the index of the first byte of buf at or after i that
// strSpecial marks (len(buf) when none): eight bytes at a time while a
// word is left, then byte by byte.
func plainRun(buf []byte, i int) int {
	for i+8 <= len(buf) {
		if m := special8(binary.LittleEndian.Uint64(buf[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(buf) && !strSpecial[buf[i]] {
		i++
	}
	return i
}

// MaxSpaceRun bounds a run of whitespace whatever the token bound says (here
// and in ingest's token guard): no JSON writer indents by more, and
// encoding/json rescans a run each time it reads more of it (quadratic in
// the run's length).
const MaxSpaceRun = 64 << 10

// fastBufSize is the read size of the fast scanner.
const fastBufSize = 1 << 20

// minBufSize is the smallest first buffer a size hint makes (Scanner.Size).
const minBufSize = 4 << 10

// Scanner is a minimal JSON scanner over an io.Reader.
type Scanner struct {
	R   io.Reader
	Buf []byte // buf[pos:] is unread
	pos int
	EOF bool
	// Keep is the start (in buf) of bytes that must survive a refill, or -1.
	Keep     int
	MaxDepth int
	// MaxTok, when > 0, bounds a string, a number and a run of whitespace
	// as the token guard does (guard.go; whitespace also at MaxSpaceRun):
	// a longer one fails the scan, so the caller declines and the general
	// reader, behind the guard, reports it. It lets a fast path run
	// without the guard's second pass over every byte.
	MaxTok int64
	// retired buffers may still be viewed by the current trace; recycle
	// moves them to pool once the trace is flushed (nothing views them then).
	retired, pool [][]byte
	// Size, when > 0, is the input's expected length in bytes (a hint,
	// never a bound): the first buffer is made no larger than the input
	// needs, so a small file does not cost a megabyte of fresh pages.
	Size         int64
	ReadErr      error // the read error that stopped the scanner
	retiredBytes int   // capacity of retired
}

// maxRetained bounds the buffers one trace may pin in the fast path.
const maxRetained = 64 << 20

// errRetained stops the fast scanner at maxRetained.
var errRetained = errors.New("jaeger fast path: a trace pins too many buffers")

// Recycle makes the buffers retired so far reusable. Call it only when no
// view into them is live (between traces).
func (s *Scanner) Recycle() {
	s.pool = append(s.pool, s.retired...)
	s.retired = s.retired[:0]
	s.retiredBytes = 0
}

// fill reads more input. Bytes from keep (or pos) on are carried into a fresh
// buffer so that views into the old one stay valid.
func (s *Scanner) fill() bool {
	if s.EOF {
		return false
	}
	from := s.pos
	if s.Keep >= 0 && s.Keep < from {
		from = s.Keep
	}
	tail := s.Buf[from:]
	size := fastBufSize
	if s.Buf == nil && s.Size > 0 && s.Size < fastBufSize {
		size = max(int(s.Size)+1, minBufSize) // +1: the read that meets EOF fits
	}
	if len(tail)*2 > size {
		size = len(tail) * 2
	}
	var nb []byte
	if n := len(s.pool); n > 0 && size == fastBufSize {
		nb = s.pool[n-1][:len(tail)]
		s.pool = s.pool[:n-1]
	} else {
		nb = make([]byte, len(tail), size)
	}
	copy(nb, tail)
	if cap(s.Buf) == fastBufSize {
		s.retired = append(s.retired, s.Buf[:0])
		s.retiredBytes += fastBufSize
		if s.retiredBytes > maxRetained {
			// One trace pins more than maxRetained of buffers (its spans view
			// them): the general reader, which copies, reads it instead.
			s.EOF, s.ReadErr = true, errRetained
		}
	}
	for len(nb) < cap(nb) {
		n, err := s.R.Read(nb[len(nb):cap(nb)])
		nb = nb[:len(nb)+n]
		if err != nil {
			// A read error ends the input like EOF (so that nothing indexes
			// a missing buffer); rerr makes the caller give up.
			s.EOF = true
			if !errors.Is(err, io.EOF) {
				s.ReadErr = err
			}
			break
		}
	}
	if s.Keep >= 0 {
		s.Keep -= from
	}
	s.pos -= from
	grew := len(nb) > len(tail)
	s.Buf = nb
	return grew
}

// ws skips whitespace and returns the next byte without consuming it
// (0 at the end of the input, or after a run of whitespace over MaxTok or
// MaxSpaceRun).
func (s *Scanner) SkipWS() byte {
	// Most calls meet a significant byte at once: no counting then. The
	// hot loops inline this check (cur, then skipWS only at a blank).
	if c := s.cur(); c > ' ' {
		return c
	}
	return s.skipWS()
}

// cur is the byte at pos, 0 past the buffer (no refill): where it is over
// ' ', it is what SkipWS returns.
func (s *Scanner) cur() byte {
	if s.pos < len(s.Buf) {
		return s.Buf[s.pos]
	}
	return 0
}

// skipWS is SkipWS past its inlined first check.
func (s *Scanner) skipWS() byte {
	if s.pos < len(s.Buf) {
		if c := s.Buf[s.pos]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	run := 0
	for {
		buf, i := s.Buf, s.pos
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r') {
			i++
		}
		run += i - s.pos
		s.pos = i
		if s.MaxTok > 0 && int64(run) > min(s.MaxTok, MaxSpaceRun) {
			s.ReadErr = errFastToken
			return 0
		}
		if i < len(buf) {
			return buf[i]
		}
		if !s.fill() {
			return 0
		}
	}
}

// errFastToken stops the fast scanner at a token over MaxTok: the caller
// declines, and the guarded general reader reports the limit.
var errFastToken = errors.New("fast path: a token over the token bound")

// Pos is the offset in Buf of the first unread byte: with the count of
// bytes read, a caller can say where in the input a scan stopped.
func (s *Scanner) Pos() int { return s.pos }

// AtEnd reports whether only whitespace is left and the input ended
// cleanly (ws returns 0 for a NUL byte too, which is not the end).
func (s *Scanner) AtEnd() bool {
	return s.SkipWS() == 0 && s.pos >= len(s.Buf) && s.ReadErr == nil
}

// Expect consumes c (after whitespace).
func (s *Scanner) Expect(c byte) bool {
	if s.SkipWS() != c {
		return false
	}
	s.pos++
	return true
}

// Str reads a string and returns its contents as a view (or a decoded copy
// when it has escapes).
func (s *Scanner) Str() (string, bool) {
	if c := s.cur(); c != '"' && (c > ' ' || s.skipWS() != '"') {
		return "", false
	}
	// Most strings are plain and buffered whole: a view at once.
	if end := plainRun(s.Buf, s.pos+1); end < len(s.Buf) && s.Buf[end] == '"' && (s.MaxTok <= 0 || int64(end-s.pos-1) <= s.MaxTok) {
		body := s.Buf[s.pos+1 : end]
		s.pos = end + 1
		if len(body) == 0 {
			return "", true
		}
		return unsafe.String(&body[0], len(body)), true
	}
	owner := s.Keep < 0 // this call set keep and must clear it
	if owner {
		s.Keep = s.pos
	}
	v, ok := s.strKept()
	if owner {
		s.Keep = -1
	}
	return v, ok
}

// strKept is str with s.keep set at or before the opening quote.
func (s *Scanner) strKept() (string, bool) {
	// Offsets relative to s.keep survive refills.
	start, i := s.pos-s.Keep, s.pos+1-s.Keep
	esc, high := false, false
	for {
		buf := s.Buf[s.Keep:]
		i = plainRun(buf, i)
		if i >= len(buf) {
			if s.MaxTok > 0 && int64(i-start-1) > s.MaxTok {
				s.ReadErr = errFastToken
				return "", false // longer than the token bound
			}
			if !s.fill() {
				return "", false
			}
			continue
		}
		c := buf[i]
		if c == '"' {
			break
		}
		switch {
		case c < 0x20:
			return "", false
		case c == '\\':
			esc = true
			i++ // the escaped byte cannot end the string
			if s.Keep+i >= len(s.Buf) && !s.fill() {
				return "", false
			}
		case c >= 0x80:
			high = true
		}
		i++
	}
	if s.MaxTok > 0 && int64(i-start-1) > s.MaxTok {
		s.ReadErr = errFastToken
		return "", false
	}
	raw := s.Buf[s.Keep+start : s.Keep+i+1]
	s.pos = s.Keep + i + 1
	if high && !utf8.Valid(raw) {
		return "", false
	}
	if esc {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return "", false
		}
		return v, true
	}
	body := raw[1 : len(raw)-1]
	if len(body) == 0 {
		return "", true
	}
	return unsafe.String(&body[0], len(body)), true
}

// Int reads an integer literal (no fraction or exponent).
func (s *Scanner) Int() (int64, bool) {
	c := s.cur()
	if c <= ' ' {
		c = s.skipWS()
	}
	neg := false
	if c == '-' {
		neg = true
		s.pos++
	}
	var v int64
	n := 0
	for more := true; more; {
		// The buffered digits in a local loop; a refill only at the end
		// of the buffer.
		buf, i := s.Buf, s.pos
		for ; i < len(buf); i++ {
			c := buf[i]
			if c < '0' || c > '9' {
				if c == '.' || c == 'e' || c == 'E' {
					return 0, false
				}
				more = false
				break
			}
			if n > 0 && v == 0 { // leading zero
				return 0, false
			}
			if n >= 18 {
				return 0, false
			}
			v = v*10 + int64(c-'0')
			n++
		}
		s.pos = i
		if more && !s.fill() {
			break
		}
	}
	if n == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// Value skips one JSON value, validating it, and returns its raw bytes as a
// view. depth is the nesting of the value's container.
func (s *Scanner) Value(depth int) ([]byte, bool) {
	c := s.SkipWS()
	owner := s.Keep < 0
	if owner {
		s.Keep = s.pos
	}
	rel := s.pos - s.Keep
	ok := s.skip(c, depth)
	var raw []byte
	if ok {
		raw = s.Buf[s.Keep+rel : s.pos]
	}
	if owner {
		s.Keep = -1
	}
	return raw, ok
}

func (s *Scanner) skip(c byte, depth int) bool {
	switch {
	case c == '"':
		_, ok := s.Str()
		return ok
	case c == '{' || c == '[':
		if depth+1 > s.MaxDepth {
			return false
		}
		s.pos++
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if s.SkipWS() == end {
			s.pos++
			return true
		}
		for {
			if c == '{' {
				if _, ok := s.Str(); !ok || !s.Expect(':') {
					return false
				}
			}
			if !s.skip(s.SkipWS(), depth+1) {
				return false
			}
			switch s.SkipWS() {
			case ',':
				s.pos++
			case end:
				s.pos++
				return true
			default:
				return false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.Lit("true")
	case c == 'f':
		return s.Lit("false")
	case c == 'n':
		return s.Lit("null")
	}
	return false
}

// RawObject returns the raw bytes of the object that starts at the next
// non-space byte, delimited by matching braces and brackets outside strings
// only: it does not validate them. A caller may trust them only if they
// equal bytes it validated before; otherwise it must parse them (a
// sub-scanner over the returned bytes does, and refuses a mis-delimited
// invalid object). Process objects repeat in every trace of a service, so
// this skips most of their parsing.
func (s *Scanner) RawObject() ([]byte, bool) {
	if s.SkipWS() != '{' {
		return nil, false
	}
	owner := s.Keep < 0
	if owner {
		s.Keep = s.pos
	}
	// Offsets relative to s.keep survive refills.
	start, i := s.pos-s.Keep, s.pos+1-s.Keep
	depth, inStr := 1, false
	for depth > 0 {
		if s.Keep+i >= len(s.Buf) {
			// The object is parsed again by the caller (with the token
			// bound); here only its buffering is bounded: a process object
			// longer than one token plus one whitespace run is declined.
			if s.MaxTok > 0 && int64(i-start) > s.MaxTok+MaxSpaceRun || !s.fill() {
				if owner {
					s.Keep = -1
				}
				return nil, false
			}
			continue
		}
		if inStr {
			// Inside a string only a quote or an escape matters: skip
			// eight plain bytes at once, or jump to the first special
			// one (special8's lowest bit is exact).
			if j := s.Keep + i; j+8 <= len(s.Buf) {
				m := special8(binary.LittleEndian.Uint64(s.Buf[j:]))
				if m == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(m) >> 3 // to the first special byte
			}
		}
		c := s.Buf[s.Keep+i]
		i++
		switch {
		case inStr && c == '\\':
			i++ // the escaped byte cannot end the string
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	if s.Keep+i > len(s.Buf) { // an escape was the input's last byte
		if owner {
			s.Keep = -1
		}
		return nil, false
	}
	raw := s.Buf[s.Keep+start : s.Keep+i]
	s.pos = s.Keep + i
	if owner {
		s.Keep = -1
	}
	return raw, true
}

// SkipPrefix consumes p when the input at the next non-blank byte starts
// with it as far as it is buffered, and reports whether it did: false also
// when p reaches past the buffered bytes (the caller then reads the value
// another way). A caller that matches the text of a value read before
// (RawObject's) skips the same bytes as reading it again would.
func (s *Scanner) SkipPrefix(p string) bool {
	if s.SkipWS() == 0 {
		return false
	}
	if end := s.pos + len(p); end <= len(s.Buf) && string(s.Buf[s.pos:end]) == p {
		s.pos = end
		return true
	}
	return false
}

// Lit consumes the literal w.
func (s *Scanner) Lit(w string) bool {
	for i := 0; i < len(w); i++ {
		if s.pos >= len(s.Buf) && !s.fill() {
			return false
		}
		if s.pos >= len(s.Buf) || s.Buf[s.pos] != w[i] {
			return false
		}
		s.pos++
	}
	return true
}

// number consumes a JSON number, checking its grammar (and its length
// against MaxTok). A number that may lie beyond float64's range (more than
// 308 decimal digits before the point, counting the exponent) is refused:
// encoding/json's Token, which the general readers skip values with,
// rejects it, so the fast paths decline it and leave the error to them.
func (s *Scanner) number() bool {
	n := 0 // bytes consumed
	peek := func() byte {
		if s.pos >= len(s.Buf) && !s.fill() {
			return 0
		}
		if s.pos >= len(s.Buf) {
			return 0
		}
		return s.Buf[s.pos]
	}
	next := func() { s.pos++; n++ }
	digits := func() int {
		d := 0
		for c := peek(); c >= '0' && c <= '9'; c = peek() {
			next()
			d++
			if s.MaxTok > 0 && int64(n) > s.MaxTok {
				return 0 // longer than the token bound: fail
			}
		}
		return d
	}
	if peek() == '-' {
		next()
	}
	intDigits := 0 // a leading 0 is not a magnitude digit
	if peek() == '0' {
		next()
	} else if intDigits = digits(); intDigits == 0 {
		return false
	}
	if peek() == '.' {
		next()
		if digits() == 0 {
			return false
		}
	}
	exp := 0
	if c := peek(); c == 'e' || c == 'E' {
		next()
		sign := 1
		if c := peek(); c == '+' || c == '-' {
			if c == '-' {
				sign = -1
			}
			next()
		}
		d := 0
		for c := peek(); c >= '0' && c <= '9'; c = peek() {
			next()
			d++
			exp = min(exp*10+int(c-'0'), 1<<20)
			if s.MaxTok > 0 && int64(n) > s.MaxTok {
				return false
			}
		}
		if d == 0 {
			return false
		}
		exp *= sign
	}
	if intDigits+exp > 308 {
		return false // maybe beyond float64: see above
	}
	return s.MaxTok <= 0 || int64(n) <= s.MaxTok
}

// Object calls field for each key of an object ('{' not yet read); field
// must consume the value. Duplicate or case-folded known keys are refused by
// field itself.
func (s *Scanner) Object(field func(key string) bool) bool {
	return s.ObjectHinted(nil, field)
}

// ObjectHinted is object for an object whose keys usually come in the order
// of hints, spelled exactly so (as Jaeger's own encoder writes them): such a
// key is matched by one comparison instead of being scanned as a string.
// Any other key, or a hinted one spelled otherwise (escapes, a space before
// the colon), is read as object reads it, and the hints resume after it, so
// field sees the same keys either way; hints only save time.
func (s *Scanner) ObjectHinted(hints keyHints, field func(key string) bool) bool {
	if !s.Expect('{') {
		return false
	}
	if s.SkipWS() == '}' {
		s.pos++
		return true
	}
	next := 0 // the hint to try first
	for {
		var k string
		if h := s.hinted(hints, next); h != nil {
			k = h.key
			s.pos += len(h.q)
			next++
		} else {
			var ok bool
			if k, ok = s.Str(); !ok || !s.Expect(':') {
				return false
			}
			for i := next; i < len(hints); i++ {
				if hints[i].key == k {
					next = i + 1
					break
				}
			}
		}
		if !field(k) {
			return false
		}
		c := s.cur()
		if c <= ' ' {
			c = s.skipWS()
		}
		switch c {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// hinted returns &hints[i] when the buffered input at the next non-blank
// byte starts with it, else nil.
func (s *Scanner) hinted(hints keyHints, i int) *keyHint {
	if i >= len(hints) {
		return nil
	}
	if c := s.cur(); c != '"' && (c > ' ' || s.skipWS() != '"') {
		return nil
	}
	if h := &hints[i]; h.matches(s.Buf[s.pos:]) {
		return h
	}
	return nil
}

// Array calls elem for each element of an array ('[' not yet read); null is
// an empty array.
func (s *Scanner) Array(elem func() bool) bool {
	if s.SkipWS() == 'n' {
		return s.Lit("null")
	}
	if !s.Expect('[') {
		return false
	}
	if s.SkipWS() == ']' {
		s.pos++
		return true
	}
	for {
		if !elem() {
			return false
		}
		c := s.cur()
		if c <= ' ' {
			c = s.skipWS()
		}
		switch c {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// Strings reads null or an array of strings, appending copies to dst.
func (s *Scanner) Strings(dst []string) ([]string, bool) {
	ok := s.Array(func() bool {
		v, ok := s.Str()
		if ok {
			dst = append(dst, string([]byte(v)))
		}
		return ok
	})
	return dst, ok
}

// Seen tracks the keys of one object; it refuses duplicates and keys that
// match a known name only case-insensitively (encoding/json would accept
// them: the general reader decides).
type Seen uint32

// First reports whether bit is seen for the first time, and marks it.
func (m *Seen) First(bit uint) bool {
	if *m&(1<<bit) != 0 {
		return false
	}
	*m |= 1 << bit
	return true
}

// FoldsTo reports whether key case-folds to one of names.
func FoldsTo(key string, names ...string) bool {
	for _, n := range names {
		if len(n) == len(key) && equalFoldASCII(n, key) {
			return true
		}
	}
	return false
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
