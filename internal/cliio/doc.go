// Package cliio is the command line's input/output plumbing, shared by
// every command of package driver: what the process writes to stderr
// (safeout.go: a SafeWriter that redacts the flags' secrets (Redactor),
// escapes control characters (EscapeText) and cuts long lines; OneLine and
// SayErr for one-line messages), the files it writes (files.go:
// WriteFileAtomic; CheckOutputs and CheckOutputDir refuse an output that is
// an input or has no directory; IsTerminal), the temporary paths a signal
// must remove (cleanup.go: TrackTemp, CleanupOnSignal) and how byte counts
// are said (BinaryBytes).
//
// It holds the module's only global state beyond test switches: the
// registry of temporary paths, which the signal handler must reach. It
// imports ingest (to expand the input paths an output is checked against)
// and live (the forms of a secret the Redactor replaces), and nothing
// above them.
package cliio
