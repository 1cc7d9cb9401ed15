package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"time"
)

// decodeFunc reads one input of a known format into a fresh Bundle. name is
// the input's display name (used in Source fields and errors). Decoders set
// Source on everything they emit; Read fills the Input record (hash, counts,
// time range) itself.
type decodeFunc func(name string, r io.Reader, lim Limits) (*Bundle, error)

// decoders maps each streamable format to its reader. Nsight SQLite needs a
// real file and is handled separately.
var decoders = map[Format]decodeFunc{
	FormatJaegerJSON:         decodeJaeger,
	FormatOTLPJSON:           decodeOTLP,
	FormatJaegerDependencies: decodeDependencies,
	FormatPromQueryRange:     decodePromQueryRange,
	FormatAlertmanager:       decodeAlertmanager,
	FormatK8sEvents:          decodeK8sEvents,
	FormatNvidiaSmiCSV:       decodeNvidiaSmiCSV,
	FormatNvidiaSmiDmon:      decodeNvidiaSmiDmon,
	FormatNVMLRecording:      decodeNVMLRecording,
	FormatKineto:             decodeKineto,
}

// fastDecoders are the fast paths tried first on re-readable files; they
// decline with errSlowPath on anything their general reader must handle.
var fastDecoders = map[Format]decodeFunc{
	FormatJaegerJSON:     decodeJaegerFast,
	FormatPromQueryRange: decodePromFast,
}

// ExpandPaths turns files and directories (recursed, sorted, hidden entries
// skipped) into the list of files to read. "-" stands for stdin. It fails on
// the first path that cannot be read; Read instead names such paths as
// skipped inputs and reads the rest (see expandPaths).
func ExpandPaths(paths []string) ([]string, error) {
	files, bad := expandPaths(paths)
	if len(bad) > 0 {
		return files, fmt.Errorf("input %s: %s", bad[0].Path, bad[0].Error)
	}
	return files, nil
}

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

