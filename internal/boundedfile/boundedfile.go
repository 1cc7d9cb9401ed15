// Package boundedfile reads the small files a flag or a bundle names
// (a saved scorecard, runbooks, a token or CA file, a label or manifest):
// regular files only, and never more than a given size, so that
// `--scorecard /dev/zero` fails at once instead of reading without end, and
// `--scorecard FIFO` fails instead of waiting for a writer. Every refusal is
// one line naming the file.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular marks a path that is not a regular file (a FIFO, a device,
// a socket or a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig marks a file larger than the limit it was read under.
var ErrTooBig = errors.New("file too large")

// ReadFile returns the contents of the regular file at path, at most max
// bytes (max ≤ 0: no limit on size). what names the limit for the message
// ("--max-document-size"), "" for a fixed one. The file is opened without
// blocking (a FIFO put in its place between the check and the open does
// not hang) and checked on the open handle.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrNotRegular, kind(st.Mode()))
	}
	tooBig := func(n int64) error {
		if what != "" {
			what = " (" + what + ")"
		}
		return fmt.Errorf("%s: %w: %d bytes or more, over the limit of %d%s", path, ErrTooBig, n, max, what)
	}
	if max > 0 && st.Size() > max {
		return nil, tooBig(st.Size())
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1) // a file growing while read is cut too
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if max > 0 && int64(len(data)) > max {
		return nil, tooBig(int64(len(data)))
	}
	return data, nil
}

// kind says what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a file"
}
