package canary

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// formats are compare's report formats, in the order of compare.Formats.
var formats = []string{"text", "json", "markdown", "html"}

// renderFormat renders a canary report as package compare's Render does
// for Mode ModeCanary: this package's renderers at the default width of
// 100, and the model's JSON with a final newline.
func renderFormat(tb testing.TB, r *model.Report, format string) string {
	tb.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "text":
		err = RenderText(&buf, r, 100)
	case "markdown":
		err = RenderMarkdown(&buf, r)
	case "html":
		err = RenderHTML(&buf, r)
	case "json":
		var b []byte
		if b, err = r.MarshalJSON(); err == nil {
			buf.Write(append(b, '\n'))
		}
	default:
		tb.Fatalf("unknown format %q", format)
	}
	if err != nil {
		tb.Fatalf("render %s: %v", format, err)
	}
	return buf.String()
}

// TestGolden compares every format of the golden canary report with
// testdata/canary.<format>.golden; a second run and render of the same
// inputs must give the same bytes (the report is deterministic).
func TestGolden(t *testing.T) {
	a, b := canaryGoldenReport(t), canaryGoldenReport(t)
	for _, format := range formats {
		name := "canary." + format
		t.Run(name, func(t *testing.T) {
			got := renderFormat(t, a, format)
			if again := renderFormat(t, b, format); again != got {
				t.Fatal("two runs on the same inputs render differently")
			}
			reporttest.Golden(t, filepath.Join("testdata", name+".golden"), got, *update)
		})
	}
}
