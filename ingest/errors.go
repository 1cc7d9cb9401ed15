package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel data-quality warning kinds; classify a Warning with errors.Is(w, ErrX).
var (
	ErrClockSkew     = errors.New("clock skew")
	ErrGap           = errors.New("gap in series")
	ErrOrphanSpan    = errors.New("orphan span")
	ErrDuplicateID   = errors.New("duplicate span id")
	ErrBadValue      = errors.New("bad value")
	ErrUnmatched     = errors.New("unmatched entity")
	ErrPartialInput  = errors.New("partial input")
	ErrSkippedInput  = errors.New("skipped input")
	ErrSourceWarning = errors.New("source warning") // a warning the producing tool itself attached
	ErrLimit         = errors.New("limit exceeded")
	ErrCounterReset  = errors.New("counter reset") // a raw _total/_count counter dropped
)

// Warning is a data-quality problem found while reading; it never stops the analysis.
type Warning struct {
	Kind    error  // one of the sentinel Err* values
	Source  string // file (or "derived")
	Count   int    // how many occurrences this warning summarises (>= 1)
	Message string
}

// Error implements error so that errors.Is(w, ErrClockSkew) works.
func (w Warning) Error() string {
	if w.Source == "" {
		return fmt.Sprintf("%v: %s", w.Kind, w.Message)
	}
	return fmt.Sprintf("%s: %v: %s", w.Source, w.Kind, w.Message)
}

// Unwrap returns the warning's kind.
func (w Warning) Unwrap() error { return w.Kind }

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
