package ingest

import "time"

// Limits bound what hostile or runaway input can make the readers allocate.
// A zero field means "use the default".
type Limits struct {
	MaxFileBytes   int64 // largest input accepted (after decompression)
	MaxDepth       int   // deepest JSON nesting accepted
	MaxStringBytes int   // longest string kept (longer ones are truncated with a warning)
	MaxSpans       int   // spans kept over all inputs
	MaxSeries      int   // series kept over all inputs
	MaxPoints      int   // points kept over all inputs
	MaxLogRecords  int   // log records kept of one input (48 bytes each, more while the slice grows)
	// MaxTokenBytes is the longest JSON string, number or whitespace run an
	// input may hold (checked on the decompressed stream of every JSON
	// input, see tokenGuard); a longer one rejects the input.
	MaxTokenBytes int64
	// MaxDocumentBytes is the largest input a reader decodes as one JSON
	// document (Alertmanager payloads, Kubernetes events, dependencies):
	// decoding costs several times the document's size in memory.
	MaxDocumentBytes int64
	// MaxEvents is the most alerts and the most change events kept of one
	// input; the rest are dropped with a warning.
	MaxEvents int
	// MaxTraceSpans is the most spans kept of one trace; the rest of a
	// bigger trace is dropped with a warning.
	MaxTraceSpans int
	// MaxCells bounds the aligned series: series × grid cells over all
	// inputs. Series beyond it (those with the fewest points first) are
	// dropped with a warning.
	MaxCells int
	// MaxTempBytes bounds the temporary copy of an input that must be a real
	// file (a compressed or piped SQLite export).
	MaxTempBytes int64
	// QueryTimeout interrupts the queries of an SQLite input that run longer.
	QueryTimeout time.Duration
	// StallTimeout is the longest wait for the next byte of a pipe or FIFO,
	// and for a FIFO's first writer.
	StallTimeout time.Duration
	// Log budgets (ingest/logs/budget.go): templates mined per service of one input
	// and per input in all (also over all inputs once merged), streams kept
	// of one input, services and pods with log series over all inputs, and
	// bytes kept of one log record's text. What they cut is warned.
	MaxLogTemplates, MaxLogTemplatesTotal, MaxLogStreams, MaxLogEntities, MaxLogRecordBytes int
	// SpanBudget is the most bytes of trace files (Jaeger, OTLP, JSON or
	// protobuf; gzip counted uncompressed) read with every span kept. Above it the read
	// is streamed (stream.go): the span-derived series count every span,
	// and only a sample of whole traces of about a quarter of the budget
	// is kept as spans, with a warning.
	SpanBudget int64
}

// DefaultLimits are generous for real incidents and small enough to fail fast on garbage.
func DefaultLimits() Limits {
	return Limits{
		MaxFileBytes:     1 << 30,
		MaxDepth:         256,
		MaxStringBytes:   64 << 10,
		MaxSpans:         20_000_000,
		MaxSeries:        200_000,
		MaxPoints:        100_000_000,
		MaxTokenBytes:    16 << 20,
		MaxDocumentBytes: 64 << 20,
		MaxEvents:        200_000,
		MaxTraceSpans:    100_000,
		MaxCells:         40_000_000,
		MaxTempBytes:     1 << 30,
		QueryTimeout:     30 * time.Second,
		StallTimeout:     30 * time.Second,
		MaxLogRecords:    4_000_000,

		MaxLogTemplates: 2000, MaxLogTemplatesTotal: 100_000, MaxLogStreams: 100_000, MaxLogEntities: 5000,
		MaxLogRecordBytes: 64 << 10,
		SpanBudget:        2 << 30,
	}
}

// WithDefaults returns l with every zero bound set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFileBytes == 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxDepth == 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxStringBytes == 0 {
		l.MaxStringBytes = d.MaxStringBytes
	}
	if l.MaxSpans == 0 {
		l.MaxSpans = d.MaxSpans
	}
	if l.MaxSeries == 0 {
		l.MaxSeries = d.MaxSeries
	}
	if l.MaxPoints == 0 {
		l.MaxPoints = d.MaxPoints
	}
	if l.MaxLogRecords == 0 {
		l.MaxLogRecords = d.MaxLogRecords
	}
	if l.MaxTokenBytes == 0 {
		l.MaxTokenBytes = d.MaxTokenBytes
	}
	if l.MaxDocumentBytes == 0 {
		l.MaxDocumentBytes = d.MaxDocumentBytes
	}
	if l.MaxEvents == 0 {
		l.MaxEvents = d.MaxEvents
	}
	if l.MaxTraceSpans == 0 {
		l.MaxTraceSpans = d.MaxTraceSpans
	}
	if l.MaxCells == 0 {
		l.MaxCells = d.MaxCells
	}
	if l.MaxTempBytes == 0 {
		l.MaxTempBytes = d.MaxTempBytes
	}
	if l.QueryTimeout == 0 {
		l.QueryTimeout = d.QueryTimeout
	}
	if l.StallTimeout == 0 {
		l.StallTimeout = d.StallTimeout
	}
	if l.SpanBudget <= 0 {
		l.SpanBudget = d.SpanBudget
	}
	return l.logDefaults(d)
}

