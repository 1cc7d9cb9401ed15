package scorecard

import (
	"encoding/json"
	"html/template"
	"reflect"
)

// The helpers below are the scorecard's presentation conventions, exported
// so that other reports (the compare subcommand's) escape, format and style
// exactly like the scorecard instead of keeping copies.

// Sanitize makes an input-derived string safe to show on one line: control
// characters (ESC, CR, LF, tab, DEL, C1) and bidirectional overrides are
// shown as Go-style escapes (\x1b, \n, \u202e) and invalid UTF-8 becomes
// U+FFFD.
func Sanitize(s string) string { return sanitize(s) }

// EscapeMarkdown escapes s for inline GitHub-flavoured Markdown, also inside
// a table cell (after Sanitize): emphasis, code, links, tables, headings,
// mentions and math characters get a backslash; <, > and & become entities.
func EscapeMarkdown(s string) string { return md(s) }

// MarkdownFence returns a backtick fence longer than any backtick run in
// body (at least three), so a fenced block cannot be closed by its content.
func MarkdownFence(body string) string { return mdFence(body) }

// ShellCommand renders args as one shell command line: each sanitized and
// quoted for a POSIX shell when it needs it, joined by spaces.
func ShellCommand(args []string) string { return shellCommand(args) }

// ShortHash is the display prefix of a hex digest: its first 12
// characters (after Sanitize), "-" when empty.
func ShortHash(s string) string { return sha12(s) }

// FormatFixed renders v with the given decimals, "~" for NaN or ±Inf.
func FormatFixed(v float64, decimals int) string { return fmtFixed(v, decimals) }

// FormatValue renders a measured value with its unit at a precision chosen
// by magnitude bands, "~" when unknown.
func FormatValue(v float64, unit string) string { return fmtValue(v, unit) }

// HeatColor maps a 0..1 score to "#rrggbb" on the scorecard's blue→red
// heatmap scale (NaN: the no-data grey, HeatNoDataColor).
func HeatColor(x float64) string { return heatColor(x) }

// HeatNoDataColor is the fill of heatmap cells without data.
const HeatNoDataColor = heatNoDataColor

// MarshalJSONValue encodes v (a struct of the kinds a Card uses) in the
// scorecard's JSON conventions, indented by two spaces: fields in struct
// order under their json tags, every field present, ingest.Time as an
// RFC3339Nano UTC string (null when zero), time.Duration as float seconds,
// NaN and ±Inf as null, nil slices as []. It panics on kinds a Card does
// not use (maps, interfaces): a programmer error.
func MarshalJSONValue(v any) ([]byte, error) {
	return json.MarshalIndent(toJSONValue(reflect.ValueOf(v)), "", "  ")
}

// StyleSheet is the scorecard page's CSS (style.css), for pages that want
// the same look.
func StyleSheet() template.CSS { return template.CSS(styleSheet) }
