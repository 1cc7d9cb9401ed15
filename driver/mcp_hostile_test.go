package driver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// TestMCPHostile sends every case of the hostile-file corpus (hostileCases,
// as TestHostileFiles runs them alone) through the MCP server's analyze
// tool: one server per set of case flags (the limits are the server's),
// each case in its own directory under the root. No call may crash the
// server; a case the CLI rejects, or cannot analyse alone, is a tool error
// of one line (a rejected one naming its file), an accepted one a result;
// the server keeps serving, prints no panic and leaves nothing in its
// TMPDIR. Set HOSTILE_CASE to a substring of a name to run some.
func TestMCPHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile-file suite runs the real binary on large generated inputs")
	}
	realBinary(t)
	root := t.TempDir()
	g := &hostileGen{t0: time.Date(2026, 11, 30, 2, 9, 0, 0, time.UTC)}
	only := os.Getenv("HOSTILE_CASE")
	servers := map[string]*mcpClient{}
	var order []string
	n := 0
	for i, hc := range hostileCases() {
		if only != "" && !strings.Contains(hc.name, only) {
			continue
		}
		dir := filepath.Join(root, "case-"+strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := hc.write(g, filepath.Join(dir, hc.file)); err != nil {
			t.Fatalf("%s: generate: %v", hc.name, err)
		}
		key := strings.Join(hc.flags, " ")
		c := servers[key]
		if c == nil {
			c = startMCP(t, append([]string{"--root", root}, hc.flags...)...)
			servers[key] = c
			order = append(order, key)
		}
		n++
		t0 := time.Now()
		text, isErr := c.call("analyze", map[string]any{"paths": []string{filepath.Join("case-"+strconv.Itoa(i), hc.file)}}, nil)
		t.Logf("%s: %v, error %v: %.200s", hc.name, time.Since(t0).Round(10*time.Millisecond), isErr, text)
		switch {
		case hc.reject || hc.aloneFails:
			if !isErr || strings.Contains(text, "\n") || text == "" {
				t.Errorf("%s: %q (error %v); want a tool error of one line", hc.name, text, isErr)
			}
			quoted := strings.Trim(strconv.Quote(hc.file), `"`)
			if hc.reject && !strings.Contains(text, cliio.EscapeText(hc.file, 0)) && !strings.Contains(text, quoted) {
				t.Errorf("%s: the error does not name %q: %q", hc.name, cliio.EscapeText(hc.file, 0), text)
			}
		case isErr:
			t.Errorf("%s: accepted by the CLI, a tool error here: %q", hc.name, text)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range order {
		c := servers[key]
		if text, isErr := c.call("list_inputs", nil, nil); isErr {
			t.Errorf("server %q stopped serving: %s", key, text)
		}
		rss := c.peakRSS()
		t.Logf("server %q: peak RSS %d MiB", key, rss>>20)
		if rss > maxRunRSS {
			t.Errorf("server %q: peak RSS %d MiB > %d MiB", key, rss>>20, maxRunRSS>>20)
		}
		c.cs.Close()
		if s := c.stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") || strings.Contains(s, "internal error") {
			t.Errorf("server %q: %.3000s", key, s)
		}
		if left := leftovers(c.tmp); len(left) > 0 {
			t.Errorf("server %q left in TMPDIR: %q", key, left)
		}
	}
	if n == 0 && only == "" {
		t.Error("no hostile cases")
	}
}
