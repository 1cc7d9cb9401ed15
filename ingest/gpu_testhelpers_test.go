package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedDir locates /work/shared relative to the package directory, skipping
// the test when it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared material not present: %v", err)
	}
	return d
}

// smiSection is one "# $ command" section of an nvidia_gpu_exporter capture.
type smiSection struct {
	Command string
	Body    string
}

// smiSections cuts a capture into its command sections: a "# $ cmd" line, a
// line of '#', then the body up to the next line of '#'.
func smiSections(t testing.TB, path string) []smiSection {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	isRule := func(s string) bool { return len(s) >= 40 && strings.Trim(s, "#") == "" }
	var out []smiSection
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "# $ ") || i+1 >= len(lines) || !isRule(lines[i+1]) {
			continue
		}
		sec := smiSection{Command: strings.TrimSpace(strings.TrimPrefix(lines[i], "# $ "))}
		j := i + 2
		for ; j < len(lines) && !isRule(lines[j]); j++ {
		}
		end := j
		// the body ends before the "# title" lines that precede the next rule
		sec.Body = strings.Join(lines[i+2:end], "\n")
		out = append(out, sec)
		i = end - 1
	}
	return out
}
