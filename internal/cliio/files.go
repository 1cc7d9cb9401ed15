package cliio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// WriteFileAtomic writes data to a temp file beside path, syncs it to disk
// and renames it over path (then syncs the directory), so an interrupted run
// or a crash never leaves a half-written file. The temp file is removed on
// SIGINT/SIGTERM.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The error names the temporary file's pattern; say what it means
		// for the file asked for.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: directory %s does not exist", path, dir)
		}
		return fmt.Errorf("write %s: cannot create a file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	untrack := TrackTemp(tmp)
	defer untrack()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename itself is durable once the directory is synced
		d.Close()
	}
	return nil
}

// CheckOutputs refuses output files that are inputs: an --export or --dot
// path that is one of the input files (compared as device and inode, so a
// symlink, a hard link or "./x" and "x" are caught), that lies inside
// --save-bundle, or --export and --dot naming the same file.
func CheckOutputs(paths []string, outs ...string) error {
	files, _ := ingest.ExpandPaths(paths) // unreadable paths are Read's to report
	export, dot, bundle := outs[0], outs[1], outs[2]
	for _, o := range []struct{ flag, path string }{{"--export", export}, {"--dot", dot}} {
		if o.path == "" {
			continue
		}
		if err := CheckOutputDir(o.flag, o.path); err != nil {
			return err
		}
		st, err := os.Stat(o.path)
		if err != nil {
			continue // a new file cannot be an input
		}
		if st.IsDir() {
			return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		for _, f := range files {
			if f == "-" {
				continue
			}
			if fi, err := os.Stat(f); err == nil && os.SameFile(st, fi) {
				return fmt.Errorf("%s %s: is the input %s; refusing to overwrite an input", o.flag, o.path, f)
			}
		}
		if bundle != "" {
			if rel, err := filepath.Rel(bundle, o.path); err == nil && !strings.HasPrefix(rel, "..") {
				return fmt.Errorf("%s %s: is inside --save-bundle %s, which is replaced by the fetch", o.flag, o.path, bundle)
			}
		}
	}
	if export != "" && dot != "" {
		a, errA := os.Stat(export)
		b, errB := os.Stat(dot)
		if filepath.Clean(export) == filepath.Clean(dot) || errA == nil && errB == nil && os.SameFile(a, b) {
			return fmt.Errorf("--export and --dot name the same file %s", export)
		}
	}
	return nil
}

// CheckOutputDir refuses an output file whose directory does not exist or
// is not a directory, before anything is read.
func CheckOutputDir(flag, path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	return nil
}

// IsTerminal reports whether w is a character device (a TTY).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
