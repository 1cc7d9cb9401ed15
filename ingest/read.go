package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"slices"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

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

// Read reads every input (files, directories, "-" for stdin), merges them
// and makes them one aligned bundle, without the features stage: it is
// ReadUnaligned, then UnalignedRead.Align at once. Whatever analyses the
// data reads through features.Read instead, which runs the stage between
// the two. A file that cannot be read is reported as a skipped Input with
// a warning and the rest are read; so is a path that cannot be opened
// (missing, a dangling symlink, a device), and an input whose time range
// is disjoint from all the others (see disjointInputs). Read fails only
// when nothing at all could be read, returning the first error.
func Read(paths []string, stdin io.Reader, opt Options) (*Bundle, error) {
	r, err := ReadUnaligned(paths, stdin, opt)
	if err != nil {
		return nil, err
	}
	return r.Align(), nil
}

// UnalignedRead is a read whose bundle is merged and prepared (Prepare:
// repaired, its grid step chosen) but not yet aligned, while the input
// files are hashed beside: what ReadUnaligned returns, for the features
// stage to run on before Align finishes the read.
type UnalignedRead struct {
	// Bundle is the bundle as read and prepared; its series are not yet
	// on the grid and its entity list is not yet built.
	Bundle *Bundle
	limits Limits
	// hashing hashes the regular files (after parsing, beside Prepare and
	// whatever runs before Align) into hashed.
	hashing parallel.Group
	hashed  []fileHash
}

// ReadUnaligned reads every input as Read does, merges them and prepares
// the bundle (Prepare) without aligning it; UnalignedRead.Align finishes
// the read. It fails as Read fails.
func ReadUnaligned(paths []string, stdin io.Reader, opt Options) (*UnalignedRead, error) {
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
	lim := opt.Limits.WithDefaults()
	streams := make([]bool, len(files))
	for i, f := range files {
		streams[i] = isStream(f)
	}
	// Files are decoded concurrently (one per CPU) and merged strictly in
	// the order of files, so the bundle, the warnings and the progress lines
	// are the same as a sequential read.
	plan := planStream(files, streams, lim, opt)
	env := readEnv{tempDir: opt.TempDir, notice: opt.Notice, stream: plan, share: readShare(files, streams)}
	parts, errs := collectParts(files, readAll(files, streams, stdin, lim, env), opt.Progress)
	for _, in := range unread {
		if opt.Progress != nil {
			opt.Progress("skip %s: %s", in.Path, in.Error)
		}
	}
	// Regular files were parsed without hashing; hash them now, beside
	// the merge, Prepare, the features stage and Align (whose span passes
	// are split over two goroutines only in part, so a core is often
	// free). Each part is one input (readFile's), the merged bundle's
	// Inputs[i].
	var toHash []int
	for i := range files {
		if !streams[i] && plan == nil && errs[i] == nil && parts[i] != nil && len(parts[i].Inputs) == 1 && parts[i].Inputs[0].Format != FormatUnknown {
			toHash = append(toHash, i)
		}
	}
	r := &UnalignedRead{limits: opt.Limits}
	r.hashing.Go(func() { r.hashed = hashFiles(files, toHash) })
	b, read, firstErr := mergeParts(files, parts, errs, unread, lim, opt.Progress)
	if read == 0 {
		r.hashing.Wait() // not wanted: nothing was read
		if firstErr != nil {
			return nil, firstErr
		}
		if len(b.Inputs) == 1 && b.Inputs[0].Format == FormatUnknown {
			// One file, e.g. binary garbage: name it, positioned at its start.
			return nil, &InputError{File: b.Inputs[0].Path, Offset: 0, Err: errors.New("not in any known format (see pipeline-analyze --help)")}
		}
		return nil, fmt.Errorf("no readable input: none of the %d files is in a known format (first: %s)", len(b.Inputs), b.Inputs[0].Path)
	}
	warnStreamed(b)
	enforceLimits(b, lim, "inputs")
	r.Bundle = b
	Prepare(b, opt)
	return r, nil
}

