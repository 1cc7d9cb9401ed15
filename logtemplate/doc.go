// Package logtemplate mines log templates: it turns log lines into the
// log statements that printed them, so that "Order 8812 created in 12ms"
// and "Order 8813 created in 9ms" count as one template "Order <NUM>
// created in <DUR>".
//
// It owns masking and template mining only; it knows no file format, no
// bundle and no severity (the log decoders in package ingest use it).
//
// It implements Drain (Pinjia He, Jieming Zhu, Zibin Zheng and Michael R.
// Lyu, "Drain: An Online Log Parsing Approach with Fixed Depth Tree",
// ICWS 2017) with Drain3's masking step: Mask replaces the values that
// vary between executions of one statement (numbers, durations, hex, UUIDs,
// IP addresses, timestamps, quoted strings, path segments with IDs, long
// IDs) by placeholders, and Miner clusters the masked lines with a
// fixed-depth parse tree (see Miner for the algorithm and Params for every
// parameter).
//
// A well-kept Go implementation was looked for first: the Go ports of
// Drain3 that exist (e.g. github.com/faceair/drain) have no masking, no
// tests, allocate per token and line, and are unmaintained, so this is a
// small, tested implementation instead.
//
// The miner is streaming (one pass, O(tokens × templates in one leaf) per
// line, with an exact-match cache of line hashes in front) and bounded
// (MaxTemplates, MaxLeafTemplates, MaxTokens, MaxTokenBytes, CacheSize, and
// a Budget shared by several miners); Stats says what the bounds cut. It is deterministic: the same lines in the same
// order give the same templates with the same IDs. Merging the templates of
// several miners deterministically is AddMasked of their patterns, sorted,
// into a fresh miner (the ingest package does this across files).
package logtemplate
