package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// The span budget (issue 44). Spans are the one input whose size has no
// bound but the system's traffic: a span costs ~80 bytes in memory and
// several times that while it is read and indexed, so ten million spans
// would need gigabytes. Up to Limits.SpanBudget bytes of trace files, Read
// keeps every span, as it always has. Above it the read is streamed: each
// file's spans are checked (sorted, deduplicated, linked, clock skew
// adjusted, as Prepare does) and summarised by Options.Stream — the
// features stage's per-entity, per-second digest of what the span-derived
// series need — as soon as the file is decoded, and only a deterministic
// sample of whole traces (those whose ID hashes into the first Rate of the
// hash space) is kept as spans, for what needs spans themselves: evidence,
// per-request patterns, the operation mix. Memory is then bounded by the
// files being decoded (one per CPU), the sample and the digest (the
// system's entities over the window's seconds, and four bytes per span for
// exact latency quantiles), not by the span count.

// streamKeep is the share of the span budget the kept sample takes: the
// sample's trace bytes are about SpanBudget/streamKeep.
const streamKeep = 4

// streamPlan is the decision Read makes before reading: stream or not, and
// the sample's rate. It depends only on the inputs' sizes and formats (a
// regular file's, sniffed from its head), so the same inputs always read
// the same way.
type streamPlan struct {
	digest   func(b *Bundle, parent []int32) SpanDigest
	rate     float64
	keepLess uint64 // a trace is kept when its ID hashes below this
	files    int
	bytes    int64
	budget   int64
}

// planStream returns the plan for files (nil: every span is kept): the
// trace files' bytes (gzip: uncompressed) against lim.SpanBudget. Streams
// (stdin, pipes) cannot be measured first: they count for nothing, though
// a streamed read reduces their spans too. O(files), one 64 KiB head each.
func planStream(files []string, streams []bool, lim Limits, opt Options) *streamPlan {
	if opt.Stream == nil {
		return nil
	}
	p := &streamPlan{digest: opt.Stream, budget: lim.SpanBudget}
	for i, f := range files {
		if streams[i] {
			continue
		}
		format, size, err := sniffPath(f)
		if err == nil && spanFormat(format) {
			p.files++
			p.bytes += size
		}
	}
	if p.bytes <= lim.SpanBudget {
		return nil
	}
	p.rate = float64(lim.SpanBudget/streamKeep) / float64(p.bytes)
	p.keepLess = uint64(p.rate * math.MaxUint64)
	return p
}

// spanFormat reports whether a format's inputs are traces (spans).
func spanFormat(f Format) bool {
	switch f {
	case FormatJaegerJSON, FormatOTLPJSON, FormatJaegerProto, FormatOTLPProto:
		return true
	}
	return false
}

// sniffPath is the format and the (uncompressed) size of the regular file
// at path, from its head (and a gzip member's size trailer).
func sniffPath(path string) (Format, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return FormatUnknown, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return FormatUnknown, 0, err
	}
	size := st.Size()
	br := bufio.NewReaderSize(f, SniffLen)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		var trailer [4]byte
		if _, err := f.ReadAt(trailer[:], size-4); err == nil {
			// ISIZE: the uncompressed size modulo 2³²; a member holds
			// at most about 1032 times its compressed size.
			un := int64(binary.LittleEndian.Uint32(trailer[:]))
			for un < size && un+1<<32 <= 1032*size {
				un += 1 << 32
			}
			size = un
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return FormatUnknown, 0, err
		}
		defer zr.Close()
		r = zr
	}
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return FormatUnknown, 0, err
	}
	return Sniff(bytes.TrimPrefix(head[:n], []byte("\xef\xbb\xbf"))), size, nil
}

// keeps reports whether the sample keeps the trace: its ID hashed (a
// SplitMix64 finaliser over both halves) falls below keepLess.
func (p *streamPlan) keeps(id TraceID) bool {
	return mix64(id.High^mix64(id.Low)) < p.keepLess
}

// mix64 is SplitMix64's finaliser: a bijection whose outputs look uniform
// for any inputs, random or sequential.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// reduce streams one file's part: its spans checked as Prepare checks
// them, summarised into part.Digest, and replaced by the sample's.
// O(n log n) for the part's n spans.
func (p *streamPlan) reduce(part *Bundle) {
	tmp := &Bundle{Spans: part.Spans}
	parent := checkSpans(tmp)
	// The check's warnings are of every span of the file (Prepare's own
	// on the sample, already checked, find nothing more).
	for _, w := range tmp.Warnings {
		if len(part.Inputs) == 1 {
			w.Source = part.Inputs[0].Path
		}
		part.Warnings = append(part.Warnings, w)
	}
	part.Digest = p.digest(tmp, parent)
	keep := make([]bool, len(tmp.Spans))
	kept := 0
	for i := range tmp.Spans {
		if keep[i] = p.keeps(tmp.Spans[i].TraceID); keep[i] {
			kept++
		}
	}
	spans := make([]Span, 0, kept) // a fresh slice: the part's own goes
	keptTraces := map[TraceID]bool{}
	for i := range tmp.Spans {
		if keep[i] {
			spans = append(spans, tmp.Spans[i])
			keptTraces[tmp.Spans[i].TraceID] = true
		}
	}
	// Sorted by start: the first and the last span start the range.
	first, last := tmp.Spans[0].Start, tmp.Spans[len(tmp.Spans)-1].Start
	traces := 0
	if len(part.Inputs) == 1 {
		traces = part.Inputs[0].Counts.Traces
	}
	part.Spans = spans
	part.SpanSample = &SpanSample{Rate: p.rate, ReadSpans: len(tmp.Spans), KeptSpans: kept, ReadTraces: traces,
		KeptTraces: len(keptTraces), Files: 1, Bytes: p.bytes, Budget: p.budget, First: first, Last: last}
}

// warnStreamed says on b that its spans were streamed, and what was kept.
func warnStreamed(b *Bundle) {
	s := b.SpanSample
	if s == nil {
		return
	}
	b.Warn(ErrLimit, "traces", s.ReadSpans-s.KeptSpans,
		"%d trace files (%s) exceed the span budget (%s, --span-budget): their %d spans were streamed — the span-derived series count every one; "+
			"the spans kept for evidence, per-request patterns and the operation mix are a deterministic %.1f%% sample of whole traces by trace ID (%d of %d traces, %d spans)",
		s.Files, byteSize(s.Bytes), byteSize(s.Budget), s.ReadSpans, 100*s.Rate, s.KeptTraces, s.ReadTraces, s.KeptSpans)
}

// byteSize renders n bytes for people, in binary units ("2.0 GiB").
func byteSize(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
