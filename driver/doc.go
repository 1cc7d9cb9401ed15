// Package driver is the whole pipeline-analyze command behind
// cmd/pipeline-analyze's main (pprof's internal/driver): the flags, and
// their wiring to each command's run (internal/cmdrun).
//
// # What it owns, what it must not do
//
// It owns the command line (commands.go: the subcommands and their help;
// flags.go: flags generated from the fields of the configuration structs
// analysis.Settings, cmdrun.Output and cmdrun.Live, each default written
// once) and, per command, the flag wiring: parse the flags into the
// command's options (internal/cmdrun: AnalyzeOptions, CompareOptions,
// EvalOptions), call its run there (cmdrun.AnalyzeRun, CompareCall,
// ProfileReport, Eval), render, and map the result to an exit status
// (cmdrun.Exit writes a failure's lines). The mcp command (mcp.go) is the
// server's flags over mcp.NewServer and mcp.CommandRunner, which calls the
// same runs with the tools' arguments; simulate's flags are over package
// simulate and record-gpu's over gpurecord.RecordFile. What the process writes
// (redacted, escaped stderr; atomic outputs; temporary files removed on a
// signal) is package internal/cliio's, its progress on stderr package
// internal/progress's, and how flags are printed in the help and
// completed by the shells package internal/clihelp's.
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
// runAnalyze parses the flags, checks the outputs and calls
// cmdrun.AnalyzeRun: it makes one work directory (removed at exit and on
// SIGINT/SIGTERM), opens the source (cmdrun.NewSource:
// analysis.LocalSource restores a saved bundle's manifest;
// analysis.LiveSource fetches), then calls analysis.Analyze (read, or the
// embedded demo; the context checks; tcg.Build, causal.Analyze,
// evidence.Collect, scorecard.Build) and reports (scorecard.Render to
// stdout or --export). A step that fails returns a cmdrun.Error — what the
// command says on stderr and its exit status (an analysis.ErrUsage error
// exits 2).
package driver
