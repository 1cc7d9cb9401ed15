package driver

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSafeWriter: stderr lines are redacted, show control characters as
// escapes and are cut to maxErrLine characters; a message with a newline
// stays one line (oneLine), so no line can be forged.
func TestSafeWriter(t *testing.T) {
	red := &redactor{}
	red.add("tok-1234567")
	red.addBasic("admin", "hunter22")
	var out bytes.Buffer
	w := newSafeWriter(&out, red, maxErrLine)
	sayErr(w, "", errString("file \x1b[2J\rname\npipeline-analyze: all good"))
	w.Write([]byte("token tok-1234567 b64 " + base64.StdEncoding.EncodeToString([]byte("admin:hunter22")) + " pw hunter22\n"))
	w.Write([]byte(strings.Repeat("é", 10_000) + "\n"))
	w.Write([]byte("partial"))
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %q", len(lines), out.String())
	}
	if want := `pipeline-analyze: file \x1b[2J\rname\npipeline-analyze: all good`; lines[0] != want {
		t.Errorf("line 0 = %q, want %q", lines[0], want)
	}
	if strings.Contains(lines[1], "tok-1234567") || strings.Contains(lines[1], "hunter22") || strings.Count(lines[1], "[REDACTED]") != 3 {
		t.Errorf("line 1 = %q", lines[1])
	}
	if n := utf8.RuneCountInString(lines[2]); n > maxErrLine || !strings.HasSuffix(lines[2], "…") {
		t.Errorf("line 2 has %d characters", n)
	}
	if lines[3] != "partial" {
		t.Errorf("line 3 = %q", lines[3])
	}
	if got := escapeText("a\x00b\u202ec\xff", 0); got != `a\x00b\u202ec\xff` {
		t.Errorf("escapeText = %q", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestOutputIsInputRefused: --export or --dot naming an input (directly,
// through a symlink or a hard link, or inside an input directory) is a
// usage error and the input is untouched.
func TestOutputIsInputRefused(t *testing.T) {
	dir := copyCase(t)
	in := filepath.Join(dir, "alert.json")
	before, err := os.ReadFile(in)
	if err != nil {
		t.Skipf("case has no alert.json: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link.json")
	os.Symlink(in, link)
	hard := filepath.Join(t.TempDir(), "hard.json")
	if err := os.Link(in, hard); err != nil {
		hard = in
	}
	for _, args := range [][]string{
		{"--export", in, in, dir},
		{"--export", link, dir},
		{"--export", hard, dir},
		{"--dot", filepath.Join(dir, "..", filepath.Base(dir), ".", "alert.json"), dir},
	} {
		var so, se bytes.Buffer
		if code := Run(append([]string{"-q"}, args...), nil, &so, &se); code != 2 || !strings.Contains(se.String(), "refusing to overwrite an input") {
			t.Errorf("%q: exit %d, stderr %q", args, code, se.String())
		}
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
		t.Error("the input was modified")
	}
}
