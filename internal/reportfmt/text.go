package reportfmt

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Sanitize makes an input-derived string safe to show on one line: control
// characters (ESC, CR, LF, tab, DEL, C1) and bidirectional overrides are
// shown as Go-style escapes (\x1b, \r, \n, \t, \u202e), so no terminal
// escape can be injected and no line forged, and what the input held stays
// visible; invalid UTF-8 becomes U+FFFD.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) || isBidi(r) || r == utf8RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case unicode.IsControl(r):
			fmt.Fprintf(&sb, `\x%02x`, r)
		case isBidi(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		case r == utf8RuneError:
			sb.WriteRune('\uFFFD')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

const utf8RuneError = '\uFFFD'

func isBidi(r rune) bool {
	return (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069') || r == '\u200E' || r == '\u200F'
}

// mdReplacer escapes inline Markdown: backslash before every character that
// could start emphasis, code, links, tables, strikethrough, headings, mentions
// or math, and HTML entities for <, > and & so no raw HTML ever reaches the
// page. It is applied to every input-derived string after Sanitize.
var mdReplacer = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`,
	`~`, `\~`, `#`, `\#`, `@`, `\@`, `$`, `\$`,
	`<`, `&lt;`, `>`, `&gt;`, `&`, `&amp;`,
)

// EscapeMarkdown escapes s for inline GitHub-flavoured Markdown, also inside
// a table cell (after Sanitize): emphasis, code, links, tables, headings,
// mentions and math characters get a backslash; <, > and & become entities.
func EscapeMarkdown(s string) string { return mdReplacer.Replace(Sanitize(s)) }

// MarkdownFence returns a backtick fence longer than any backtick run in
// body (at least three), so a fenced block can never be closed early by its
// content.
func MarkdownFence(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// MarkdownSafeURL reports whether a link can go into Markdown as it is:
// http(s) and none of the characters that end or escape a link.
func MarkdownSafeURL(u string) bool {
	return (strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) && !strings.ContainsAny(u, " ()<>[]`\"\\\n\r")
}

// FormatFixed renders v with the given decimals, or "~" when v is NaN or
// infinite; never "-0.00".
func FormatFixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "~"
	}
	s := fmt.Sprintf("%.*f", decimals, v)
	if strings.TrimLeft(s, "-0.") == "" { // no "-0.00"
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// FormatValue renders a measured value with its unit (sanitized) at a
// precision chosen by magnitude bands (so equal inputs always render
// equally), "~" when unknown.
func FormatValue(v float64, unit string) string {
	var s string
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "~"
	case a >= 1000:
		s = FormatFixed(v, 0)
	case a >= 10:
		s = FormatFixed(v, 1)
	case a >= 0.01 || a == 0:
		s = FormatFixed(v, 2)
	default:
		s = fmt.Sprintf("%.2e", v)
	}
	unit = Sanitize(unit)
	switch unit {
	case "":
		return s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}

// ShortHash is the display prefix of a hex digest: its first 12
// characters (after Sanitize), "-" when empty.
func ShortHash(s string) string {
	s = Sanitize(s)
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "-"
	}
	return s
}

// ShellQuote quotes one argument for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellCommand renders args as one shell command line: each sanitized and
// quoted for a POSIX shell when it needs it, joined by spaces.
func ShellCommand(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(Sanitize(a))
	}
	return strings.Join(q, " ")
}

// Wrap splits text into lines of at most width runes at spaces. A word
// longer than a line is broken after a ',', '/', '&' or ';' where it can
// be (a series' labels, a path's directories), so a name is split only when
// it alone is longer than a line. It always returns at least one line.
func Wrap(text string, width int) []string {
	width = max(width, 10)
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(text) {
		wr := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(wr) > width {
			lines = append(lines, string(cur))
			cur = cur[:0]
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		for len(cur)+len(wr) > width {
			k := width - len(cur)
			if b := lastBreak(wr[:k]); b > 0 {
				k = b
			} else if len(cur) > 0 {
				k = 0 // start the word on a fresh line before splitting it
			}
			cur = append(cur, wr[:k]...)
			lines = append(lines, strings.TrimRight(string(cur), " "))
			cur, wr = cur[:0], wr[k:]
		}
		cur = append(cur, wr...)
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// lastBreak is the index after the last break character of w (a ',', '/',
// '&' or ';' not at its start), 0 when none.
func lastBreak(w []rune) int {
	for i := len(w) - 1; i > 0; i-- {
		switch w[i] {
		case ',', '/', '&', ';':
			return i + 1
		}
	}
	return 0
}
