package profdiff

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

// Opening a side: a capture file, or a directory whose files are the
// ranks of one capture (one file per rank, as torch.profiler's
// tensorboard_trace_handler and nsys' per-rank reports write them).

// MaxRanks bounds the files of one side.
const MaxRanks = 4096

// sqliteMagic starts every SQLite database.
var sqliteMagic = []byte("SQLite format 3\x00")

// rankInName finds a rank in a file name ("rank-3", "rank_12", "rank3").
var rankInName = regexp.MustCompile(`(?i)rank[-_.]?(\d{1,6})`)

// files lists the capture files of path: the file itself, or the regular
// files of a directory (not recursed, hidden ones skipped), by name.
func files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	es, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, filepath.Join(path, e.Name()))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no capture files in the directory", path)
	}
	if len(out) > MaxRanks {
		return nil, fmt.Errorf("%s: %d files, more ranks than %d", path, len(out), MaxRanks)
	}
	slices.Sort(out)
	return out, nil
}

// openRegular opens a regular file without blocking (a FIFO put in its
// place does not hang the read) and refuses anything else.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}

// limitReader fails with ingest.ErrLimit past n bytes.
type limitReader struct {
	r    io.Reader
	left int64
}

// Read reads at most the bytes left, then fails with ingest.ErrLimit.
func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("%w: larger than the maximum file size (--max-file-size) once decompressed", ingest.ErrLimit)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// readFile reads one capture file: gzip is undone (bounded by
// lim.MaxFileBytes, a compressed SQLite export by lim.MaxTempBytes in a
// temporary copy); the content says the format — SQLite's header is an
// Nsight export, a JSON object a Kineto trace.
func readFile(path string, lim ingest.Limits, tempDir string) (*capture, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var r io.Reader = br
	zipped := false
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ingest.InputError{File: path, Offset: 0, Err: fmt.Errorf("gzip: %w", err)}
		}
		defer zr.Close()
		r, zipped = bufio.NewReaderSize(zr, 256<<10), true
	}
	pr := bufio.NewReaderSize(r, 64<<10)
	head, _ := pr.Peek(len(sqliteMagic))
	switch {
	case bytes.HasPrefix(head, sqliteMagic):
		if !zipped {
			return readNsight(path, path, lim)
		}
		tmp, err := os.CreateTemp(tempDir, "pipeline-analyze-profile-*.sqlite")
		if err != nil {
			return nil, err
		}
		defer os.Remove(tmp.Name())
		n, err := io.Copy(tmp, io.LimitReader(pr, lim.MaxTempBytes+1))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, &ingest.InputError{File: path, Offset: n, Err: err}
		}
		if n > lim.MaxTempBytes {
			return nil, &ingest.InputError{File: path, Offset: n, Err: fmt.Errorf("%w: a compressed SQLite export needs a temporary copy of more than %d bytes (--max-temp-size); decompress it first", ingest.ErrLimit, lim.MaxTempBytes)}
		}
		return readNsight(path, tmp.Name(), lim)
	default:
		trimmed := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			if len(head) == 0 {
				return nil, ingest.ErrorAt(path, 0, errors.New("empty input"))
			}
			return nil, ingest.ErrorAt(path, 0, errors.New("not a profiler capture: neither a Kineto (PyTorch profiler) JSON trace nor an Nsight Systems SQLite export"))
		}
		return readKineto(path, &limitReader{r: pr, left: lim.MaxFileBytes}, lim)
	}
}

// side is one side of the comparison: its ranks' captures.
type side struct {
	paths []string
	ranks []*capture
}

// readSide reads every file of paths (each a file or a directory of
// ranks), on every CPU, in a deterministic order; ranks without a rank of
// their own take the one in their file name, else their position.
func readSide(paths []string, lim ingest.Limits, tempDir string) (*side, error) {
	var all []string
	for _, p := range paths {
		fs, err := files(p)
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
	}
	if len(all) > MaxRanks {
		return nil, fmt.Errorf("%d files: more ranks than %d", len(all), MaxRanks)
	}
	caps := make([]*capture, len(all))
	errs := make([]error, len(all))
	parallel.For(len(all), 1, func(i int) {
		caps[i], errs[i] = readFile(all[i], lim, tempDir)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for i, c := range caps {
		if c.rank < 0 {
			if m := rankInName.FindStringSubmatch(filepath.Base(c.file)); m != nil {
				c.rank, _ = strconv.Atoi(m[1])
			} else {
				c.rank = i
			}
		}
		if used[c.rank] {
			c.warnings = append(c.warnings, fmt.Sprintf("%s: rank %d given twice: numbered %d by its position", c.file, c.rank, 100000+i))
			c.rank = 100000 + i
		}
		used[c.rank] = true
	}
	slices.SortStableFunc(caps, func(a, b *capture) int { return a.rank - b.rank })
	return &side{paths: paths, ranks: caps}, nil
}
