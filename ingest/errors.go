package ingest

import (
	"fmt"
	"strings"
)

// InputError is a malformed-input error with its position.
type InputError struct {
	File   string
	Offset int64 // byte offset, -1 when unknown
	Line   int   // 1-based line, 0 when unknown
	Column int   // 1-based column, 0 when unknown
	Err    error
}

// Error returns the one-line message "file:line:col: what was expected".
// Line breaks in the cause (decoders may quote the offending input) are
// escaped, so the message stays one line (found by FuzzReadFile).
func (e *InputError) Error() string {
	msg := "<nil>"
	if e.Err != nil {
		msg = oneLine.Replace(e.Err.Error())
	}
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, msg)
	}
}

// oneLine escapes line breaks.
var oneLine = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`)

func (e *InputError) Unwrap() error { return e.Err }
