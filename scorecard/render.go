package scorecard

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// RenderOptions control presentation only; they never change what is shown.
type RenderOptions struct {
	// Color enables ANSI colour in the text format. The CLI sets it when
	// stdout is a terminal and NO_COLOR is unset; other formats ignore it.
	Color bool
	// Width is the text format's line width in runes; 0 means DefaultWidth.
	// Widths below MinWidth are raised to MinWidth.
	Width int
	// TraceURL, when set, is a Jaeger UI base URL: the HTML and Markdown
	// reports link every trace ID to TraceURL/trace/ID.
	TraceURL string
	// Verbose adds, in the text format, every cause's evidence, path and
	// next steps, the heatmaps, the footnotes, the inputs with their
	// checksums and the rerun command after the first screen.
	Verbose bool
	// Explain, when positive, renders (text and Markdown) only the card's
	// header and the detail of row Explain (Row.Rank): each of its
	// causes' evidence, path, next steps and heatmap.
	Explain int
	// MaxChars bounds the Markdown's length in characters: past it, the
	// details are folded away, then cut, with a note saying so. 0 means
	// DefaultMaxChars; negative means no bound.
	MaxChars int
}

// DefaultMaxChars is the Markdown's default bound, under the 32,767
// characters of a Jira field with room for a title and a comment.
const DefaultMaxChars = 30000

// ErrNoSuchRow is returned (wrapped) by Render when RenderOptions.Explain
// names a row the card does not have.
var ErrNoSuchRow = errors.New("no such row")

// traceLink is the Jaeger UI address of a trace, "" without a TraceURL.
func (o RenderOptions) traceLink(id string) string {
	if o.TraceURL == "" {
		return ""
	}
	return strings.TrimRight(o.TraceURL, "/") + "/trace/" + url.PathEscape(id)
}

// DefaultWidth is the text format's default line width.
const DefaultWidth = 100

// MinWidth is the narrowest text layout supported.
const MinWidth = 60

// ErrUnknownFormat is returned (wrapped) by Render for a format not in Formats().
var ErrUnknownFormat = errors.New("unknown scorecard format")

// renderers is the format table, in the order Formats reports.
var renderers = reportfmt.Formats[*Card, RenderOptions]{
	{Name: "text", Render: renderText},
	{Name: "json", Render: renderJSON},
	{Name: "markdown", Render: renderMarkdown},
	{Name: "html", Render: renderHTML},
}

// Formats returns the names Render accepts, in a fixed order.
func Formats() []string { return renderers.Names() }

