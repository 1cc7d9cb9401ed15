package render

import (
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// HTMLNote is one numbered warning on a page.
type HTMLNote struct {
	N    int
	Text string
}

// HTMLInput is one input file on a page: its side, path, format, digest
// (whole and shown), a note when it was skipped, and its size.
type HTMLInput struct {
	Side, Path, Format, SHA, SHA12, Note string
	Size                                 int64
}

// NotesAndInputsHTML are the report's warnings and inputs for a page.
func NotesAndInputsHTML(r *model.Report) ([]HTMLNote, []HTMLInput) {
	var notes []HTMLNote
	var inputs []HTMLInput
	for _, f := range r.Warnings {
		notes = append(notes, HTMLNote{N: f.N, Text: FootnoteText(f)})
	}
	for _, in := range r.Inputs {
		note := ""
		if in.Skipped {
			note = "skipped: " + reportfmt.Sanitize(in.Error)
		}
		inputs = append(inputs, HTMLInput{Side: reportfmt.Sanitize(in.Side), Path: reportfmt.Sanitize(in.Path), Format: reportfmt.Sanitize(in.Format),
			SHA: reportfmt.Sanitize(in.SHA256), SHA12: reportfmt.ShortHash(in.SHA256), Note: note, Size: in.Size})
	}
	return notes, inputs
}
