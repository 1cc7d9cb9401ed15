package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// tokenOffsets is the valueStart to pass to JSONErrorAt when it is not known
// whether err came from dec.Token (absolute offsets) or dec.Decode (offsets
// relative to the value).
const tokenOffsets = -1

// JSONError positions an error from dec.Token, from a Decode whose value
// start is unknown, or (dec nil) from json.Unmarshal of a whole input. It is
// JSONErrorAt(name, err, dec, tokenOffsets).
func JSONError(name string, err error, dec *json.Decoder) error {
	return JSONErrorAt(name, err, dec, tokenOffsets)
}

// JSONErrorAt is the one place a JSON decoding error gets its position; it
// returns an *InputError (err itself when it already is one) whose Offset
// follows encoding/json ("after reading Offset bytes") and whose line and
// column are looked up when the input is a re-readable file.
//
// encoding/json's offsets are not absolute in a stream: a SyntaxError from
// Token is absolute, one from Decode is not (see below), and an
// UnmarshalTypeError counts from the start of the decoded value. valueStart says where that value began:
//   - for dec.Decode, dec.InputOffset() taken just before the call;
//   - for json.Unmarshal of a slice (dec nil), the slice's offset in the input;
//   - tokenOffsets when unknown (dec.Token, or a mixed path): a SyntaxError
//     whose offset equals dec.InputOffset() is Token's (absolute), any other
//     is Decode's; a type error is placed at the end of the decoded value.
//
// A Decode SyntaxError's offset counts only the bytes that earlier Decode
// calls scanned, not those Token consumed, so it is recomputed by rescanning
// the failed value, which dec still holds buffered from dec.InputOffset().
//
// A truncated input (io.ErrUnexpectedEOF, or io.EOF inside a value) is placed
// at the end of the data, where more was expected; other read errors (such
// as the size limit) at the byte where reading stopped.
func JSONErrorAt(name string, err error, dec *json.Decoder, valueStart int64) error {
	if err == nil {
		return nil
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	readSoFar := func() int64 { return dec.InputOffset() + BufferedLen(dec) }
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	truncated := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	switch {
	case truncated && dec != nil:
		off = readSoFar()
	case errors.As(err, &se):
		switch {
		case dec == nil && valueStart >= 0:
			off = valueStart + se.Offset
		case dec == nil:
			off = se.Offset
		case valueStart < 0 && se.Offset == dec.InputOffset():
			off = se.Offset // Token: already absolute
		default:
			// Decode: dec still points at the failed value, but se.Offset
			// counts only the bytes earlier Decode calls scanned (not
			// those Token consumed). Rescanning the buffered value gives
			// the offset inside it.
			off = dec.InputOffset()
			var raw json.RawMessage
			var se2 *json.SyntaxError
			if buf, _ := io.ReadAll(dec.Buffered()); errors.As(json.Unmarshal(buf, &raw), &se2) {
				off += se2.Offset
				err = se2
			}
		}
		if strings.HasPrefix(se.Error(), "unexpected end of JSON input") {
			truncated = true
		}
	case errors.As(err, &te):
		switch {
		case valueStart >= 0:
			off = valueStart + te.Offset
		case dec != nil:
			off = dec.InputOffset()
		default:
			off = te.Offset
		}
		err = TypeErrMsg(te)
	case dec != nil:
		off = readSoFar()
	default:
		off = valueStart
	}
	if truncated {
		err = errors.New("unexpected end of input (truncated JSON?)")
	}
	return ErrorAt(name, off, err)
}

// BufferedLen is how many bytes dec holds that it has not consumed.
func BufferedLen(dec *json.Decoder) int64 {
	n, _ := io.Copy(io.Discard, dec.Buffered())
	return n
}

// ErrorAt builds an *InputError at a byte offset (line/column looked up when
// the file can be re-read).
func ErrorAt(name string, off int64, err error) error {
	e := &InputError{File: name, Offset: off, Err: err}
	if off >= 0 {
		e.Line, e.Column = Locate(name, off)
	}
	return e
}

// Locate re-reads file name (transparently gunzipped) to find the 1-based
// line and column of a byte offset of the decoded stream. It returns zeros
// when the file cannot be re-read (stdin) — only used on the error path.
func Locate(name string, off int64) (line, col int) {
	if st, err := os.Stat(name); err != nil || !st.Mode().IsRegular() {
		return 0, 0 // a pipe or FIFO cannot be read again (opening a FIFO would block)
	}
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
	// Count lines chunk by chunk (the offset can be a gigabyte in).
	buf := make([]byte, 256<<10)
	lr := io.LimitReader(r, off)
	line, col = 1, 1
	for {
		n, err := lr.Read(buf)
		chunk := buf[:n]
		if k := bytes.Count(chunk, []byte{'\n'}); k > 0 {
			line += k
			col = 1 + n - 1 - bytes.LastIndexByte(chunk, '\n')
		} else {
			col += n
		}
		if err != nil {
			return line, col
		}
	}
}

// JSONDelim reads the next token and checks it is the delimiter want.
func JSONDelim(dec *json.Decoder, name string, want json.Delim) error {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return JSONError(name, err, dec)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return ErrorAt(name, off, fmt.Errorf("expected %q, found %v", want, tok))
	}
	return nil
}

// JSONKey reads the next object key.
func JSONKey(dec *json.Decoder, name string) (string, error) {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return "", JSONError(name, err, dec)
	}
	k, ok := tok.(string)
	if !ok {
		return "", ErrorAt(name, off, fmt.Errorf("expected an object key, found %v", tok))
	}
	return k, nil
}

// JSONSkip consumes the next JSON value token by token (no buffering).
func JSONSkip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// TypeErrMsg renders a type error for JSONErrorAt and the readers.
func TypeErrMsg(te *json.UnmarshalTypeError) error {
	want := te.Type.String()
	switch te.Type.Kind() {
	case reflect.Struct, reflect.Map:
		want = "a JSON object"
	case reflect.Slice:
		want = "a JSON array"
	}
	if te.Field == "" {
		return fmt.Errorf("expected %s, found JSON %s", want, te.Value)
	}
	return fmt.Errorf("expected %s for field %q, found JSON %s", want, te.Field, te.Value)
}

// DescribeToken renders a JSON token for an error message.
func DescribeToken(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		return strconv.Quote(v.String())
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return "string " + strconv.Quote(v)
	default:
		return fmt.Sprintf("%T %v", v, v)
	}
}

// EndOfDocuments is what a stream of JSON documents says once dec has no
// more values at top level, n documents in: nil at a clean end after at
// least one, else an *InputError at the offset — an empty input, malformed
// JSON, or a stray closing '}' / ']' (which Token reports), named for
// format ("otlp", "otlp logs").
func EndOfDocuments(name, format string, dec *json.Decoder, n int) error {
	off := dec.InputOffset()
	_, terr := dec.Token()
	switch {
	case errors.Is(terr, io.EOF) && n == 0:
		return ErrorAt(name, off, errors.New("empty input"))
	case errors.Is(terr, io.EOF):
		return nil
	case terr != nil:
		return JSONError(name, terr, dec)
	}
	return ErrorAt(name, off, fmt.Errorf("%s: unexpected closing delimiter at top level", format))
}
