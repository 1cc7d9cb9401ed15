package model

// Helpers shared by the trace readers (jaeger.go, otlp.go): string
// interning, span/trace ID parsing and
// Jaeger tag coercion.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxInterned bounds the Interner's table: past it, new strings are returned
// as they are (still truncated) instead of being remembered, so a file whose
// operation names embed IDs cannot make the table grow without bound.
const maxInterned = 1 << 20

// Interner deduplicates the strings spans repeat (service, operation, pod,
// node, GPU) so that millions of spans share one copy of each, and enforces
// Limits.MaxStringBytes on them. It is not safe for concurrent use: each
// decoded input gets its own. Lookups are O(len(s)).
type Interner struct {
	m         map[string]string
	syms      map[string]Sym // sym's cache in front of the process-wide table
	max       int            // longest string kept in bytes; <= 0 means unlimited
	Truncated int            // strings cut to max (each occurrence counted)
}

// NewInterner returns an empty Interner that truncates strings longer than
// max bytes (max <= 0: never).
func NewInterner(max int) *Interner {
	return &Interner{m: make(map[string]string, 256), syms: make(map[string]Sym, 256), max: max}
}

// Sym returns the Sym of s, truncated to the limit like get. Each distinct
// string takes the process-wide table's lock once per Interner.
func (in *Interner) Sym(s string) Sym {
	v, s, ok := cached(in, in.syms, s)
	if ok {
		return v
	}
	v = Intern(s)
	if len(in.syms) < maxInterned {
		in.syms[v.String()] = v // the table's copy: s may be a view of a buffer
	}
	return v
}

// Get returns the canonical copy of s, truncated to the limit at a rune
// boundary. The returned string never aliases a decoder buffer.
func (in *Interner) Get(s string) string {
	v, s, ok := cached(in, in.m, s)
	if ok {
		return v
	}
	s = strings.Clone(s)
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// cached looks s up in one of in's caches, then its cut to the limit
// (each cut counted), so get and sym truncate alike. "" is found as the
// zero V. On a miss, key is s as cut: what the caller interns and stores.
func cached[V any](in *Interner, m map[string]V, s string) (v V, key string, ok bool) {
	if s == "" {
		return v, s, true
	}
	if v, ok = m[s]; ok {
		return v, s, true
	}
	if in.max > 0 && len(s) > in.max {
		in.Truncated++
		s = TruncateUTF8(s, in.max)
		if v, ok = m[s]; ok {
			return v, s, true
		}
	}
	return v, s, false
}

// TruncateUTF8 cuts s to at most n bytes without splitting a rune.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// parseHex64 parses 1 to 16 hex digits; ok is false for anything else
// (the callers then take strconv's path for the error message).
func parseHex64(s string) (v uint64, ok bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		d := HexVal[s[i]]
		if d < 0 {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// HexVal maps a byte to its hex digit value, or -1.
var HexVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c - 'a' + 10)
		t[c-'a'+'A'] = int8(c - 'a' + 10)
	}
	return t
}()

// ParseTraceID parses a hex trace ID of 1 to 32 digits (Jaeger writes 16 or
// 32); IDs of up to 16 digits fill Low only.
func ParseTraceID(s string) (TraceID, error) {
	if len(s) > 16 && len(s) <= 32 {
		hi, ok1 := parseHex64(s[:len(s)-16])
		lo, ok2 := parseHex64(s[len(s)-16:])
		if ok1 && ok2 {
			return TraceID{High: hi, Low: lo}, nil
		}
	} else if lo, ok := parseHex64(s); ok {
		return TraceID{Low: lo}, nil
	}
	if s == "" || len(s) > 32 {
		return TraceID{}, fmt.Errorf("bad trace ID %q: want 1 to 32 hex digits", TruncateUTF8(s, 40))
	}
	var id TraceID
	var err error
	if len(s) > 16 {
		if id.High, err = strconv.ParseUint(s[:len(s)-16], 16, 64); err != nil {
			return TraceID{}, fmt.Errorf("bad trace ID %q: not hex", s)
		}
		s = s[len(s)-16:]
	}
	if id.Low, err = strconv.ParseUint(s, 16, 64); err != nil {
		return TraceID{}, fmt.Errorf("bad trace ID %q: not hex", s)
	}
	return id, nil
}

// ParseSpanID parses a hex span ID of 1 to 16 digits.
func ParseSpanID(s string) (SpanID, error) {
	if v, ok := parseHex64(s); ok {
		return SpanID(v), nil
	}
	if s == "" || len(s) > 16 {
		return 0, fmt.Errorf("bad span ID %q: want 1 to 16 hex digits", TruncateUTF8(s, 40))
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad span ID %q: not hex", s)
	}
	return SpanID(v), nil
}

// --- tag coercion ----------------------------------------------------------

// ParseSpanKind maps span.kind tag values (and OTLP names) to a SpanKind.
func ParseSpanKind(s string) SpanKind {
	switch strings.TrimPrefix(strings.ToLower(s), "span_kind_") {
	case "server":
		return SpanServer
	case "client":
		return SpanClient
	case "producer":
		return SpanProducer
	case "consumer":
		return SpanConsumer
	case "internal":
		return SpanInternal
	}
	return SpanUnspecified
}
