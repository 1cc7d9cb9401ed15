package jaeger

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Parallel read of one large file (issue 44). Files are read one per CPU,
// so a single large trace file (a million spans in one API response) was
// read by one core while the other idled. A regular Jaeger file of the
// common shape — {"data":[trace,trace,...]...} with each trace written as
// {"traceID":"…","spans":[…], as Jaeger's encoder writes it — that is
// larger than its share of the read (the inputs' bytes over the CPUs, so
// that files already keeping every core busy are not cut: chunks cost
// memory) is cut at trace boundaries into up to one chunk per CPU (the
// caller's count), each chunk read by the fast
// scanner as an envelope of its own ({"data":[ chunk ]}), and the chunks'
// readers combined in file order into the one reader's state that a read
// of the whole file leaves (spans in order, counters summed, processes and
// pod versions each once, in first-seen order), which finish turns into
// the bundle. The result is the whole file's, bit for bit
// (TestSplitMatchesWhole, FuzzSplitMatchesWhole).
//
// A boundary is `}` `,` `{"traceID":"<hex>","spans":[` (whitespace
// allowed between the first three): outside a string no `"` can follow
// `{` unescaped, so the pattern is structure, and only a trace object
// starts with a trace ID followed by its spans. A cut that still lands
// inside a nested value (a hostile file) leaves a chunk whose brackets do
// not balance: that chunk declines, and so the split — anything a chunk
// declines, the whole file is read as before.

// splitMin is the smallest file read in chunks: below it one core reads
// the file in well under a second.
var splitMin int64 = 32 << 20

// splitWindow is how far past its target offset a boundary is looked for.
const splitWindow = 8 << 20

// decodeJaegerFile is the fast path over a regular file of size bytes,
// in up to n parallel chunks; ErrSlowPath declines (too small, another
// shape, no boundary found, a chunk the fast scanner declines), and the
// caller reads the file as before.
func decodeJaegerFile(name string, f *os.File, size int64, lim ingest.Limits, n int) (*ingest.Bundle, error) {
	if size < splitMin {
		return nil, ingest.ErrSlowPath
	}
	return decodeSplit(name, f, size, lim, n)
}

// decodeSplit is decodeJaegerFile over f in (up to) n chunks.
func decodeSplit(name string, f io.ReaderAt, size int64, lim ingest.Limits, n int) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	if n < 2 || size > lim.MaxFileBytes {
		return nil, ingest.ErrSlowPath
	}
	head := make([]byte, 64)
	k, _ := f.ReadAt(head, 0)
	if !bytes.HasPrefix(bytes.TrimLeft(head[:k], " \t\r\n"), []byte(`{"data":[`)) {
		return nil, ingest.ErrSlowPath
	}
	// Chunk c is [starts[c], ends[c]): the first from the file's start, a
	// later one from its trace's '{'; each ends at the ',' before the
	// next, the last at the end of the file.
	starts, ends := []int64{0}, []int64{}
	for c := 1; c < n; c++ {
		comma, open, ok := boundary(f, size, max(size*int64(c)/int64(n), starts[len(starts)-1]+1))
		if !ok {
			break
		}
		ends = append(ends, comma)
		starts = append(starts, open)
	}
	if len(starts) < 2 {
		return nil, ingest.ErrSlowPath
	}
	ends = append(ends, size)
	readers := make([]*jaegerReader, len(starts))
	errs := make([]error, len(starts))
	ingest.For(len(starts), 1, func(c int) {
		var parts []io.Reader
		if c > 0 {
			parts = append(parts, strings.NewReader(`{"data":[`))
		}
		parts = append(parts, io.NewSectionReader(f, starts[c], ends[c]-starts[c]))
		if c < len(starts)-1 {
			parts = append(parts, strings.NewReader(`]}`))
		}
		readers[c], errs[c] = fastRead(name, io.MultiReader(parts...), ends[c]-starts[c], lim)
	})
	total := 0
	for c, r := range readers {
		if errs[c] != nil || r.limited {
			return nil, ingest.ErrSlowPath // the whole file, read as before, says what it says
		}
		total += len(r.b.Spans)
	}
	if total > lim.MaxSpans {
		return nil, ingest.ErrSlowPath // the whole file stops at the limit, with its warning
	}
	return combine(readers, total).finish(nil)
}