// Read reads every input (files, directories, "-" for stdin), merges them and
// finalizes the bundle. A file that cannot be read is reported as a skipped
// Input with a warning and the rest are read; so is a path that cannot be
// opened (missing, a dangling symlink, a device), and an input whose time
// range is disjoint from all the others (see disjointInputs). Read fails
// only when nothing at all could be read, returning the first error.
func Read(paths []string, stdin io.Reader, opt Options) (*Bundle, error) {
	files, unread := expandPaths(paths)
	if len(files) == 0 {
		switch len(unread) {
		case 0:
			return nil, errors.New("no input files")
		case 1:
			return nil, &InputError{File: unread[0].Path, Offset: -1, Err: errors.New(unread[0].Error)}
		}
		return nil, fmt.Errorf("no readable input: %d paths skipped (first: %s: %s)", len(unread), unread[0].Path, unread[0].Error)
	}
	lim := opt.Limits.withDefaults()
	b := &Bundle{}
	var firstErr error
	read := 0
	streams := make([]bool, len(files))
	for i, f := range files {
		streams[i] = isStream(f)
	}
	// Files are decoded concurrently (one per CPU) and merged strictly in
	// the order of files, so the bundle, the warnings and the progress lines
	// are the same as a sequential read.
	results := readAll(files, streams, stdin, lim, opt.TempDir)
	parts := make([]*Bundle, len(files))
	errs := make([]error, len(files))
	spans := 0
	for i, f := range files {
		r := <-results[i]
		parts[i], errs[i] = r.part, r.err
		if opt.Progress == nil {
			continue
		}
		if r.err != nil {
			opt.Progress("skip %s: %v", f, r.err)
			continue
		}
		in := r.part.Inputs[0]
		opt.Progress("read %s (%s, %d spans, %d series)", f, in.Format, in.Counts.Spans, in.Counts.Series)
	}
	for _, in := range unread {
		if opt.Progress != nil {
			opt.Progress("skip %s: %s", in.Path, in.Error)
		}
	}
	disjoint := disjointInputs(parts, errs)
	for i, p := range parts {
		if errs[i] == nil && disjoint[i] == "" {
			spans += len(p.Spans)
		}
	}
	// Workers sorted each file's spans; when no span limit cuts them, merge
	// those runs here (what Finalize's stable sort would give, without
	// sorting again). Over the limit, the spans are concatenated in file
	// order so the limit drops the last files' spans, as it always has.
	var runs [][]Span
	if spans > 0 {
		b.Spans = make([]Span, 0, spans)
		if spans <= lim.MaxSpans {
			runs = make([][]Span, 0, len(files))
		}
	}
	for i, f := range files {
		part, err := parts[i], errs[i]
		parts[i] = nil // let the part's own slices go once merged
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			in := Input{Path: f, Skipped: true, Error: err.Error()}
			if part != nil && len(part.Inputs) == 1 {
				in = part.Inputs[0]
				in.Skipped, in.Error = true, err.Error()
			}
			b.Inputs = append(b.Inputs, in)
			b.Warn(ErrSkippedInput, f, 1, "%v", err)
			continue
		}
		if why := disjoint[i]; why != "" {
			in := part.Inputs[0]
			in.Skipped, in.Error = true, why
			b.Inputs = append(b.Inputs, in)
			b.Warn(ErrSkippedInput, f, 1, "left out: %s", why)
			if opt.Progress != nil {
				opt.Progress("skip %s: %s", f, why)
			}
			continue
		}
		if !part.Inputs[0].Skipped {
			read++
		}
		if runs != nil {
			runs = append(runs, part.Spans)
			part.Spans = nil
		}
		b.Merge(part)
	}
	if runs != nil {
		b.Spans = mergeSpanRuns(b.Spans, runs)
	}
	for _, in := range unread {
		b.Inputs = append(b.Inputs, in)
		b.Warn(ErrSkippedInput, in.Path, 1, "%s", in.Error)
	}
	if read == 0 {
		if firstErr != nil {
			return nil, firstErr
		}
		if len(b.Inputs) == 1 && b.Inputs[0].Format == FormatUnknown {
			// One file, e.g. binary garbage: name it, positioned at its start.
			return nil, &InputError{File: b.Inputs[0].Path, Offset: 0, Err: errors.New("not in any known format (see pipeline-analyze --help)")}
		}
		return nil, fmt.Errorf("no readable input: none of the %d files is in a known format (first: %s)", len(b.Inputs), b.Inputs[0].Path)
	}
	b.enforceLimits(lim, "inputs")
	// Regular files were parsed without hashing; hash them now, beside the
	// mostly single-threaded Finalize.
	hashed := make(chan []fileHash, 1)
	var toHash []int
	for i := range files {
		if !streams[i] && errs[i] == nil && b.Inputs[i].Format != FormatUnknown {
			toHash = append(toHash, i)
		}
	}
	go func() { hashed <- hashFiles(files, toHash) }()
	err := b.Finalize(opt)
	for _, h := range <-hashed {
		in := &b.Inputs[h.input]
		switch {
		case h.err != nil:
			b.Warn(ErrPartialInput, in.Path, 1, "could not hash the file after reading it: %v", h.err)
		case h.size != in.Size:
			b.Warn(ErrPartialInput, in.Path, 1, "the file changed while it was read (%d bytes parsed, %d bytes hashed): its sha256 is of the later content", in.Size, h.size)
			in.SHA256 = h.sum
		default:
			in.SHA256 = h.sum
		}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// fileHash is the sha256 of one input file, hashed after parsing.
type fileHash struct {
	input int // index in Inputs
	sum   string
	size  int64
	err   error
}

// hashFiles hashes files[i] for each i of which; Inputs[i] is its record.
func hashFiles(files []string, which []int) []fileHash {
	out := make([]fileHash, len(which))
	for k, i := range which {
		out[k].input = i
		out[k].sum, out[k].size, out[k].err = hashFile(files[i])
	}
	return out
}

// hashFile returns the hex sha256 and size of the file at path.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// readResult is the outcome of ReadFile for one file.
type readResult struct {
	part *Bundle
	err  error
}

// readAll starts reading files with up to GOMAXPROCS workers, in order, and
// returns one channel per file that delivers its result. "-" (stdin) is read
// like any other file, by one worker. Every result is consumed by Read, so no
// worker outlives it.
func readAll(files []string, streams []bool, stdin io.Reader, lim Limits, tempDir string) []chan readResult {
	results := make([]chan readResult, len(files))
	for i := range results {
		results[i] = make(chan readResult, 1)
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	next := make(chan int)
	go func() {
		for i := range files {
			next <- i
		}
		close(next)
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for i := range next {
				part, err := readFileHashing(files[i], stdin, lim, streams[i], tempDir)
				if err == nil {
					sortSpansStable(part.Spans) // in parallel; Read merges the runs
				}
				results[i] <- readResult{part, err}
			}
		}()
	}
	return results
}

// hashingReader counts what passes through it, and hashes it when h is set.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.h != nil {
		h.h.Write(p[:n])
	}
	h.n += int64(n)
	return n, err
}

