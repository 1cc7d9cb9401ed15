package logs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// MaxLineBytes is the longest input line a LineReader reads whole; the
// rest of a longer line is skipped with a warning.
const MaxLineBytes = 1 << 20

// LineReader reads the lines of a line-oriented log file (container logs,
// timestamped text, VictoriaLogs JSON lines), each of at most MaxLineBytes.
type LineReader struct {
	br   *bufio.Reader
	n    int // lines read
	long int // lines cut
	err  error
}

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line without its line break (a view valid until
// the next call; buf is its storage); ok is false at the end or on a read
// error (which Finish reports).
func (lr *LineReader) Next(buf *[]byte) (string, bool) {
	*buf = (*buf)[:0]
	for {
		frag, err := lr.br.ReadSlice('\n')
		if len(*buf)+len(frag) <= MaxLineBytes {
			*buf = append(*buf, frag...)
		} else if len(*buf) < MaxLineBytes {
			*buf = append(*buf, frag[:MaxLineBytes-len(*buf)]...)
			lr.long++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			lr.err = err
		}
		if len(*buf) == 0 && err != nil {
			return "", false
		}
		lr.n++
		return unsafeStr(bytes.TrimRight(*buf, "\r\n")), true
	}
}

// Each calls fn with every line that is not blank, until the input ends
// or the sink is full, then reports the reader's problems (Finish). The
// line is a view valid during the call; N is its number.
func (lr *LineReader) Each(s *LogSink, fn func(line string)) error {
	var buf []byte
	for !s.Full() {
		line, ok := lr.Next(&buf)
		if !ok {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		fn(line)
	}
	return lr.Finish(s)
}

// N is the number of lines read: the 1-based number of the line Next
// returned last.
func (lr *LineReader) N() int { return lr.n }

// Finish reports the reader's problems on the sink: the lines cut, and a
// read error (an error when no record was read, else a warning that keeps
// what was).
func (lr *LineReader) Finish(s *LogSink) error {
	if lr.long > 0 {
		s.b.Warn(ingest.ErrLimit, s.name, lr.long, "%d log lines longer than %d bytes cut", lr.long, MaxLineBytes)
	}
	if lr.err != nil {
		if len(s.b.Logs) == 0 {
			return &ingest.InputError{File: s.name, Line: lr.n + 1, Offset: -1, Err: lr.err}
		}
		s.b.Warn(ingest.ErrPartialInput, s.name, 1, "kept %d log records of the first %d lines: %v", len(s.b.Logs), lr.n, lr.err)
	}
	return nil
}

// YearOK reports whether t is within what ingest.Time holds (1970–2261).
func YearOK(t time.Time) bool { return t.Year() >= 1970 && t.Year() <= 2261 }

// DocBound fails a read once the document that starts at byte Start has
// taken more than Max bytes: encoding/json buffers a document (an OTLP
// logs document, a Loki stream object) whole before it is decoded, so one
// document costs several times its size. A reader sets Start to the
// offset of each document before decoding it.
type DocBound struct {
	R          io.Reader
	Start, Max int64
	What       string // "log document", "Loki stream"
	n          int64
}

func (d *DocBound) Read(p []byte) (int, error) {
	room := d.Start + d.Max + 1 - d.n
	if room <= 0 {
		return 0, fmt.Errorf("%w: a %s larger than %d bytes (--max-document-size)", ingest.ErrLimit, d.What, d.Max)
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := d.R.Read(p)
	d.n += int64(n)
	return n, err
}