// Options configure reading and finalizing (Read, ReadUnaligned, Prepare,
// Finalize). The zero value reads with the default limits and step. The
// features stage is not among them: it runs after Prepare and before
// Align, called by package features (features.Read, features.Finalize),
// never by ingest.
type Options struct {
	Limits Limits
	// Step is the common step series are aligned to and span RED series are
	// derived on. Zero picks the median step of the metric inputs (or 15s
	// when there are none).
	Step time.Duration
	// Progress, when non-nil, receives one line per file read (for stderr).
	Progress func(format string, args ...any)
	// Notice, when non-nil, receives a line a person should see at once
	// because the read is waiting on something outside it: "waiting up to
	// 30s for a writer on FILE (--stall-timeout)" when a FIFO named as an
	// input has no writer yet (at most once per FIFO).
	Notice func(format string, args ...any)
	// LogEntity names the entity of log records whose source names none
	// (plain log files such as kubectl logs output, container logs outside
	// the Kubernetes log paths): "pod/NAME", "service/NAME", or a bare NAME
	// (a pod when it ends in a generated pod-name suffix, else a service).
	// It overrides the entity a file name suggests, never labels in the data.
	LogEntity string
	// TempDir is where temporary copies of inputs go ("" = os.TempDir());
	// the command points it at a per-run directory it removes on signals.
	TempDir string
	// Stream is the features stage's digest of one file's spans for a read
	// over the span budget (Limits.SpanBudget; features.Read sets it,
	// features.Streamer). It is the one hook ingest calls while reading,
	// because it must run before all but a sample of a file's spans are
	// dropped: given the file's spans checked as Prepare checks them
	// (parent[i] is span i's parent, -1 for none), it summarises what the
	// span-derived series need; the bundle keeps the digests
	// (Bundle.Digest), which features.Derive reads after Prepare. Nil:
	// every span is kept, whatever the budget.
	Stream func(b *Bundle, parent []int32) SpanDigest
}

// enforceLimits trims what a reader produced to lim (spans, series, points),
// with one ErrLimit warning per bound hit. Readers that stream (Jaeger, OTLP,
// Prometheus) stop early themselves; this is the backstop for the others and
// for the totals over all inputs. source names the input in the warning.
func enforceLimits(b *Bundle, lim Limits, source string) {
	lim = lim.WithDefaults()
	if n := len(b.Spans); n > lim.MaxSpans {
		b.Spans = b.Spans[:lim.MaxSpans]
		b.Warn(ErrLimit, source, n-lim.MaxSpans, "%d spans dropped: more than %d spans (--max-spans)", n-lim.MaxSpans, lim.MaxSpans)
	}
	if n := len(b.Series); n > lim.MaxSeries {
		b.Series = b.Series[:lim.MaxSeries]
		b.Warn(ErrLimit, source, n-lim.MaxSeries, "%d series dropped: more than %d series (--max-series)", n-lim.MaxSeries, lim.MaxSeries)
	}
	if n := len(b.Logs); n > lim.MaxLogRecords {
		b.Logs = b.Logs[:lim.MaxLogRecords]
		b.Warn(ErrLimit, source, n-lim.MaxLogRecords, "%d log records dropped: more than %d log records", n-lim.MaxLogRecords, lim.MaxLogRecords)
	}
	points := 0
	for i, s := range b.Series {
		if s == nil {
			continue
		}
		if points+len(s.T) > lim.MaxPoints {
			dropped := len(b.Series) - i
			b.Series = b.Series[:i]
			b.Warn(ErrLimit, source, dropped, "%d series dropped: more than %d points in all (--max-points)", dropped, lim.MaxPoints)
			break
		}
		points += len(s.T)
	}
}

// logDefaults fills the log budgets of l that are zero from d.
func (l Limits) logDefaults(d Limits) Limits {
	if l.MaxLogTemplates == 0 {
		l.MaxLogTemplates = d.MaxLogTemplates
	}
	if l.MaxLogTemplatesTotal == 0 {
		l.MaxLogTemplatesTotal = d.MaxLogTemplatesTotal
	}
	if l.MaxLogStreams == 0 {
		l.MaxLogStreams = d.MaxLogStreams
	}
	if l.MaxLogEntities == 0 {
		l.MaxLogEntities = d.MaxLogEntities
	}
	if l.MaxLogRecordBytes == 0 {
		l.MaxLogRecordBytes = d.MaxLogRecordBytes
	}
	return l
}