// wholeDocument are the formats whose readers decode the input as one JSON
// document (bounded by Limits.MaxDocumentBytes).
var wholeDocument = map[Format]bool{FormatAlertmanager: true, FormatK8sEvents: true, FormatJaegerDependencies: true}

// limitReader fails with ErrLimit once more than max bytes were read.
type limitReader struct {
	r    io.Reader
	left int64
	what string // what is too large ("" = the input)
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		if l.what != "" {
			return 0, fmt.Errorf("%w: larger than the largest %s", ErrLimit, l.what)
		}
		return 0, fmt.Errorf("%w: input larger than the maximum file size", ErrLimit)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// ReadFile reads one file ("-" = stdin) into a fresh, unfinalized Bundle whose
// Inputs holds exactly one record. Unknown formats and label files are not an
// error: they come back as a skipped Input.
//
// Jaeger JSON and Prometheus query_range files (not stdin) are first tried
// with the fast readers (jaegerfast.go, promfast.go); when one declines, the
// file is read again with the general reader, so the result and every error
// are those of the general reader.
func ReadFile(path string, stdin io.Reader, lim Limits) (*Bundle, error) {
	return readFileHashing(path, stdin, lim, true, "")
}

// readFileHashing is ReadFile; without hash, the input's SHA256 is left
// empty (Read hashes regular files later, on an otherwise idle core).
// Streams (stdin, pipes, FIFOs) are hashed as they are read, and never take
// the fast paths, which may need to read the input twice.
func readFileHashing(path string, stdin io.Reader, lim Limits, hash bool, tempDir string) (*Bundle, error) {
	stream := isStream(path)
	hash = hash || stream
	b, err := readFile(path, stdin, lim, !stream, hash, tempDir)
	if errors.Is(err, errSlowPath) {
		return readFile(path, stdin, lim, false, hash, tempDir)
	}
	return b, err
}

// readFile is readFileHashing; fast enables the fast paths (fastDecoders).
func readFile(path string, stdin io.Reader, lim Limits, fast, hash bool, tempDir string) (*Bundle, error) {
	lim = lim.withDefaults()
	var raw io.Reader
	name := path
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		raw, name = stdin, "<stdin>"
	} else {
		f, err := openInput(path, lim)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		raw = f
	}
	hr := &hashingReader{r: raw}
	if hash {
		hr.h = sha256.New()
	}
	br := bufio.NewReaderSize(hr, 256<<10)
	in := Input{Path: name}
	var r io.Reader = br
	zipped := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zipped = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &InputError{File: name, Offset: 0, Err: fmt.Errorf("gzip: %w", err)}
		}
		defer zr.Close()
		r = bufio.NewReaderSize(zr, 256<<10)
	}
	r = &limitReader{r: r, left: lim.MaxFileBytes}
	r = newTokenGuard(r, lim.MaxTokenBytes)
	pr := bufio.NewReaderSize(r, sniffLen)
	if bom, _ := pr.Peek(3); string(bom) == "\xef\xbb\xbf" {
		pr.Discard(3) // a UTF-8 byte-order mark: no reader expects it
	}
	head, err := pr.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &InputError{File: name, Offset: int64(len(head)), Err: err}
	}
	err = nil // io.EOF from Peek only means the input is shorter than sniffLen
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, &InputError{File: name, Offset: 0, Err: errors.New("empty input")}
	}
	in.Format = Sniff(head)
	var part *Bundle
	size := int64(-1) // the input's size when not what passed through hr
	switch in.Format {
	case FormatUnknown, FormatLabel, FormatManifest:
		if in.Format != FormatUnknown {
			io.Copy(io.Discard, pr)
		} // an unknown file is not read past the sniffed head (a 2 GB blob is skipped at once)
		in.Skipped = true
		switch in.Format {
		case FormatLabel:
			in.Error = "ground-truth label: read only by eval"
		case FormatManifest:
			in.Error = "bundle manifest"
		default:
			in.Error = "unknown format"
		}
		part = &Bundle{}
	case FormatNsightSQLite:
		direct := path != "-" && !zipped && !isStream(path)
		part, err = readSQLite(name, path, pr, lim, direct, tempDir)
		if direct {
			// SQLite reads the file itself, page by page: its size is the
			// file's (not bounded by MaxFileBytes, which bounds streams).
			if st, serr := os.Stat(path); serr == nil {
				size = st.Size()
			}
		}
	default:
		dec := decoders[in.Format]
		if f, ok := fastDecoders[in.Format]; ok && fast {
			dec = f
		}
		var src io.Reader = pr
		if wholeDocument[in.Format] {
			src = &limitReader{r: pr, left: lim.MaxDocumentBytes, what: "JSON document (--max-document-size)"}
		}
		part, err = dec(name, src, lim)
		if errors.Is(err, errSlowPath) {
			return nil, err // ReadFile re-reads the file with the general reader
		}
		if err == nil {
			// Drain so the size (and hash) covers the whole file.
			io.Copy(io.Discard, pr)
		}
	}
	if err != nil {
		in.SHA256 = ""
		return &Bundle{Inputs: []Input{in}}, err
	}
	part.enforceLimits(lim, name)
	if had := part.records(); had > 0 {
		part.checkValues(name)
		if part.records() == 0 { // every record had an impossible time
			msg := "no usable data"
			if len(part.Warnings) > 0 {
				msg += ": " + part.Warnings[len(part.Warnings)-1].Message
			}
			return &Bundle{Inputs: []Input{in}}, &InputError{File: name, Offset: -1, Err: errors.New(msg)}
		}
	}
	if in.Format != FormatUnknown {
		if hr.h != nil {
			in.SHA256 = hex.EncodeToString(hr.h.Sum(nil))
		}
		in.Size = hr.n
		if size >= 0 { // read in place: hash the file itself
			in.Size = size
			if hr.h != nil {
				in.SHA256, in.Size, _ = hashFile(path)
			}
		}
	}
	part.countInto(&in)
	part.Inputs = []Input{in}
	return part, nil
}

