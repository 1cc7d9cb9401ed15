package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// Paths as given on a command line: what is read, as what, and what is
// named as skipped instead (see expandPaths and openInput).

// expandPaths is ExpandPaths that never stops: every path it cannot or will
// not read comes back as a skipped Input saying why. A path given
// explicitly is followed through symlinks (a symlinked directory is walked,
// a pipe such as <(cmd) or a FIFO is read as a stream); inside a directory,
// a symlink to a regular file is read, and symlinks to directories (which
// could loop), dangling symlinks and anything that is not a regular file
// are named as skipped. Devices and sockets are never read (a symlink to
// /dev/zero is an endless input).
func expandPaths(paths []string) (files []string, skipped []Input) {
	skip := func(p, why string) { skipped = append(skipped, Input{Path: p, Skipped: true, Error: why}) }
	for _, p := range paths {
		if p == "-" {
			files = append(files, p)
			continue
		}
		st, err := os.Stat(p) // follows symlinks: the path was given explicitly
		if err != nil {
			skip(p, statReason(p, err))
			continue
		}
		if !st.IsDir() {
			if why := notReadable(st.Mode()); why != "" {
				skip(p, why)
				continue
			}
			files = append(files, p)
			continue
		}
		var found []string
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			root = p + string(filepath.Separator) // WalkDir follows a root ending in a separator
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root {
					return err
				}
				skip(path, "cannot read: "+errText(err))
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			base := d.Name()
			if path != root && len(base) > 0 && base[0] == '.' {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch t := d.Type(); {
			case t.IsRegular():
				found = append(found, path)
			case t&fs.ModeSymlink != 0:
				st, err := os.Stat(path)
				switch {
				case err != nil:
					skip(path, statReason(path, err))
				case st.IsDir():
					skip(path, "symlink to a directory: not followed (name the directory itself to read it)")
				case st.Mode().IsRegular():
					found = append(found, path)
				default:
					skip(path, "symlink to "+notInDir(st.Mode()))
				}
			case !t.IsDir():
				skip(path, notInDir(t))
			}
			return nil
		})
		if err != nil {
			skip(p, "cannot read the directory: "+errText(err))
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, skipped
}

// statReason says why a path cannot be opened.
func statReason(p string, err error) string {
	if lst, lerr := os.Lstat(p); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return fmt.Sprintf("dangling symlink (to %q)", target)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	return "cannot read: " + errText(err)
}

// errText is the cause of a path error without the path (callers name it).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// notReadable is why a file of this mode is not read, "" for a regular file
// or a pipe (read as a stream).
func notReadable(m fs.FileMode) string {
	switch {
	case m.IsRegular(), m&fs.ModeNamedPipe != 0:
		return ""
	case m&fs.ModeCharDevice != 0:
		return "a character device, not a file (not read)"
	case m&fs.ModeDevice != 0:
		return "a block device, not a file (not read)"
	case m&fs.ModeSocket != 0:
		return "a socket, not a file (not read)"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file (not read)"
}

// notInDir is why a file of this mode found inside a directory is not read:
// a pipe or FIFO is read only when named explicitly (it may never end).
func notInDir(m fs.FileMode) string {
	if m&fs.ModeNamedPipe != 0 {
		return "a named pipe (FIFO): read only when named explicitly"
	}
	return notReadable(m)
}

// isStream reports whether path is read once as a stream (stdin, a pipe or
// a FIFO): no fast path (it would re-read), hashed while read, never
// re-opened to locate an error.
func isStream(path string) bool {
	if path == "-" {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && !st.Mode().IsRegular()
}

// openInput opens a path for reading: a regular file as it is, a pipe or a
// FIFO without blocking on open and with a stall timeout on every read (a
// FIFO waits that long for its first writer, so a reader started before
// the writer does not read it as empty, and says so at once on notice,
// when set); anything else is refused.
func openInput(path string, lim Limits, notice func(format string, args ...any)) (io.ReadCloser, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read %w", err)
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("read %w", err)
		}
		return f, nil
	case m&fs.ModeNamedPipe != 0:
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, fmt.Errorf("read %w", err)
		}
		s := &stallReader{f: f, d: lim.StallTimeout, fifo: true}
		if notice != nil {
			s.waiting = func() { notice("waiting up to %v for a writer on %s (--stall-timeout)", lim.StallTimeout, path) }
		}
		return s, nil
	default:
		return nil, &InputError{File: path, Offset: -1, Err: errors.New(notReadable(m))}
	}
}

// writerPoll is how often a FIFO opened before its writer is read again.
const writerPoll = 20 * time.Millisecond

// stallReader fails a pipe that sends nothing for d. A FIFO opened without
// blocking reads as at its end until a writer opens it; until its first
// byte, such an end is a writer not there yet, waited for up to d.
type stallReader struct {
	f    *os.File
	d    time.Duration
	fifo bool  // a named pipe: an end before the first byte may be no writer yet
	seen bool  // a byte was read: an end is the end
	err  error // the stall, returned again at once to every later read
	// waiting, when set, is called once, as soon as a FIFO is found
	// without a writer (so the wait is never silent).
	waiting func()
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	deadline := time.Now().Add(s.d)
	for {
		_ = s.f.SetReadDeadline(deadline) // fails only where the pipe cannot be polled: then reads block
		n, err := s.f.Read(p)
		if n > 0 {
			s.seen = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			s.err = fmt.Errorf("%w: no data for %v from the pipe (--stall-timeout)", ErrLimit, s.d)
			return n, s.err
		}
		if n > 0 || err != io.EOF || !s.fifo || s.seen || len(p) == 0 {
			return n, err
		}
		if !time.Now().Before(deadline) {
			s.err = fmt.Errorf("%w: nothing written to the FIFO for %v (--stall-timeout)", ErrLimit, s.d)
			return 0, s.err
		}
		if s.waiting != nil {
			s.waiting()
			s.waiting = nil
		}
		time.Sleep(writerPoll)
	}
}

func (s *stallReader) Close() error { return s.f.Close() }
