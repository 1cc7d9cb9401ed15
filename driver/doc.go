// Package driver is the whole pipeline-analyze command behind
// cmd/pipeline-analyze's main (pprof's internal/driver): the flags, one
// configuration per command, and the orchestration of the stages.
//
// # What it owns, what it must not do
//
// It owns the command line (commands.go: the subcommands and their help;
// flags.go: flags generated from the fields of the configuration structs
// analysis.Settings, outputFlags and liveFlags, each default written once),
// turning flags into each stage's Options (analysis.Settings.Stages), the
// sources of an analysis (source.go: analysis.LocalSource, or
// analysis.LiveSource built from the live flags), the call of the
// analysis (analyze.go: the flags → analysis.Config → analysis.Analyze, the
// card rendered), the mcp command (mcp.go: the server's flags, and the
// Runner of package mcp: the commands' code paths with Go values), the
// eval command's flags over package eval, compare's over analysis.Compare,
// Canary and Profile, simulate's over package simulate and record-gpu's
// over gpurecord.RecordFile. What the process writes (redacted, escaped
// stderr; atomic outputs; temporary files removed on a signal) is package
// internal/cliio's, its progress on stderr package internal/progress's,
// and how flags are printed in the help and completed by the shells
// package internal/clihelp's.
//
// It must not analyse: no anomaly rule, no score, no report wording lives
// here; those belong to tcg, causal and scorecard, and the pipeline and
// the checks of what the user typed against the data to package analysis.
// It reports, and maps each result to an exit status (the gates are the
// reports' own: scorecard.GateTripped, compare.FailOn, profdiff.FailOn).
// It is the only package that reads the environment; the wall clock is
// read for timings and for a live fetch's "now" (analysis.FetchLive).
//
// # One run of the analysis
//
// runAnalyze parses the flags, checks the outputs, makes one work
// directory (removed at exit and on SIGINT/SIGTERM), opens the source
// (newSource: analysis.LocalSource restores a saved bundle's manifest;
// analysis.LiveSource fetches), then calls analysis.Analyze (read, or the
// embedded demo; the context checks; tcg.Build, causal.Analyze,
// evidence.Collect, scorecard.Build) and reports (scorecard.Render to stdout or --export).
// Each step that fails has already said why and carries the exit status
// (an analysis.ErrUsage error exits 2).
package driver
