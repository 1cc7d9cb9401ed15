package cliio

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSafeWriter: stderr lines are redacted, show control characters as
// escapes and are cut to MaxErrLine characters; a message with a newline
// stays one line (OneLine), so no line can be forged.
func TestSafeWriter(t *testing.T) {
	red := &Redactor{}
	red.Add("tok-1234567")
	red.AddBasic("admin", "hunter22")
	var out bytes.Buffer
	w := NewSafeWriter(&out, red, MaxErrLine)
	SayErr(w, "", errString("file \x1b[2J\rname\npipeline-analyze: all good"))
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
	if n := utf8.RuneCountInString(lines[2]); n > MaxErrLine || !strings.HasSuffix(lines[2], "…") {
		t.Errorf("line 2 has %d characters", n)
	}
	if lines[3] != "partial" {
		t.Errorf("line 3 = %q", lines[3])
	}
	if got := EscapeText("a\x00b\u202ec\xff", 0); got != `a\x00b\u202ec\xff` {
		t.Errorf("EscapeText = %q", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
