// Package cmdrun is each command's work below its flags (the kubectl
// Options/Run pattern): the settings as typed values (AnalyzeOptions,
// CompareOptions, EvalOptions, Live, Output, with analysis.Settings),
// their checks, the run over package analysis (or eval) and the report. Package driver binds the flags
// to these values and maps the results to exit statuses; package mcp fills
// the same values from a tool's arguments and calls the same runs, so that
// a tool answers from the *analysis.Run (or report) the command line would
// have rendered.
//
// A failure is an *Error: the lines the command writes on stderr and its
// exit status. The command writes them (Exit); the MCP server turns them
// into a tool's one-line error (ToolText) exactly as it read the
// command's stderr before: redacted, escaped and cut to cliio.MaxErrLine
// characters, program prefixes and help hints dropped. Nothing here parses
// argv or reads back output the process rendered.
package cmdrun
