package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		max        int64
		want       error // nil: read
		wantText   string
	}{
		{"regular file", small, 100, nil, ""},
		{"symlink to a regular file", link, 100, nil, ""},
		{"no limit", big, 0, nil, ""},
		{"over the limit", big, 1000, ErrTooBig, "2000 bytes or more, over the limit of 1000 (--max-document-size)"},
		{"character device", "/dev/zero", 1000, ErrNotRegular, "a character device"},
		{"FIFO without writer", fifo, 1000, ErrNotRegular, "a named pipe (FIFO)"},
		{"directory", dir, 1000, ErrNotRegular, "a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			data, err := ReadFile(tc.path, tc.max, "--max-document-size")
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tc.want == nil {
				if err != nil || len(data) == 0 {
					t.Fatalf("err = %v, %d bytes", err, len(data))
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantText) || !strings.Contains(err.Error(), tc.path) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line with %v and %q", err, tc.want, tc.wantText)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10, ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
