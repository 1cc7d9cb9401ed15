package render

import (
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// Markdown writes GitHub-flavoured Markdown for a ticket: lines, table
// rows and the warnings section both modes show.
type Markdown struct {
	EW *reportfmt.ErrWriter // keeps the first write error
}

// NewMarkdown is a Markdown writer writing to w.
func NewMarkdown(w io.Writer) *Markdown { return &Markdown{EW: reportfmt.NewErrWriter(w)} }

// P writes one line: format and args as fmt.Printf, then a newline.
func (m *Markdown) P(format string, args ...any) { m.EW.Printf(format+"\n", args...) }

// Row writes one table row of already-escaped cells.
func (m *Markdown) Row(cells ...string) { m.P("| %s |", strings.Join(cells, " | ")) }

// Warnings writes the numbered warnings section (nothing when none).
func (m *Markdown) Warnings(fs []model.Footnote) {
	if len(fs) == 0 {
		return
	}
	m.P("")
	m.P("### Warnings")
	m.P("")
	for _, f := range fs {
		m.P("- **\\[%d\\]** %s", f.N, reportfmt.EscapeMarkdown(FootnoteText(f)))
	}
}

// Command writes the manifest's command line as a fenced sh block.
func (m *Markdown) Command(man model.Manifest) {
	cmd := CommandLine(man)
	f := reportfmt.MarkdownFence(cmd)
	m.P("%ssh", f)
	m.P("%s", cmd)
	m.P("%s", f)
}