// readSQLite hands the Nsight decoder a real file: the path itself when it
// is a regular uncompressed file (direct: read in place, not copied, not
// bounded by MaxFileBytes), else a temporary copy in tempDir
// ("" = the system's). The copy is bounded: never more than
// lim.MaxTempBytes, and no more than the database size its header states
// (a gzip bomb behind a valid header is not inflated onto the disk). The
// copy is removed when the decoder is done; the command removes tempDir on
// SIGINT/SIGTERM.
func readSQLite(name, path string, r io.Reader, lim Limits, direct bool, tempDir string) (*Bundle, error) {
	if direct {
		return decodeNsightSQLite(name, path, lim) // hashed later from the file, like every regular file
	}
	br := bufio.NewReaderSize(r, 100)
	max := lim.MaxTempBytes
	if head, _ := br.Peek(100); len(head) == 100 {
		if n := sqliteDeclaredSize(head); n > 0 && n < max {
			max = n
		}
	}
	tmp, err := os.CreateTemp(tempDir, "pipeline-analyze-*.sqlite")
	if err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(br, max+1))
	if err != nil {
		tmp.Close()
		return nil, &InputError{File: name, Offset: n, Err: err}
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	if n > max && max == lim.MaxTempBytes {
		return nil, &InputError{File: name, Offset: n, Err: fmt.Errorf("%w: a compressed or piped SQLite export needs a temporary copy of more than %d bytes (--max-temp-size); decompress it first", ErrLimit, max)}
	}
	if err := os.Truncate(tmp.Name(), min(n, max)); err != nil {
		return nil, fmt.Errorf("nsight %s: %w", name, err)
	}
	return decodeNsightSQLite(name, tmp.Name(), lim)
}

