package ingest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// jsonError turns a decoding error into an *InputError with the byte offset
// and, when the input is a file that can be re-read, its line and column.
// dec may be nil; it supplies the offset when err carries none.
func jsonError(name string, err error, dec *json.Decoder) error {
	if err == nil {
		return nil
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		err = fmt.Errorf("expected %v for field %q, found JSON %s", te.Type, te.Field, te.Value)
	case dec != nil:
		off = dec.InputOffset()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = errors.New("unexpected end of input (truncated JSON?)")
	}
	e := &InputError{File: name, Offset: off, Err: err}
	if off >= 0 {
		e.Line, e.Column = locate(name, off)
	}
	return e
}

// errorAt builds an *InputError at a byte offset (line/column looked up when
// the file can be re-read).
func errorAt(name string, off int64, err error) error {
	e := &InputError{File: name, Offset: off, Err: err}
	if off >= 0 {
		e.Line, e.Column = locate(name, off)
	}
	return e
}

// locate re-reads file name (transparently gunzipped) to find the 1-based
// line and column of a byte offset of the decoded stream. It returns zeros
// when the file cannot be re-read (stdin) — only used on the error path.
func locate(name string, off int64) (line, col int) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return 0, 0
		}
		r = zr
	}
	rr := bufio.NewReader(io.LimitReader(r, off))
	line, col = 1, 1
	for {
		c, err := rr.ReadByte()
		if err != nil {
			return line, col
		}
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
}
