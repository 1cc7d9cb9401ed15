package scorecard

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const chromiumPath = "/usr/bin/chromium"

// chromium runs headless Chromium with flags that keep it off the network and
// out of the user's profile, killing it after 60 s. It returns stdout and stderr.
func chromium(t *testing.T, profile string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, chromiumPath, append(base, args...)...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v (ctx: %v)\nstderr:\n%s", args, err, ctx.Err(), errb.String())
	}
	return out.String(), errb.String()
}

// TestHTMLChromium loads the hostile card's HTML in headless Chromium: the DOM
// must hold three heatmap SVGs and the propagation graph, no script element,
// the hostile string as text, no console errors or CSP violations; and the
// screenshot must be a real 1280×2000 PNG, copied to $ARTIFACTS_DIR.
func TestHTMLChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s not found; install it (apt-get install -y chromium) to run the browser test", chromiumPath)
	}
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "scorecard.html")
	if err := os.WriteFile(page, []byte(render(t, hostileCard(), "html", RenderOptions{})), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	dom, logs := chromium(t, filepath.Join(dir, "profile-dom"), "--enable-logging=stderr", "--v=0", "--dump-dom", url)
	checks := []struct {
		name string
		ok   bool
	}{
		{"three heatmap svgs", regexp.MustCompile(`<svg[^>]*class="heatmap"`).FindAllStringIndex(dom, -1) != nil &&
			len(regexp.MustCompile(`<svg[^>]*class="heatmap"`).FindAllStringIndex(dom, -1)) == 3},
		{"one graph svg", len(regexp.MustCompile(`<svg[^>]*class="graph"`).FindAllStringIndex(dom, -1)) == 1},
		{"no script element", !strings.Contains(strings.ToLower(dom), "<script")},
		{"hostile string as text", strings.Contains(dom, "&lt;script&gt;alert(1)&lt;/script&gt;")},
		{"verdict rendered", strings.Contains(dom, `class="verdict confident"`)},
		{"no console messages or CSP violations", consoleProblems(logs) == ""},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("failed; chromium log:\n%s", logs)
			}
		})
	}

	// The detector itself must see what a broken page logs.
	t.Run("detector catches a CSP violation", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.html")
		src := `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head>` +
			`<body><script>console.error("x")</script></body></html>`
		if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, badLogs := chromium(t, filepath.Join(dir, "profile-bad"), "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+bad)
		if consoleProblems(badLogs) == "" {
			t.Errorf("no problem detected in log:\n%s", badLogs)
		}
	})

	shot := filepath.Join(dir, "scorecard.png")
	chromium(t, filepath.Join(dir, "profile-shot"), "--hide-scrollbars", "--screenshot="+shot, "--window-size=1280,2000", url)
	t.Run("screenshot", func(t *testing.T) {
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("screenshot is not a PNG: %v", err)
		}
		if r := img.Bounds(); r.Dx() != 1280 || r.Dy() != 2000 {
			t.Errorf("screenshot is %v, want 1280×2000", r)
		}
		// A blank page compresses to a few KiB; the scorecard has text, tables and colour.
		if len(b) < 50_000 {
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
		dst := filepath.Join(art, "scorecard-hostile.png")
		if err := copyFile(dst, shot); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", dst, len(b))
	})
}

// consoleProblems returns the Chromium log lines that report page console
// output, uncaught exceptions or Content-Security-Policy violations ("" if none).
func consoleProblems(logs string) string {
	var bad []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") ||
			strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Refused to") {
			bad = append(bad, l)
		}
	}
	return strings.Join(bad, "\n")
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
