package render

import (
	"math"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// ToolLine is "pipeline-analyze 0.1.0 · compare · schema 1": the program,
// its version and the report's schema version.
func ToolLine(r *model.Report) string {
	s := r.Tool.Name
	if s == "" {
		s = "pipeline-analyze"
	}
	if r.Tool.Version != "" {
		s += " " + r.Tool.Version
	}
	v := r.SchemaVersion
	if v == "" {
		v = model.SchemaVersion
	}
	return reportfmt.Sanitize(s + " · compare · schema " + v)
}

// Window is a window's line, "2026-… → 2026-… (5m)"; "-" when unknown.
func Window(a, b ingest.Time) string {
	if a == 0 && b == 0 {
		return "-"
	}
	return a.String() + " → " + b.String() + " (" + Duration(b.Sub(a)) + ")"
}

// CommandLine renders the manifest's args as one shell command line.
func CommandLine(m model.Manifest) string { return reportfmt.ShellCommand(m.Args) }

// FootnoteText is a warning's line, "(before) kind: message".
func FootnoteText(f model.Footnote) string {
	s := reportfmt.Sanitize(f.Kind) + ": " + reportfmt.Sanitize(f.Message)
	if f.Side != "" {
		s = "(" + reportfmt.Sanitize(f.Side) + ") " + s
	}
	return s
}

// OrDash is s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Duration renders a duration compactly: "5m", "1m30s", "45s", "1.5s".
func Duration(d time.Duration) string {
	if d >= 10*time.Second {
		d = d.Round(time.Second)
	} else {
		d = d.Round(100 * time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Value renders a measured value: seconds as µs/ms/s/min, bytes in
// binary units, others as the scorecard does.
func Value(v float64, unit string) string {
	if unit == "bytes" && v == v {
		a := math.Abs(v)
		for _, u := range []struct {
			f    float64
			name string
		}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
			if a >= u.f {
				return Fix3(v/u.f) + " " + u.name
			}
		}
		return reportfmt.FormatFixed(v, 0) + " bytes"
	}
	if unit != "s" || v != v {
		return reportfmt.FormatValue(v, unit)
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-3:
		return Fix3(v*1e6) + " µs"
	case a < 1:
		return Fix3(v*1e3) + " ms"
	case a < 600:
		return Fix3(v) + " s"
	}
	return Fix3(v/60) + " min"
}

// Fix3 is v with no decimals from 100 on, one from 10 on, else two.
func Fix3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return reportfmt.FormatFixed(v, 0)
	case a >= 10:
		return reportfmt.FormatFixed(v, 1)
	}
	return reportfmt.FormatFixed(v, 2)
}
