package ingest

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// tokenGuard bounds what one JSON token can make a decoder buffer. Every
// JSON decoder holds a whole token (a string, a number) in memory, and
// encoding/json also buffers a whole run of whitespace between tokens, so a
// gzip member that expands to gigabytes of spaces or of one string costs
// gigabytes whatever the decoder. The guard sits on each input's
// decompressed stream (in ReadFile, below every reader) and fails the stream
// with ErrLimit as soon as a string or a bare token (number, literal) is
// longer than max bytes, or a run of whitespace outside strings longer than
// max or fastjson.MaxSpaceRun.
//
// It decides from the content alone: it is active when the first byte that
// is not whitespace or a byte-order mark is '{' or '[' (a JSON document or
// JSON lines), and passes anything else through untouched, so every JSON
// reader, present or future, inherits it. Cost: one IndexByte pass over
// string contents and one table lookup per other byte.
type tokenGuard struct {
	r     io.Reader
	max   int64
	off   int64 // bytes of the stream passed so far
	mode  guardMode
	state guardState
	esc   bool  // inside a string: the next byte is escaped
	run   int64 // bytes of the current string, bare token or whitespace run
	err   error
}

type guardMode uint8

const (
	guardSniff guardMode = iota // before the first significant byte
	guardJSON
	guardOff
)

type guardState uint8

const (
	gsBetween guardState = iota // after a structural byte
	gsString
	gsBare
	gsSpace
)

// guardClass classifies a byte outside strings.
var guardClass = func() (t [256]guardState) {
	for c := range 256 {
		t[c] = gsBare
	}
	for _, c := range []byte(" \t\r\n") {
		t[c] = gsSpace
	}
	for _, c := range []byte("{}[]:,") {
		t[c] = gsBetween
	}
	t['"'] = gsString
	return t
}()

func newTokenGuard(r io.Reader, max int64) *tokenGuard {
	return &tokenGuard{r: r, max: max}
}

// Read passes the bytes through, cut at the first byte over the limit.
func (g *tokenGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if g.mode == guardOff || n == 0 {
		g.off += int64(n)
		return n, err
	}
	if ok := g.scan(p[:n]); ok < n {
		g.off += int64(ok)
		return ok, g.err
	}
	g.off += int64(n)
	return n, err
}

// scan advances the lexer over b and returns how many bytes are within the
// limit (len(b) when all are; then g.err is set).
func (g *tokenGuard) scan(b []byte) int {
	i := 0
	if g.mode == guardSniff {
		for i < len(b) {
			c := b[i]
			if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xef || c == 0xbb || c == 0xbf {
				i++
				continue
			}
			if c != '{' && c != '[' {
				g.mode = guardOff
				return len(b)
			}
			g.mode = guardJSON
			break
		}
		g.state = gsSpace // the leading run continues into the scan below
		if g.run+int64(i) > min(g.max, fastjson.MaxSpaceRun) {
			return g.fail(int(min(g.max, fastjson.MaxSpaceRun)-g.run), "run of whitespace")
		}
		g.run += int64(i)
		if g.mode == guardSniff {
			return len(b)
		}
	}
	for i < len(b) {
		if g.state == gsString {
			j, closed := g.stringEnd(b, i)
			if over := g.run + int64(j-i); over > g.max {
				return g.fail(i+int(g.max-g.run), "string")
			}
			g.run += int64(j - i)
			i = j
			if closed {
				g.state = gsBetween
				i++ // the closing quote
			}
			continue
		}
		c := b[i]
		switch cl := guardClass[c]; cl {
		case gsString:
			g.state, g.run = gsString, 0
			i++
		case gsBetween:
			g.state = gsBetween
			i++
		default: // a bare token byte or whitespace
			if g.state != cl {
				g.state, g.run = cl, 0
			}
			g.run++
			if g.run > g.max || cl == gsSpace && g.run > fastjson.MaxSpaceRun {
				what := "bare token (number or literal)"
				if cl == gsSpace {
					what = "run of whitespace"
				}
				return g.fail(i, what)
			}
			i++
		}
	}
	return len(b)
}

// stringEnd returns the index of the quote that closes the current string
// in b (from i), and true; or len(b) and false when the string goes on past
// b. It keeps g.esc across calls (a backslash at the end of b escapes the
// first byte of the next buffer).
func (g *tokenGuard) stringEnd(b []byte, i int) (int, bool) {
	j := i
	if g.esc {
		if j >= len(b) {
			return j, false
		}
		g.esc = false
		j++ // the escaped byte
	}
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			// Odd trailing backslashes escape the next buffer's first byte.
			n := 0
			for x := len(b) - 1; x >= j && b[x] == '\\'; x-- {
				n++
			}
			g.esc = n%2 == 1
			return len(b), false
		}
		q := j + k
		n := 0
		for x := q - 1; x >= j && b[x] == '\\'; x-- {
			n++
		}
		if n%2 == 0 {
			return q, true
		}
		j = q + 1 // an escaped quote
	}
}

// fail records the limit error at b[i] (bytes before i are passed on).
func (g *tokenGuard) fail(i int, what string) int {
	limit := g.max
	if what == "run of whitespace" {
		limit = min(g.max, fastjson.MaxSpaceRun)
	}
	g.err = fmt.Errorf("%w: a JSON %s longer than %d bytes (--max-token)", ErrLimit, what, limit)
	return i
}