// sqliteDeclaredSize is the database size an SQLite header states (page
// size × "in-header database size"), or 0 when the header does not state it
// validly (the change counter and the version-valid-for number differ).
func sqliteDeclaredSize(h []byte) int64 {
	if len(h) < 100 || !bytes.HasPrefix(h, []byte("SQLite format 3\x00")) {
		return 0
	}
	page := int64(h[16])<<8 | int64(h[17])
	if page == 1 {
		page = 65536
	}
	if page < 512 || page&(page-1) != 0 {
		return 0
	}
	be32 := func(b []byte) int64 { return int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]) }
	pages := be32(h[28:32])
	if pages == 0 || be32(h[24:28]) != be32(h[92:96]) {
		return 0
	}
	return page * pages
}

// openInput opens a path for reading: a regular file as it is, a pipe or a
// FIFO without blocking on open (a FIFO nobody writes to reads as empty)
// and with a stall timeout on every read; anything else is refused.
func openInput(path string, lim Limits) (io.ReadCloser, error) {
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
		return &stallReader{f: f, d: lim.StallTimeout}, nil
	default:
		return nil, &InputError{File: path, Offset: -1, Err: errors.New(notReadable(m))}
	}
}

// stallReader fails a pipe that sends nothing for d.
type stallReader struct {
	f *os.File
	d time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	_ = s.f.SetReadDeadline(time.Now().Add(s.d)) // fails only where the pipe cannot be polled: then reads block
	n, err := s.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: no data for %v from the pipe (--stall-timeout)", ErrLimit, s.d)
	}
	return n, err
}

func (s *stallReader) Close() error { return s.f.Close() }

// records counts what a reader produced: spans, points, events, alerts and
// dependencies.
func (b *Bundle) records() int {
	n := len(b.Spans) + len(b.Events) + len(b.Alerts) + len(b.Deps)
	for _, s := range b.Series {
		if s != nil {
			n += len(s.T)
		}
	}
	return n
}

// countInto fills the counts and time range of in from the part's content.
func (b *Bundle) countInto(in *Input) {
	c := &in.Counts
	c.Spans = len(b.Spans)
	c.Series = len(b.Series)
	c.Events = len(b.Events)
	c.Alerts = len(b.Alerts)
	c.Dependencies = len(b.Deps)
	traces := map[TraceID]struct{}{}
	services := map[string]struct{}{}
	span := func(t Time) {
		if t == 0 {
			return
		}
		if in.Start == 0 || t < in.Start {
			in.Start = t
		}
		if t > in.End {
			in.End = t
		}
	}
	for i := range b.Spans {
		s := &b.Spans[i]
		traces[s.TraceID] = struct{}{}
		services[s.Service] = struct{}{}
		span(s.Start)
		span(s.End())
	}
	for _, s := range b.Series {
		c.Points += len(s.T)
		if len(s.T) > 0 {
			span(s.T[0])
			span(s.T[len(s.T)-1])
		}
		if s.Entity.Service != "" {
			services[s.Entity.Service] = struct{}{}
		}
	}
	for _, e := range b.Events {
		span(e.Time)
	}
	for _, a := range b.Alerts {
		span(a.StartsAt)
	}
	c.Traces = len(traces)
	c.Services = len(services)
}