// Align finishes the read: the bundle aligned (ingest.Align), then the
// input files' hashes awaited and recorded (Input.SHA256; a file that
// could not be hashed, or changed while it was read, is warned). It
// returns the bundle; call it once.
func (r *UnalignedRead) Align() *Bundle {
	b := r.Bundle
	Align(b, r.limits)
	r.hashing.Wait()
	for _, h := range r.hashed {
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
	return b
}

// collectParts takes each file's decoded part (or error) from the readers,
// in file order, saying each on progress.
func collectParts(files []string, results []chan readResult, progress func(string, ...any)) ([]*Bundle, []error) {
	parts := make([]*Bundle, len(files))
	errs := make([]error, len(files))
	for i, f := range files {
		r := <-results[i]
		parts[i], errs[i] = r.part, r.err
		if progress == nil {
			continue
		}
		if r.err != nil {
			progress("skip %s: %v", f, r.err)
			continue
		}
		in := r.part.Inputs[0]
		if in.Counts.Logs > 0 {
			progress("read %s (%s, %d log records)", f, in.Format, in.Counts.Logs)
			continue
		}
		progress("read %s (%s, %d spans, %d series)", f, in.Format, in.Counts.Spans, in.Counts.Series)
	}
	return parts, errs
}

// mergeParts merges the parts in file order into one bundle: failed files
// and inputs whose time range is disjoint from the others' are skipped
// inputs with a warning, as are the unread paths. read counts the inputs
// merged (not skipped); firstErr is the first file's error.
func mergeParts(files []string, parts []*Bundle, errs []error, unread []Input, lim Limits, progress func(string, ...any)) (b *Bundle, read int, firstErr error) {
	b = &Bundle{}
	spans, logs, logParts := 0, 0, 0
	disjoint := disjointInputs(parts, errs)
	for i, p := range parts {
		if errs[i] == nil && disjoint[i] == "" {
			spans += len(p.Spans)
			logs += len(p.Logs)
			logParts += min(1, len(p.Logs))
		}
	}
	if logParts > 1 { // one input's records are adopted by Merge, not copied
		b.Logs = make([]LogRecord, 0, logs) // Merge appends each file's records once
	}
	// Workers sorted each file's spans; when no span limit cuts them, merge
	// those runs here (what Prepare's stable sort would give, without
	// sorting again). Over the limit, the spans are concatenated in file
	// order so the limit drops the last files' spans, as it always has.
	var runs [][]Span
	if spans > 0 {
		b.Spans = MakeSpans(0, spans)
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
			if progress != nil {
				progress("skip %s: %s", f, why)
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
		clear(runs)
		if int64(len(b.Spans))*int64(unsafe.Sizeof(Span{})) >= collectAfterMerge {
			// The runs, as large as the merged spans, are garbage now, but
			// the GC's goal was set while both were live (about twice the
			// spans): without a collection here, everything allocated
			// from Prepare to the report (a third of the peak at a
			// million spans) takes fresh memory on top of the dead runs.
			// One collection, on its own goroutine beside Prepare, lets
			// that reuse the runs' memory.
			go runtime.GC()
		}
	}
	for _, in := range unread {
		b.Inputs = append(b.Inputs, in)
		b.Warn(ErrSkippedInput, in.Path, 1, "%s", in.Error)
	}
	return b, read, firstErr
}

// collectAfterMerge is the size of merged spans (bytes) from which
// mergeParts starts a garbage collection once the per-file runs are dead
// (at 32 MiB, about 400k spans; below it the extra cycle would cost more
// time than the memory is worth).
const collectAfterMerge = 32 << 20

// fileHash is the sha256 of one input file, hashed after parsing.
type fileHash struct {
	input int // index in Inputs
	sum   string
	size  int64
	err   error
}

// hashFiles hashes files[i] for each i of which; Inputs[i] is its record.
// A file unchanged since an earlier run takes its digest from the digest
// cache (digestcache.go) instead of being read again.
func hashFiles(files []string, which []int) []fileHash {
	out := make([]fileHash, len(which))
	var buf []byte // one buffer for all, as large as the largest file needs
	for k, i := range which {
		out[k].input = i
		out[k].sum, out[k].size, out[k].err = hashFileCached(files[i], &buf)
	}
	digests.save()
	return out
}

// hashFile returns the hex sha256 and size of the file at path, reading
// through *scratch (grown to what the file needs, up to hashBuf, and kept
// for the next file).
func hashFile(path string, scratch *[]byte) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	// Reads of up to hashBuf bytes: io.Copy's 32 KiB (os.File's WriteTo)
	// makes eight times the read calls, each dearer than its copy in this
	// VM; a small file's buffer is its size, not hashBuf.
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	if want := bufFor(size, hashBuf); len(*scratch) < want {
		*scratch = make([]byte, want)
	}
	buf := *scratch
	var n int64
	for {
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", n, err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// hashBuf is hashFile's read size: large enough that read calls cost
// little beside the hashing, small enough to stay in cache while hashed.
const hashBuf = 256 << 10

// bufFor is the size of a read buffer of at most limit bytes for an input
// of size bytes (-1: unknown): a small file's buffer holds the whole file
// and the read that meets its end, and no more. In this VM each fresh
// 4 KiB page costs ~12 µs on first touch, so full-size buffers made a
// 100 KB file cost milliseconds. Where the input holds less than limit,
// what the buffer sees is the same (the whole input), so Peek and the
// sniffed head do not change.
func bufFor(size int64, limit int) int {
	if size < 0 || size >= int64(limit) {
		return limit
	}
	return int(size) + 1 + 512 // a little slack for a file that grows while read
}

// readEnv is what reading a file needs beside the file and its limits:
// where temporary copies go ("" = os.TempDir()) and where to say that a
// FIFO waits for its writer (Options.Notice; nil says nothing).
type readEnv struct {
	tempDir string
	notice  func(format string, args ...any)
	stream  *streamPlan // a streamed read's plan (nil: every span kept)
	// share is the read's bytes over the CPUs: a file larger than this
	// is read in parallel chunks where its format can (0: never).
	share int64
}

// readResult is the outcome of ReadFile for one file.
type readResult struct {
	part *Bundle
	err  error
}

// readAll starts reading files with up to GOMAXPROCS workers, largest first
// (readOrder), and returns one channel per file that delivers its result.
// "-" (stdin) is read like any other file, by one worker. Every result is
// consumed by Read, so no worker outlives it.
func readAll(files []string, streams []bool, stdin io.Reader, lim Limits, env readEnv) []chan readResult {
	results := make([]chan readResult, len(files))
	for i := range results {
		results[i] = make(chan readResult, 1)
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	next := make(chan int)
	go func() {
		for _, i := range readOrder(files, streams) {
			next <- i
		}
		close(next)
	}()
	for w := 0; w < workers; w++ {
		go func() { // a panic in a worker is its file's error (readSorted): it ends no other
			for i := range next {
				// A streamed read hashes each file as it reads it: its
				// Prepare, on the sample, is too short to hide hashing
				// gigabytes on the other core afterwards.
				part, err := readSorted(files[i], stdin, lim, streams[i] || env.stream != nil, env)
				results[i] <- readResult{part, err}
			}
		}()
	}
	return results
}

// readSorted is readFileHashing with the part's spans sorted (by start,
// then position) — in a streamed read, reduced to the sample first — a
// panic in any being the file's error (recoverInput).
func readSorted(path string, stdin io.Reader, lim Limits, hash bool, env readEnv) (b *Bundle, err error) {
	defer recoverInput(path, &b, &err)
	b, err = readFileHashing(path, stdin, lim, hash, env)
	if err == nil {
		if env.stream != nil && len(b.Spans) > 0 {
			env.stream.reduce(b)
		}
		sortSpansStable(b.Spans) // in parallel; Read merges the runs
	}
	return b, err
}

// readShare is one CPU's share of the regular files' bytes (0 with one
// CPU): a file larger than that is worth reading in chunks on several.
func readShare(files []string, streams []bool) int64 {
	cpus := int64(runtime.GOMAXPROCS(0))
	if cpus < 2 {
		return 0
	}
	var total int64
	for i, f := range files {
		if !streams[i] {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
	}
	return max(total/cpus, 1)
}

// readOrder is the order in which readAll starts the files: regular files
// by size, largest first (ties in file order), then streams in file order.
// The largest input (typically one trace file beside many small metric
// files) is the critical path; started last, as the file order (sorted
// names) often has it, it would run alone on one core at the end. Results
// are still merged in file order, so the order changes no output.
// O(f log f) for f files, plus one stat each.
func readOrder(files []string, streams []bool) []int {
	size := make([]int64, len(files))
	for i, f := range files {
		size[i] = -1
		if !streams[i] {
			if st, err := os.Stat(f); err == nil {
				size[i] = st.Size()
			}
		}
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return order
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

// sizedReader is a reader whose whole length is known (a regular file):
// SizeHint reports it.
type sizedReader struct {
	io.Reader
	size int64
}

// Size is the reader's whole length in bytes.
func (s sizedReader) Size() int64 { return s.size }

// SizeHint returns the whole length in bytes of what r reads when it
// says so (a regular file as readFile hands it to a decoder, a
// bytes.Reader, an io.SectionReader), else 0. It is a hint for sizing
// what a decoder builds, never a bound: the input may be shorter or
// longer (a file that changes while it is read).
func SizeHint(r io.Reader) int64 {
	if s, ok := r.(interface{ Size() int64 }); ok {
		return max(s.Size(), 0)
	}
	return 0
}

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
	return readFileHashing(path, stdin, lim, true, readEnv{})
}

// readFileHashing is ReadFile; without hash, the input's SHA256 is left
// empty (Read hashes regular files later, on an otherwise idle core).
// Streams (stdin, pipes, FIFOs) are hashed as they are read, and never take
// the fast paths, which may need to read the input twice.
func readFileHashing(path string, stdin io.Reader, lim Limits, hash bool, env readEnv) (b *Bundle, err error) {
	defer recoverInput(path, &b, &err)
	stream := isStream(path)
	hash = hash || stream
	b, err = readFile(path, stdin, lim, !stream, hash, env)
	if errors.Is(err, ErrSlowPath) {
		return readFile(path, stdin, lim, false, hash, env)
	}
	return b, err
}

// readFile is readFileHashing; fast enables the decoders' fast paths.
// Its length is the one ordered sequence every input goes through (open,
// bound, gunzip, sniff, dispatch, describe), each step short; split, the
// closers and limits would be threaded through every piece.
func readFile(path string, stdin io.Reader, lim Limits, fast, hash bool, env readEnv) (*Bundle, error) {
	lim = lim.WithDefaults()
	var raw io.Reader
	name := path
	known := int64(-1) // a regular file's size: no buffer need be larger
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		raw, name = stdin, "<stdin>"
	} else {
		f, err := openInput(path, lim, env.notice)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		raw = f
		if f, ok := f.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				known = st.Size()
			}
		}
	}
	hr := &hashingReader{r: raw}
	if hash {
		hr.h = sha256.New()
	}
	br := bufio.NewReaderSize(hr, bufFor(known, 256<<10))
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
		known = -1 // the file's size is not what it holds
	}
	r = &limitReader{r: r, left: lim.MaxFileBytes}
	guard := newTokenGuard(r, lim.MaxTokenBytes)
	pr := bufio.NewReaderSize(guard, bufFor(known, SniffLen))
	if bom, _ := pr.Peek(3); string(bom) == "\xef\xbb\xbf" {
		pr.Discard(3) // a UTF-8 byte-order mark: no reader expects it
	}
	head, err := pr.Peek(SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &InputError{File: name, Offset: int64(len(head)), Err: err}
	}
	err = nil // io.EOF from Peek only means the input is shorter than SniffLen
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
	default:
		sp := spec(in.Format)
		if sp.DecodeFile != nil {
			direct := path != "-" && !zipped && !isStream(path)
			part, err = sp.DecodeFile(name, path, pr, lim, direct, env.tempDir)
			if direct {
				// Read in place (SQLite reads the file itself, page by
				// page): its size is the file's (not bounded by
				// MaxFileBytes, which bounds streams).
				if st, serr := os.Stat(path); serr == nil {
					size = st.Size()
				}
			}
			break
		}
		if f, ok := raw.(*os.File); ok && sp.FastFile != nil && fast && !zipped && env.share > 0 {
			// A file larger than its share of the read would keep one
			// core busy while the others ran out of files: its chunks go
			// to all of them (the result is the same either way).
			if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() && st.Size() > env.share {
				chunks := min(int((st.Size()+env.share-1)/env.share), runtime.GOMAXPROCS(0))
				if p, ferr := sp.FastFile(name, f, st.Size(), lim, chunks); ferr == nil {
					part, size = p, st.Size() // read in place: its size is the file's
					break
				}
			}
		}
		dec := sp.Decode
		if sp.Binary {
			guard.mode = guardOff // not JSON: nothing to bound token by token
		}
		if sp.Fast != nil && fast {
			dec = sp.Fast
			if sp.SelfGuarded {
				guard.mode = guardOff // the fast scanner bounds tokens itself
			}
		}
		var src io.Reader = pr
		if sp.WholeDocument {
			src = &limitReader{r: pr, left: lim.MaxDocumentBytes, what: "JSON document (--max-document-size)"}
		}
		if f, ok := raw.(*os.File); ok && sp.Fast != nil && fast && !zipped {
			// A regular file's size lets a fast decoder size what it
			// builds (SizeHint) instead of growing it by doubling.
			if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
				src = sizedReader{src, st.Size()}
			}
		}
		part, err = dec(name, src, lim)
		if errors.Is(err, ErrSlowPath) {
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
	enforceLimits(part, lim, name)
	if had := records(part); had > 0 {
		checkValues(part, name)
		if records(part) == 0 { // every record had an impossible time
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
				in.SHA256, in.Size, _ = hashFile(path, new([]byte))
			}
		}
	}
	part.CountInto(&in)
	part.Inputs = []Input{in}
	return part, nil
}

// records counts what a reader produced: spans, points, events, alerts,
// dependencies and log records.
func records(b *Bundle) int {
	n := len(b.Spans) + len(b.Events) + len(b.Alerts) + len(b.Deps) + len(b.Logs)
	for _, s := range b.Series {
		if s != nil {
			n += len(s.T)
		}
	}
	return n
}
