package scorecard

import (
	"regexp"
	"strings"
	"testing"
)

// TestMarkdownHostile renders a card whose every input string is hostile and
// checks nothing escapes its Markdown context.
func TestMarkdownHostile(t *testing.T) {
	out := render(t, hostileCard(), "markdown", RenderOptions{})
	prose, fenced := splitFences(t, out)
	for _, bad := range []string{"\x1b", "\u202E"} {
		if strings.Contains(fenced, bad) {
			t.Errorf("fenced block contains %q", bad)
		}
	}
	forbidden := []struct{ name, s string }{
		{"raw script tag", "<script"},
		{"unescaped mention", " @everyone"},
		{"escape byte", "\x1b"},
		{"bidi override", "\u202E"},
	}
	for _, f := range forbidden {
		t.Run(f.name, func(t *testing.T) {
			if strings.Contains(prose, f.s) {
				t.Errorf("markdown outside fenced blocks contains %q", f.s)
			}
		})
	}
	t.Run("link to javascript", func(t *testing.T) {
		if regexp.MustCompile(`(^|[^\\])\]\(javascript:`).MatchString(prose) {
			t.Error("unescaped ](javascript: outside fenced blocks")
		}
	})
	t.Run("escaped script", func(t *testing.T) {
		if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Error("hostile string not rendered as escaped text")
		}
	})
	t.Run("table rows keep their columns", func(t *testing.T) {
		unescapedPipe := regexp.MustCompile(`(^|[^\\])\|`)
		inFence := ""
		for i, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "```") {
				f := strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
				switch {
				case inFence == "":
					inFence = f
				case f == inFence:
					inFence = ""
				}
				continue
			}
			if inFence != "" || !strings.HasPrefix(l, "| ") {
				continue
			}
			// Every row of a table must have as many cells as its header;
			// the tables this renderer writes have 2, 5, 6 or 9 columns.
			n := len(unescapedPipe.FindAllString(l, -1)) - 1
			if n != 2 && n != 5 && n != 6 && n != 9 {
				t.Errorf("line %d has %d cells: %q", i+1, n, l)
			}
		}
		if inFence != "" {
			t.Error("a fenced block is never closed")
		}
	})
	t.Run("fence not broken by backticks", func(t *testing.T) {
		body := "a ```` b"
		if f := mdFence(body); f != "`````" {
			t.Errorf("mdFence = %q", f)
		}
	})
}

// TestHTMLHostile checks html/template escaping and the self-contained page.
func TestHTMLHostile(t *testing.T) {
	out := render(t, hostileCard(), "html", RenderOptions{})
	tests := []struct {
		name string
		ok   bool
	}{
		{"no injected script element", !strings.Contains(strings.ToLower(out), "<script")},
		{"escaped as text", strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;")},
		{"no javascript link", !strings.Contains(out, `href="javascript`)},
		{"csp meta", strings.Contains(out, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)},
		{"no external resources", !regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`).MatchString(out)},
		{"three heatmaps", strings.Count(out, `<svg class="heatmap"`) == 3},
		{"one graph", strings.Count(out, `<svg class="graph"`) == 1},
		{"print css", strings.Contains(out, "@media print")},
		{"no escape byte", !strings.Contains(out, "\x1b")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Fail()
			}
		})
	}
}

// splitFences separates Markdown into the text outside fenced code blocks
// (where Markdown and HTML are interpreted) and the fenced contents (shown
// literally). A fence closes only on a line of the same backtick run.
func splitFences(t *testing.T, md string) (prose, fenced string) {
	t.Helper()
	var p, f strings.Builder
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			run := l[:len(l)-len(strings.TrimLeft(l, "`"))]
			switch {
			case fence == "":
				fence = run
				continue
			case run == fence && strings.TrimSpace(l) == run:
				fence = ""
				continue
			}
		}
		if fence != "" {
			f.WriteString(l + "\n")
		} else {
			p.WriteString(l + "\n")
		}
	}
	if fence != "" {
		t.Fatal("a fenced block is never closed")
	}
	return p.String(), f.String()
}