// boundary finds the first trace boundary at or after from: the offset of
// the ',' before the trace and of the trace's '{'.
func boundary(f io.ReaderAt, size, from int64) (comma, open int64, ok bool) {
	const pat = `{"traceID":"`
	var buf []byte
	for at := from; at < size && at < from+splitWindow; {
		lo := max(at-256, 0) // room to look back past whitespace
		if buf == nil {
			buf = make([]byte, min(1<<20, size-lo))
		}
		k, err := f.ReadAt(buf, lo)
		if k == 0 && err != nil {
			return 0, 0, false
		}
		w := buf[:k]
		for i := int(at - lo); i < len(w); {
			j := bytes.Index(w[i:], []byte(pat))
			if j < 0 {
				break
			}
			p := i + j
			if c, good := isBoundary(w, p); good {
				return lo + int64(c), lo + int64(p), true
			}
			i = p + 1
		}
		if lo+int64(k) >= size || k < len(buf) {
			return 0, 0, false // the end of the file
		}
		at = max(at+1, lo+int64(k)-int64(len(pat)+64)) // overlap: a pattern across two windows
	}
	return 0, 0, false
}

// isBoundary reports whether the trace pattern at w[p:] starts a trace of
// the data array: `}` ws `,` ws before it, and after the trace ID (hex)
// `","spans":[`. c is the comma's index.
func isBoundary(w []byte, p int) (c int, ok bool) {
	i := p - 1
	for i >= 0 && isSpace(w[i]) {
		i--
	}
	if i < 0 || w[i] != ',' {
		return 0, false
	}
	c = i
	for i--; i >= 0 && isSpace(w[i]); i-- {
	}
	if i < 0 || w[i] != '}' {
		return 0, false
	}
	id := p + len(`{"traceID":"`)
	e := id
	for e < len(w) && e-id <= 32 && isHex(w[e]) {
		e++
	}
	if e == id || e-id > 32 || !bytes.HasPrefix(w[e:], []byte(`","spans":[`)) {
		return 0, false
	}
	return c, true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func isHex(b byte) bool { return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F' }

// combine folds the chunks' readers, in file order, into the first: what
// one reader of the whole file would hold. total is their spans.
func combine(rs []*jaegerReader, total int) *jaegerReader {
	r := rs[0]
	spans := ingest.MakeSpans(0, total)
	procs := map[ingest.Process]bool{}
	versions := map[ingest.PodVersion]bool{}
	var ps []ingest.Process
	var vs []ingest.PodVersion
	for _, o := range rs {
		spans = append(spans, o.b.Spans...)
		o.b.Spans = nil
		for _, p := range o.b.Processes {
			if !procs[p] {
				procs[p] = true
				ps = append(ps, p)
			}
		}
		for _, v := range o.b.PodVersions {
			if !versions[v] {
				versions[v] = true
				vs = append(vs, v)
			}
		}
		if o == r {
			continue
		}
		r.traces += o.traces
		if r.srcWarn == 0 {
			r.firstWarn = o.firstWarn
		}
		r.srcWarn += o.srcWarn
		if r.apiErrs == 0 {
			r.firstAPIErr = o.firstAPIErr
		}
		r.apiErrs += o.apiErrs
		r.crossTrace += o.crossTrace
		r.unknownProc += o.unknownProc
		r.in.Truncated += o.in.Truncated
		r.bigTraces += o.bigTraces
		r.bigDropped += o.bigDropped
		r.manyRefs += o.manyRefs
		r.mostRefs = max(r.mostRefs, o.mostRefs)
	}
	r.b.Spans, r.b.Processes, r.b.PodVersions = spans, ps, vs
	return r
}
