package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// sharedDir locates /work/shared relative to the package directory, skipping
// the test when it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared")
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

// measureCost returns how long f took and how many bytes it allocated.
func measureCost(f func()) (time.Duration, uint64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	f()
	d := time.Since(t0)
	runtime.ReadMemStats(&m1)
	return d, m1.TotalAlloc - m0.TotalAlloc
}

// warningsOf joins the messages of b's warnings of a kind.
func warningsOf(b *ingest.Bundle, kind error) string {
	var msgs []string
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			msgs = append(msgs, w.Message)
		}
	}
	return strings.Join(msgs, "\n")
}
