package driver

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md from the commands' help tables")

// TestCLIReference checks that docs/cli.md is what the commands' help
// tables generate today: every command and every flag --help prints is
// there, word for word. Run with -update to rewrite it.
func TestCLIReference(t *testing.T) {
	var sb strings.Builder
	if err := writeCLIReference(&sb); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "cli.md")
	if *updateDocs {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != sb.String() {
		t.Errorf("docs/cli.md is stale: rerun with go test ./driver -run TestCLIReference -update (first difference: %s)",
			firstLineDiff(string(have), sb.String()))
	}
	for _, c := range commands() {
		r := runCmd(nil, strings.Fields(strings.TrimSpace(c.name+" --help"))...)
		if r.code != 0 || !strings.Contains(string(have), strings.TrimRight(r.stdout, "\n")) {
			t.Errorf("%q --help (exit %d) is not in docs/cli.md as printed", c.name, r.code)
		}
	}
}

// firstLineDiff names the first line where a and b differ.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: have %q, want %q", i+1, x, y)
		}
	}
	return "none"
}
