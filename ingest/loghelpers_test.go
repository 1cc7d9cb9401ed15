package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Log test helpers the core's log-budget tests share with the log decoders' tests.

// writeTemp writes content to dir/name and returns the path.
func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hasLogWarning reports whether b has a warning of kind whose message
// contains substr.
func hasLogWarning(b *Bundle, kind error, substr string) bool {
	for _, w := range b.Warnings {
		if w.Kind == kind && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}
