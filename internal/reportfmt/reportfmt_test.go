package reportfmt

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

func TestSanitizeAndEscape(t *testing.T) {
	if got := Sanitize("a\x1b[31m\nb\u202e"); got != `a\x1b[31m\nb\u202e` {
		t.Errorf("Sanitize = %q", got)
	}
	if got := EscapeMarkdown("*x*|<y>"); got != `\*x\*\|&lt;y&gt;` {
		t.Errorf("EscapeMarkdown = %q", got)
	}
	if got := MarkdownFence("a ```` b"); got != "`````" {
		t.Errorf("MarkdownFence = %q", got)
	}
	if got := ShellCommand([]string{"kubectl", "it's", ""}); got != `kubectl 'it'\''s' ''` {
		t.Errorf("ShellCommand = %q", got)
	}
	if got := strings.Join(Wrap("abcdefghijklmnop qr", 10), "|"); got != "abcdefghij|klmnop qr" {
		t.Errorf("Wrap = %q", got)
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{{math.NaN(), "s", "~"}, {-0.001, "", "-1.00e-03"}, {1234.5, "ms", "1234 ms"}, {12.34, "%", "12.3%"}, {0, "s", "0.00 s"}} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
	if got := FormatFixed(-0.0001, 2); got != "0.00" {
		t.Errorf("FormatFixed = %q", got)
	}
	if HeatColor(math.NaN()) != HeatNoDataColor || HeatColor(0) != "#2c7bb6" || HeatColor(1) != "#d7191c" {
		t.Errorf("HeatColor ends: %s %s", HeatColor(0), HeatColor(1))
	}
}

func TestFormats(t *testing.T) {
	errUnknown := errors.New("unknown test format")
	boom := errors.New("boom")
	fs := Formats[string, int]{
		{Name: "text", Render: func(w io.Writer, m string, _ int) error { _, err := io.WriteString(w, m); return err }},
		{Name: "bad", Render: func(io.Writer, string, int) error { return boom }},
	}
	if got := strings.Join(fs.Names(), ","); got != "text,bad" {
		t.Errorf("Names = %s", got)
	}
	var sb strings.Builder
	if err := fs.Render(&sb, "hi", "text", 0, "thing", errUnknown); err != nil || sb.String() != "hi" {
		t.Errorf("Render text = %q, %v", sb.String(), err)
	}
	if err := fs.Render(&sb, "hi", "bad", 0, "thing", errUnknown); !errors.Is(err, boom) || err.Error() != "render thing as bad: boom" {
		t.Errorf("Render bad = %v", err)
	}
	err := fs.Render(&sb, "hi", "pdf", 0, "thing", errUnknown)
	if !errors.Is(err, errUnknown) || err.Error() != `render thing: unknown test format "pdf" (want one of text, bad)` {
		t.Errorf("Render pdf = %v", err)
	}
}
