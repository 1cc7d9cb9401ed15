// Package reporttest holds the escaping, browser and JSON Schema checks that every
// report renderer must pass (the scorecard's and the comparison's), so
// that each runs the same tests rather than a copy of them.
//
// Hostile is the input string that tries to break out of every format;
// a renderer's test puts it into every input-derived field and calls
// CheckMarkdown and CheckHTML on the output, and Chromium to load the page.
package reporttest

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Hostile tries to break out of every format: raw HTML, a table pipe,
// backticks, a javascript: link, a mention, emphasis, a terminal escape, a
// line break, a heading, math, an entity and a bidi override.
const Hostile = "<script>alert(1)</script> | `tick` [x](javascript:alert(1)) @everyone *b* \x1b[31mred\x1b[0m\nnext # $x$ & \u202Eevil"

// EscapedScript is how Hostile's script tag must appear: as text.
const EscapedScript = "&lt;script&gt;alert(1)&lt;/script&gt;"

// CheckMarkdown checks that nothing of Hostile escapes its Markdown
// context in out: no raw tag, mention, escape byte or bidi override outside
// fenced blocks (none of the last two inside either), no unescaped
// "](javascript:", the script shown escaped, every table row with one of
// the given cell counts, every fence closed.
func CheckMarkdown(t *testing.T, out string, cellCounts ...int) {
	t.Helper()
	prose, fenced := SplitFences(t, out)
	// Inline code spans are literal text in every renderer (no link, no
	// HTML, no mention): what they hold is checked like fenced blocks.
	prose, spans := SplitCodeSpans(prose)
	fenced += spans
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
		if !strings.Contains(out, EscapedScript) {
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
			n := len(unescapedPipe.FindAllString(l, -1)) - 1
			if !slices.Contains(cellCounts, n) {
				t.Errorf("line %d has %d cells (want one of %v): %q", i+1, n, cellCounts, l)
			}
		}
		if inFence != "" {
			t.Error("a fenced block is never closed")
		}
	})
}

// SplitFences separates Markdown into the text outside fenced code blocks
// (where Markdown and HTML are interpreted) and the fenced contents (shown
// literally). A fence closes only on a line of the same backtick run.
func SplitFences(t *testing.T, md string) (prose, fenced string) {
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

// CheckHTML checks that out is one self-contained page with Hostile shown
// as text: no script element, no javascript: link, the Content-Security-
// Policy of default-src 'none', no external resource, print CSS, no escape
// byte.
func CheckHTML(t *testing.T, out string) {
	t.Helper()
	tests := []struct {
		name string
		ok   bool
	}{
		{"no injected script element", !strings.Contains(strings.ToLower(out), "<script")},
		{"escaped as text", strings.Contains(out, EscapedScript)},
		{"no javascript link", !strings.Contains(out, `href="javascript`)},
		{"csp meta", strings.Contains(out, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)},
		{"no external resources", !regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`).MatchString(out)},
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

// ChromiumPath is where the browser tests look for Chromium.
const ChromiumPath = "/usr/bin/chromium"

// SkipWithoutChromium skips the test when Chromium is missing or in -short mode.
func SkipWithoutChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Skipf("%s not found; install it (apt-get install -y chromium) to run the browser test", ChromiumPath)
	}
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
}

// Chromium runs headless Chromium with flags that keep it off the network
// and out of the user's profile, killing it after 60 s. It returns stdout
// and stderr.
func Chromium(t *testing.T, profile string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, ChromiumPath, append(base, args...)...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v (ctx: %v)\nstderr:\n%s", args, err, ctx.Err(), errb.String())
	}
	return out.String(), errb.String()
}

// ConsoleProblems returns the Chromium log lines that report page console
// output, uncaught exceptions or Content-Security-Policy violations ("" if none).
func ConsoleProblems(logs string) string {
	var bad []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") ||
			strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Refused to") {
			bad = append(bad, l)
		}
	}
	return strings.Join(bad, "\n")
}

// CheckDetector checks that ConsoleProblems sees what a broken page logs.
func CheckDetector(t *testing.T, dir string) {
	t.Helper()
	bad := filepath.Join(dir, "bad.html")
	src := `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>` +
		`<body><script>console.error("x")</script></body></html>`
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, badLogs := Chromium(t, filepath.Join(dir, "profile-bad"), "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+bad)
	if ConsoleProblems(badLogs) == "" {
		t.Errorf("no problem detected in log:\n%s", badLogs)
	}
}

// CheckScreenshot checks that shot is a real w×h PNG with content (at
// least minBytes and 50 distinct colours on a 7 px grid) and copies it to
// $ARTIFACTS_DIR (default: pipeline-analyze-artifacts in the temporary
// directory) as name, logging the path.
func CheckScreenshot(t *testing.T, shot string, w, h, minBytes int, name string) {
	t.Helper()
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() != w || r.Dy() != h {
		t.Errorf("screenshot is %v, want %d×%d", r, w, h)
	}
	if len(b) < minBytes {
		t.Errorf("screenshot only %d bytes: page looks empty", len(b))
	}
	colours := map[uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("screenshot has only %d distinct colours", len(colours))
	}
	art := os.Getenv("ARTIFACTS_DIR")
	if art == "" {
		art = filepath.Join(os.TempDir(), "pipeline-analyze-artifacts")
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(art, name)
	if err := copyFile(dst, shot); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", dst, len(b))
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// SplitCodeSpans separates a Markdown text's inline code spans (a run of
// backticks, then text up to the same run) from the rest; an unclosed run
// stays in the rest, as CommonMark reads it.
func SplitCodeSpans(s string) (rest, spans string) {
	var r, c strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+1 < len(s) {
			r.WriteString(s[i : i+2])
			i += 2
			continue
		}
		if s[i] != '`' {
			r.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		run := s[i:j]
		end := -1
		for k := j; k < len(s); {
			if s[k] == '\n' && k+1 < len(s) && s[k+1] == '\n' {
				break // a code span does not cross a blank line
			}
			if s[k] != '`' {
				k++
				continue
			}
			m := k
			for m < len(s) && s[m] == '`' {
				m++
			}
			if m-k == len(run) {
				end = k
				break
			}
			k = m
		}
		if end < 0 {
			r.WriteString(run)
			i = j
			continue
		}
		c.WriteString(s[j:end])
		c.WriteByte('\n')
		i = end + len(run)
	}
	return r.String(), c.String()
}
