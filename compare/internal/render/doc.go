// Package render is the presentation compare's two modes share: both the
// before/after renderers (package compare) and the canary renderers
// (package compare/canary) import it, and neither imports the other's.
//
// It holds how a value with its unit, a duration and a window are written
// (Value, Duration, Window; the mode's change texts use them too), the
// lines every report has (ToolLine, CommandLine, FootnoteText), the text
// writer (Text: wrapping within a width, sections, fields, the warnings,
// inputs and rerun sections), the Markdown writer (Markdown: lines, table
// rows, warnings) and the page's warnings and inputs (NotesAndInputsHTML).
// The presentation compare shares with the scorecard (sanitizing,
// escaping, numbers, the JSON conventions, the style sheet) is package
// internal/reportfmt, which this package builds on.
//
// Files: render.go (values, durations, windows, the common lines),
// text.go, markdown.go and html.go (the writers).
package render
