package reporttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Golden checks got against the golden file at path; with update it
// writes got there instead (making its folder). A difference names the
// first line that differs.
func Golden(t *testing.T, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; rerun with -update after checking.\n%s", path, FirstDiff(got, string(want)))
	}
}

// FirstDiff describes the first line that differs between got and want.
func FirstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "no line differs"
}
