package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveProgressLine: on a terminal, a read that takes over a second
// shows a live line (erased at the end); the line says inputs, bytes and
// rate.
func TestLiveProgressLine(t *testing.T) {
	var tty, safe strings.Builder
	rep := &Reporter{Out: &safe, Terminal: &tty}
	f := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(f, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	p := rep.StartRead([]string{f, f})
	p.File("read %s (%s, %d spans, %d series)", f, "jaeger-json", 1200, 0)
	time.Sleep(1300 * time.Millisecond)
	p.End()
	out := tty.String()
	if !strings.Contains(out, "\rreading 1/2 inputs") || !strings.Contains(out, "1200 spans") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("live line %q", out)
	}
	if safe.Len() != 0 {
		t.Errorf("per-file line without -v: %q", safe.String())
	}
	// Without a terminal (or with -q) there is no live line at all.
	tty.Reset()
	rep = &Reporter{Out: &safe, Quiet: true, Terminal: &tty}
	p = rep.StartRead([]string{f})
	time.Sleep(1100 * time.Millisecond)
	p.End()
	if tty.Len() != 0 {
		t.Errorf("live line with -q: %q", tty.String())
	}
}
