package reportfmt

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Renderer is one output format of a report model M rendered with options O.
type Renderer[M, O any] struct {
	Name   string                              // the format's name, as --output-format takes it
	Render func(w io.Writer, m M, opt O) error // writes m in this format
}

// Formats is a report's format table, in the order its Names are listed.
// Each report declares one and dispatches its Render through it, so the
// format names, their order and the error wording are the same everywhere.
type Formats[M, O any] []Renderer[M, O]

// Names returns the formats' names, in table order.
func (fs Formats[M, O]) Names() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// Render writes m to w in format. what names the report in errors
// ("scorecard", "compare report"): a renderer's error comes back as
// "render WHAT as FORMAT: …" (wrapped), an unknown format as
// "render WHAT: UNKNOWN "FORMAT" (want one of …)" wrapping unknown.
func (fs Formats[M, O]) Render(w io.Writer, m M, format string, opt O, what string, unknown error) error {
	for _, f := range fs {
		if f.Name == format {
			if err := f.Render(w, m, opt); err != nil {
				return fmt.Errorf("render %s as %s: %w", what, format, err)
			}
			return nil
		}
	}
	return fmt.Errorf("render %s: %w %q (want one of %s)", what, unknown, format, strings.Join(fs.Names(), ", "))
}

// ErrWriter remembers the first write error, so that a renderer can write
// freely and check once at the end (Err).
type ErrWriter struct {
	w   io.Writer
	err error
}

// NewErrWriter returns an ErrWriter writing to w.
func NewErrWriter(w io.Writer) *ErrWriter { return &ErrWriter{w: w} }

// Write writes p unless an earlier write failed; it returns that error then.
func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Printf formats to the writer (see Write).
func (e *ErrWriter) Printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// Err is the first write error, nil when every write succeeded.
func (e *ErrWriter) Err() error { return e.err }

// fileExts are the report formats' file extensions.
var fileExts = map[string]string{".txt": "text", ".text": "text", ".json": "json", ".md": "markdown", ".markdown": "markdown",
	".html": "html", ".htm": "html"}

// FormatOfFile is the report format a file name's extension says
// (report.html: html, case aside), or false for an extension the table
// does not know.
func FormatOfFile(name string) (string, bool) {
	f, ok := fileExts[strings.ToLower(filepath.Ext(name))]
	return f, ok
}

// Ext is the usual file extension of a report format (".md" for
// markdown; "" for an unknown format).
func Ext(format string) string {
	return map[string]string{"text": ".txt", "json": ".json", "markdown": ".md", "html": ".html"}[format]
}
