package cmdrun

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// Output selects and places the analysis' report. Each tagged field is
// the command line's flag --NAME (driver generates the flags from the
// tags); the defaults are DefaultOutput's.
type Output struct {
	Format            string `flag:"output-format" short:"o"`
	Export            string `flag:"export"`
	Quiet             bool   `flag:"quiet" short:"q"`
	Verbose           bool   `flag:"verbose" short:"v"`
	Version           bool   `flag:"version"`
	FailOn            string `flag:"fail-on"`
	Slice             string `flag:"slice"`
	Dot               string `flag:"dot"`
	JaegerUI          string `flag:"jaeger-ui-url"`
	Grafana           string `flag:"grafana-url"`
	GrafanaDatasource string `flag:"grafana-datasource"`
	Runbooks          string `flag:"runbooks"`
	MaxChars          int    `flag:"max-chars"`
}

// DefaultOutput are the output defaults.
func DefaultOutput() Output {
	return Output{Format: "text", FailOn: "never", Slice: "30s", MaxChars: scorecard.DefaultMaxChars}
}

// Check checks -o, --fail-on, --slice and --jaeger-ui-url and returns the
// slice width.
func (of *Output) Check() (time.Duration, error) {
	okFormat := false
	for _, f := range scorecard.Formats() {
		okFormat = okFormat || f == of.Format
	}
	if !okFormat {
		return 0, fmt.Errorf("--output-format %q: want one of %s%s", of.Format, strings.Join(scorecard.Formats(), ", "),
			suggest.DidYouMean(of.Format, scorecard.Formats(), nil))
	}
	switch of.FailOn {
	case "never", "warning", "critical", "abstain":
	default:
		return 0, fmt.Errorf("--fail-on %q: want critical, warning, abstain or never", of.FailOn)
	}
	if of.MaxChars < 0 {
		return 0, fmt.Errorf("--max-chars %d: want a positive number of characters, or 0 for no bound", of.MaxChars)
	}

	slice, err := time.ParseDuration(of.Slice)
	if err != nil || slice <= 0 {
		return 0, fmt.Errorf("--slice %q: want a positive duration like 30s", of.Slice)
	}
	if err := checkUIURL("jaeger-ui-url", of.JaegerUI, "http://jaeger:16686"); err != nil {
		return 0, err
	}
	if err := checkGrafana(of.Grafana, of.GrafanaDatasource); err != nil {
		return 0, err
	}
	return slice, nil
}

// checkUIURL checks a flag naming a UI's base URL: empty, or http(s) with
// a host.
func checkUIURL(flag, value, example string) error {
	if value == "" {
		return nil
	}
	pu, err := url.Parse(value)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return fmt.Errorf("--%s %q: want an http(s) URL such as %s", flag, value, example)
	}
	return nil
}

// checkGrafana checks --grafana-url and --grafana-datasource.
func checkGrafana(u, datasource string) error {
	if err := checkUIURL("grafana-url", u, "https://grafana.example.com"); err != nil {
		return err
	}
	if datasource != "" && u == "" {
		return fmt.Errorf("--grafana-datasource needs --grafana-url (the Grafana it belongs to)")
	}
	return nil
}

// ExportFormat checks --export's extension against -o: without -o the
// format follows the extension (report.html is HTML); with a -o that
// contradicts it, the run is refused rather than writing text into an
// .html file. An extension the table does not know decides nothing.
func (of *Output) ExportFormat(formatGiven bool) error {
	if of.Export == "" {
		return nil
	}
	want, ok := reportfmt.FormatOfFile(of.Export)
	switch {
	case !ok || want == of.Format:
		return nil
	case !formatGiven:
		of.Format = want
		return nil
	}
	return fmt.Errorf("--export %s is %s by its extension but -o is %s: give -o %s, or an export file ending in %s",
		of.Export, want, of.Format, want, reportfmt.Ext(of.Format))
}

// WriteOutput writes a rendered report to export (atomically; said on
// say) or stdout.
func WriteOutput(report, format, export string, stdout io.Writer, say func(string, ...any)) error {
	if export != "" {
		if err := cliio.WriteFileAtomic(export, []byte(report)); err != nil {
			return err
		}
		say("wrote %s (%s)", export, format)
		return nil
	}
	_, err := io.WriteString(stdout, report)
	return err
}
