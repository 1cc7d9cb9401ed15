// Package testkit holds the helpers the module's tests share across
// packages: where the shared development material is and its development
// cases' labels, the sections of a captured nvidia-smi session, and what a
// call costs. Only tests import it
// (driver/layers_test.go lists it as a harness); it imports no package of
// the module, so any package's internal tests may use it.
package testkit

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// SharedDir returns the path of the shared material (../shared beside the
// module's root: samples and development data), skipping the test when it
// is absent. It finds the module root by walking up from the working
// directory (a package's test runs in its own folder) to go.mod.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("shared material not present: no go.mod above the test's folder")
		}
		dir = up
	}
	d := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared material not present: %v", err)
	}
	return d
}

// DevLabels returns the label.json files of every development case under
// SharedDir's data (data/SET/CASE/label.json), sorted; the test skips in
// -short mode or without them.
func DevLabels(t testing.TB) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("development data test skipped in -short mode")
	}
	root := filepath.Join(SharedDir(t), "data")
	labels, _ := filepath.Glob(filepath.Join(root, "*", "*", "label.json"))
	if len(labels) == 0 {
		t.Skipf("no development cases under %s", root)
	}
	slices.Sort(labels)
	return labels
}

// SMISection is one "# $ command" section of an nvidia_gpu_exporter capture.
type SMISection struct {
	Command string
	Body    string
}

// SMISections cuts a capture into its command sections: a "# $ cmd" line,
// a line of '#', then the body up to the next line of '#'.
func SMISections(t testing.TB, path string) []SMISection {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	isRule := func(s string) bool { return len(s) >= 40 && strings.Trim(s, "#") == "" }
	var out []SMISection
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "# $ ") || i+1 >= len(lines) || !isRule(lines[i+1]) {
			continue
		}
		sec := SMISection{Command: strings.TrimSpace(strings.TrimPrefix(lines[i], "# $ "))}
		j := i + 2
		for ; j < len(lines) && !isRule(lines[j]); j++ {
		}
		// the body ends before the "# title" lines that precede the next rule
		sec.Body = strings.Join(lines[i+2:j], "\n")
		out = append(out, sec)
		i = j - 1
	}
	return out
}

// MeasureCost returns how long f took and how many bytes it allocated.
func MeasureCost(f func()) (time.Duration, uint64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	f()
	d := time.Since(t0)
	runtime.ReadMemStats(&m1)
	return d, m1.TotalAlloc - m0.TotalAlloc
}
