// Package model is the data model every stage reads: the *Bundle one
// incident is read into, and what it holds — spans with their IDs and
// interned names (Sym, Interner), series with their labels, signal kind
// and entity, events, alerts, dependencies, log records with their streams
// and templates, processes and placements, inputs and data-quality
// warnings (the sentinel Err* kinds) — on one clock, Time (nanoseconds
// since the epoch, saturating arithmetic), with one entity model (Entity,
// WorkloadOf, NormalizeHost, MatchService). derived.go names the series the
// features stage derives, the vocabulary of every later stage.
//
// # What it owns, what it must not do
//
// The types and what a bundle can say of itself: Merge, Warn,
// RelabelSources, Validate (its invariants), CountInto (an input's
// counts), LogSpans (which span each log record belongs to),
// KnownServices and CollectEntities (the entity list, ingest.Align's
// last step). It reads nothing, imports nothing of the module, and knows no
// format, limit or stage: reading is package ingest (the core), whose
// every exported name of this package is an alias (ingest.Bundle is
// model.Bundle), so that code may spell either.
//
// Interning is process-wide (sym.go): a Sym is a 4-byte handle, equal
// exactly when the strings are, never ordered (sort by String).
package model
