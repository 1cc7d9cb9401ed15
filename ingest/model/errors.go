package model

import (
	"errors"
	"fmt"
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
