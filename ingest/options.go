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
	MaxLogRecords  int   // log records kept over all inputs
}

// DefaultLimits are generous for real incidents and small enough to fail fast on garbage.
func DefaultLimits() Limits {
	return Limits{
		MaxFileBytes:   4 << 30,
		MaxDepth:       256,
		MaxStringBytes: 64 << 10,
		MaxSpans:       20_000_000,
		MaxSeries:      200_000,
		MaxPoints:      100_000_000,
		MaxLogRecords:  20_000_000,
	}
}

func (l Limits) withDefaults() Limits {
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
	return l
}

// Options configure reading and alignment. The zero value is usable.
type Options struct {
	Limits Limits
	// Step is the common step series are aligned to and span RED series are
	// derived on. Zero picks the median step of the metric inputs (or 15s
	// when there are none).
	Step time.Duration
	// Progress, when non-nil, receives one line per file read (for stderr).
	Progress func(format string, args ...any)
	// LogEntity names the entity of log records whose source names none
	// (plain log files such as kubectl logs output, container logs outside
	// the Kubernetes log paths): "pod/NAME", "service/NAME", or a bare NAME
	// (a pod when it ends in a generated pod-name suffix, else a service).
	// It overrides the entity a file name suggests, never labels in the data.
	LogEntity string
}