// Render writes c to w in format (one of Formats()). The output is a pure
// function of c, format and opt. It returns an error wrapping
// ErrUnknownFormat for an unknown format, and the writer's error if writing fails.
func Render(w io.Writer, c *Card, format string, opt RenderOptions) error {
	if c == nil {
		return errors.New("render scorecard: nil card")
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Width < MinWidth {
		opt.Width = MinWidth
	}
	if opt.MaxChars == 0 {
		opt.MaxChars = DefaultMaxChars
	}
	if opt.Explain > 0 && opt.Explain > len(c.Rows) {
		return fmt.Errorf("explain %d: %w: the card has %d rows (1–%d)", opt.Explain, ErrNoSuchRow, len(c.Rows), len(c.Rows))
	}
	return renderers.Render(w, c, format, opt, "scorecard", ErrUnknownFormat)
}

// The presentation conventions the scorecard shares with the other
// reports live in package reportfmt; these are their short local names.
var (
	sanitize     = reportfmt.Sanitize
	fmtFixed     = reportfmt.FormatFixed
	fmtValue     = reportfmt.FormatValue
	sha12        = reportfmt.ShortHash
	shellQuote   = reportfmt.ShellQuote
	shellCommand = reportfmt.ShellCommand
	md           = reportfmt.EscapeMarkdown
	mdFence      = reportfmt.MarkdownFence
	heatColor    = reportfmt.HeatColor
	wrap         = reportfmt.Wrap
)

// heatNoDataColor is the fill for heatmap cells without data.
const heatNoDataColor = reportfmt.HeatNoDataColor

// errWriter remembers the first write error so renderers can write freely and
// check once at the end.
type errWriter = reportfmt.ErrWriter

// fmtScore renders a score at 3 decimals.
func fmtScore(v float64) string { return fmtFixed(v, 3) }

// fmtConf renders a confidence at 2 decimals.
func fmtConf(v float64) string { return fmtFixed(v, 2) }

// fmtShare renders a 0..1 share as a whole percentage.
func fmtShare(v float64) string {
	s := fmtFixed(v*100, 0)
	if s == "~" {
		return s
	}
	return s + "%"
}

// fmtInterval renders a share interval as "[72–88%]".
func fmtInterval(iv [2]float64) string {
	lo, hi := fmtFixed(iv[0]*100, 0), fmtFixed(iv[1]*100, 0)
	if lo == "~" && hi == "~" {
		return ""
	}
	return "[" + lo + "–" + hi + "%]"
}

// fmtLag renders a lag as "+30s", "+1m30s", "+500ms", "-2s".
func fmtLag(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if d >= 0 {
		s = "+" + s
	}
	return s
}

// fmtTime renders t as RFC3339 with milliseconds, "-" when zero.
func fmtTime(t ingest.Time) string { return t.String() }

// fmtRange renders "a → b".
func fmtRange(a, b ingest.Time) string {
	if a == 0 && b == 0 {
		return "-"
	}
	return fmtTime(a) + " → " + fmtTime(b)
}

// stepName is the display name of one path step: "node:signal".
func stepName(s PathStep) string {
	if s.Signal == "" {
		return s.Node
	}
	return s.Node + ":" + s.Signal
}

// causeComponent is "kind/component" for a cause.
func causeComponent(c Cause) string {
	if c.ComponentKind == "" {
		return c.Component
	}
	return c.ComponentKind + "/" + c.Component
}

// pathText renders a path as "a →(+30s) b → c".
func pathText(p []PathStep) string {
	var sb strings.Builder
	for i, s := range p {
		if i > 0 {
			sb.WriteString(" " + arrow(s.Lag) + " ")
		}
		sb.WriteString(sanitize(stepName(s)))
		if i > 0 && s.Share > 0 {
			fmt.Fprintf(&sb, " [%.0f%%]", 100*s.Share) // the share of the cause's effect that arrives here
		}
	}
	return sb.String()
}

// arrow is "→" or "→(+30s)".
func arrow(lag time.Duration) string {
	if lag == 0 {
		return "→"
	}
	return "→(" + fmtLag(lag) + ")"
}

// footnoteN is the footnote number shown for warnings[i].
func footnoteN(f Footnote, i int) int {
	if f.N > 0 {
		return f.N
	}
	return i + 1
}

// prunedText is "showing 8 of 143 candidates; dropped 135 below score 0.05".
func prunedText(p Pruned) string {
	if p.Total == 0 && p.Shown == 0 {
		return "no candidates"
	}
	s := fmt.Sprintf("showing %d of %d candidates", p.Shown, p.Total)
	switch {
	case p.Dropped > 0 && p.MinScore > 0:
		s += fmt.Sprintf("; dropped %d below score %s or ranked lower", p.Dropped, fmtFixed(p.MinScore, 2))
	case p.Dropped > 0:
		s += fmt.Sprintf("; %d more ranked lower", p.Dropped)
	}
	return s
}

// targetText is "api-gateway latency p99 (service/api-gateway)".
func targetText(t Target) string {
	parts := make([]string, 0, 3)
	for _, s := range []string{t.Service, t.Signal, t.Stat} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	s := strings.Join(parts, " ")
	if t.Component != "" {
		s += " (" + t.Component + ")"
	}
	if s == "" {
		return "-"
	}
	return sanitize(s)
}

// toolLine is "pipeline-analyze 0.1.0 · method tcg · schema 1".
func toolLine(c *Card) string {
	name := c.Tool.Name
	if name == "" {
		name = "pipeline-analyze"
	}
	s := name
	if c.Tool.Version != "" {
		s += " " + c.Tool.Version
	}
	if c.Method != "" {
		s += " · method " + c.Method
	}
	v := c.SchemaVersion
	if v == "" {
		v = SchemaVersion
	}
	return sanitize(s + " · schema " + v)
}

// isComparison reports whether the card is a comparison method's (BARO,
// N-sigma, ...): its causes have no confidence, counterfactual or state. A
// card of a method the registry does not know (an older or newer tool's
// JSON) reads as a comparison; one with no method as the causal method's.
func isComparison(c *Card) bool {
	return c.Method != "" && causal.KindOf(c.Method) != causal.KindCausal
}

// fmtBytes renders a size in binary units: "812 B", "3.4 KiB", "1.2 GiB".
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// inputCounts is "1200 spans, 40 traces, 12 series/4800 pts".
func inputCounts(in InputRow) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(in.Spans, "spans")
	add(in.Traces, "traces")
	add(in.Series, "series")
	add(in.Points, "points")
	add(in.Events, "events")
	add(in.Alerts, "alerts")
	if in.Skipped {
		msg := "skipped"
		if in.Error != "" {
			msg += ": " + sanitize(in.Error)
		}
		parts = append(parts, msg)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// commandLine renders the manifest's args as one shell command line.
func commandLine(m Manifest) string { return shellCommand(m.Args) }
