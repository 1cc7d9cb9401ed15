package ingest

import "github.com/pipeline-analyze/pipeline-analyze/internal/hugepage"

// MakeSpans returns make([]Span, n, capacity), its memory advised for huge
// pages when it is large (internal/hugepage): a reader's span array of a
// big file then faults in 2 MiB at a time instead of 4 KiB. Decoders call
// it (and GrowSpans) rather than import internal/hugepage: they import
// only the core.
func MakeSpans(n, capacity int) []Span { return hugepage.Make[Span](n, capacity) }

// GrowSpans is slices.Grow for span arrays: when it must reallocate, the
// new array is made with MakeSpans (advised, and not cleared beyond
// len(s) at once).
func GrowSpans(s []Span, add int) []Span { return hugepage.Grow(s, add) }
