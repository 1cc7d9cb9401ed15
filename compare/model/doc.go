// Package model is the one presentation model of package compare: the
// [Report] that both of compare's modes fill — before/after (package
// compare's Run: two windows) and canary (package compare/canary's Run:
// two groups of pods in one window) — and that every renderer reads.
//
// It holds the types and their vocabulary only: the Report and what it
// holds (items, their statistics, bands and tests, findings, the watch
// list, plots, the heatmap, footnotes, inputs, the manifest), the Canary
// part of a canary report, the verdicts, item kinds and modes, the gate's
// exit statuses and the JSON encoding (docs/compare.schema.json). It
// computes nothing beyond small helpers on those types, so that the modes
// and the renderers can import it without importing each other.
//
// Files: model.go (the Report and before/after mode's parts), canary.go
// (the Canary part of a canary report), json.go (the JSON encoding).
package model
