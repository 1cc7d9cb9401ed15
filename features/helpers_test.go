package features

import (
	"os"
	"path/filepath"
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
