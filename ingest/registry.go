package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// DecodeFunc reads one input of a known format into a fresh Bundle. name is
// the input's display name (used in Source fields and errors). A decoder
// sets Source on everything it emits; Read fills the Input record (hash,
// counts, time range) itself.
type DecodeFunc func(name string, r io.Reader, lim Limits) (*Bundle, error)

// FileDecodeFunc reads an input that is best read in place (Nsight SQLite):
// path is the file, direct says it may be opened directly (a regular,
// uncompressed file), and r is the bounded, decompressed content otherwise
// (to be spooled under tempDir).
type FileDecodeFunc func(name, path string, r io.Reader, lim Limits, direct bool, tempDir string) (*Bundle, error)

// SniffRule is one rule that recognises a format from the head of an input
// (never the file name). Rules are tried in ascending Priority, across all
// registered formats, whatever the order of registration; the first match
// wins. Priorities are unique: see the table in sniff.go.
type SniffRule struct {
	Priority int
	Match    func(h *Head) bool
}

// FormatSpec is what a decoder package registers for one format.
type FormatSpec struct {
	Format Format      // the format's constant (model.go), the name saved bundles use
	Sniff  []SniffRule // how its inputs are recognised
	// Decode is the general reader. Fast, when set, is its fast path, tried
	// first on re-readable files and declining with ErrSlowPath on anything
	// Decode must handle (a differential fuzz test per fast path checks
	// they agree). SelfGuarded marks a fast path whose scanner bounds
	// tokens itself, so the token guard's pass over every byte is skipped.
	Decode      DecodeFunc
	Fast        DecodeFunc
	SelfGuarded bool
	// FastFile, when set, is tried before Fast on an uncompressed regular
	// file larger than its share of the read (the inputs' bytes over the
	// CPUs), read in place in up to chunks parallel parts (the Jaeger
	// reader); it declines with ErrSlowPath, and Fast is tried next. What
	// it returns must be what Fast returns for the file, bit for bit.
	FastFile func(name string, f *os.File, size int64, lim Limits, chunks int) (*Bundle, error)
	// WholeDocument marks a format read as one JSON document, bounded by
	// Limits.MaxDocumentBytes.
	WholeDocument bool
	// DecodeFile replaces Decode for a format read in place (its size is
	// the file's, not what passed through the reader).
	DecodeFile FileDecodeFunc
	// Binary marks a binary format (protobuf): JSON's token guard, which
	// a binary head whose first significant byte happens to be '{' would
	// switch on, is switched off for it.
	Binary bool
	// History marks a format whose events are a history reaching far
	// before the incident (change records, a snapshot of cluster objects
	// whose ReplicaSets date back months): they place changes in time but
	// do not set the data's time range. While the bundle holds anything
	// else with a time, Prepare lets them neither widen the robust time
	// range nor stretch the common grid, and keeps those within the range
	// (the look-back: a day, or the data's own length, around the data;
	// see historyEvents, dropTimeOutliers); its inputs take no part in
	// finding disjoint ones (disjointInputs).
	History bool
}

// ErrSlowPath is what a fast path returns on input it does not handle:
// ReadFile then reads the file again with the format's general reader.
var ErrSlowPath = errors.New("fast path: not applicable")

var (
	registryMu sync.RWMutex
	formats    = map[Format]*FormatSpec{}
	sniffRules []registeredRule // sorted by priority
)

type registeredRule struct {
	SniffRule
	format Format
}

// RegisterFormat makes a format readable: each decoder package calls it
// from its init function (as image/png registers with image), and the
// package ingest/formats imports every decoder package. It panics (a
// programmer error) on a second registration of a format or a sniff
// priority already taken.
func RegisterFormat(spec FormatSpec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := formats[spec.Format]; dup {
		panic(fmt.Sprintf("ingest: format %v registered twice", spec.Format))
	}
	if spec.Decode == nil && spec.DecodeFile == nil && spec.Format != FormatLabel && spec.Format != FormatManifest {
		panic(fmt.Sprintf("ingest: format %v registered without a decoder", spec.Format))
	}
	rules := slices.Clone(sniffRules) // Sniff may be iterating the old slice
	for _, r := range spec.Sniff {
		for _, o := range rules {
			if o.Priority == r.Priority {
				panic(fmt.Sprintf("ingest: sniff priority %d of %v already taken by %v", r.Priority, spec.Format, o.format))
			}
		}
		rules = append(rules, registeredRule{r, spec.Format})
	}
	slices.SortFunc(rules, func(a, b registeredRule) int { return a.Priority - b.Priority })
	sniffRules = rules
	s := spec
	formats[spec.Format] = &s
}

// unregisterFormat undoes RegisterFormat (for tests that register a
// made-up format).
func unregisterFormat(f Format) {
	registryMu.Lock()
	defer registryMu.Unlock()
	delete(formats, f)
	sniffRules = slices.DeleteFunc(slices.Clone(sniffRules), func(r registeredRule) bool { return r.format == f })
}

// spec returns the registration of f, nil when none.
func spec(f Format) *FormatSpec {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return formats[f]
}

// Decoder returns the general reader of a registered format (nil when f is
// not registered): a decoder that finds another format's data inside its
// input (VictoriaLogs lines after a Prometheus response) reads it with this.
func Decoder(f Format) DecodeFunc {
	if s := spec(f); s != nil {
		return s.Decode
	}
	return nil
}

// FileDecoder returns the in-place reader of a registered format read as a
// file (Nsight SQLite), nil when it has none.
func FileDecoder(f Format) FileDecodeFunc {
	if s := spec(f); s != nil {
		return s.DecodeFile
	}
	return nil
}

// Registered returns the formats registered, in Format order.
func Registered() []Format {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Format, 0, len(formats))
	for f := range formats {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

func init() {
	// The two kinds of file that are recognised but never read as data.
	RegisterFormat(FormatSpec{Format: FormatLabel, Sniff: []SniffRule{{Priority: PriorityLabel, Match: func(h *Head) bool {
		return h.JSON() && h.Has("root_cause") && (h.Has("fault") || h.Has("inject_time"))
	}}}})
	RegisterFormat(FormatSpec{Format: FormatManifest, Sniff: []SniffRule{{Priority: PriorityManifest, Match: func(h *Head) bool {
		return h.JSON() && h.Has("pipeline_analyze_manifest")
	}}}})
}

// logFinalizer is Prepare's log step, registered by package ingest/logs
// (the log machinery lives with the log decoders): the templates of all
// inputs merged, the records sorted, linked to spans, their entities
// capped. Set once, from an init function, before any Read.
var logFinalizer func(b *Bundle, opt Options)

// RegisterLogFinalizer sets Prepare's log step; package ingest/logs calls
// it from its init function. It panics (a programmer error) on a second
// registration.
func RegisterLogFinalizer(f func(b *Bundle, opt Options)) {
	if logFinalizer != nil {
		panic("ingest: RegisterLogFinalizer called twice")
	}
	logFinalizer = f
}

// finalizeLogs runs the registered log step on a bundle with log records.
// It panics (a programmer error) when there are records and no step: a
// program that reads logs imports ingest/logs (ingest/formats does).
func finalizeLogs(b *Bundle, opt Options) {
	if len(b.Logs) == 0 && len(b.LogStreams) == 0 {
		return
	}
	if logFinalizer == nil {
		panic("ingest: a bundle with log records, and no log step registered: import ingest/logs (ingest/formats imports it)")
	}
	logFinalizer(b, opt)
}
