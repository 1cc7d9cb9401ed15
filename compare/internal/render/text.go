package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// Text writes a terminal report within a width: lines, sections, fields
// and word-wrapped prose, and the warnings, inputs and rerun sections both
// modes end with.
type Text struct {
	EW    *reportfmt.ErrWriter // keeps the first write error
	Width int                  // the line width in runes
}

// NewText is a Text writing to w within width runes.
func NewText(w io.Writer, width int) *Text { return &Text{EW: reportfmt.NewErrWriter(w), Width: width} }

// Line writes s and a newline.
func (t *Text) Line(s string) { t.EW.Printf("%s\n", s) }

// Blank writes an empty line.
func (t *Text) Blank() { t.EW.Printf("\n") }

// Section writes a section's title line.
func (t *Text) Section(s string) { t.Line(s) }

// Field writes "  name     value" with the value wrapped under itself.
func (t *Text) Field(name, value string) {
	head := fmt.Sprintf("  %-9s ", name)
	t.Wrap(head, strings.Repeat(" ", utf8.RuneCountInString(head)), reportfmt.Sanitize(value))
}

// Wrap writes s word-wrapped to the width, the first line after first and
// the others after rest. A word longer than a line is cut.
func (t *Text) Wrap(first, rest, s string) {
	prefix, cur, wrote := first, "", false
	out := func() {
		t.Line(strings.TrimRight(prefix+cur, " "))
		prefix, cur, wrote = rest, "", true
	}
	room := func() int { return max(8, t.Width-utf8.RuneCountInString(prefix)) }
	for _, word := range strings.Fields(s) {
		for utf8.RuneCountInString(word) > room() {
			if cur != "" {
				out()
			}
			r := []rune(word)
			cur, word = string(r[:room()]), string(r[room():])
			out()
		}
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) > room() {
			out()
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	if cur != "" || !wrote {
		out()
	}
}

// Warnings writes the numbered warnings section (nothing when none).
func (t *Text) Warnings(fs []model.Footnote) {
	if len(fs) == 0 {
		return
	}
	t.Blank()
	t.Section("Warnings")
	for _, f := range fs {
		t.Wrap(fmt.Sprintf("  [%d] ", f.N), "      ", FootnoteText(f))
	}
}

// InputsAndRerun writes the inputs (with their side when sides) and the
// rerun command with its closing line.
func (t *Text) InputsAndRerun(r *model.Report, sides bool, closing string) {
	if len(r.Inputs) > 0 {
		t.Blank()
		t.Section("Inputs")
		for _, in := range r.Inputs {
			s := fmt.Sprintf("%s  %s  %s  %d bytes", reportfmt.Sanitize(in.Path), reportfmt.Sanitize(in.Format), reportfmt.ShortHash(in.SHA256), in.Size)
			rest := "    "
			if sides {
				s, rest = fmt.Sprintf("%-6s ", reportfmt.Sanitize(in.Side))+s, "         "
			}
			if in.Skipped {
				s += "  skipped: " + reportfmt.Sanitize(in.Error)
			}
			t.Wrap("  ", rest, s)
		}
	}
	if len(r.Manifest.Args) > 0 {
		t.Blank()
		t.Section("Rerun")
		t.Wrap("  ", "    ", CommandLine(r.Manifest))
		t.Wrap("  ", "  ", closing)
	}
}
