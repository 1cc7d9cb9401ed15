package driver

import (
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// Run is the whole command: cmd/pipeline-analyze's main is a thin shell
// over it, so tests can call it. Everything it writes to stderr goes through
// a cliio.SafeWriter: secrets redacted, control characters escaped, lines
// cut to cliio.MaxErrLine. Only the live progress line goes to a terminal
// stderr directly (it holds nothing but numbers the command formats).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	red := &cliio.Redactor{}
	se := cliio.NewSafeWriter(stderr, red, cliio.MaxErrLine)
	defer se.Flush()
	env := cmdEnv{stdin: stdin, stdout: stdout, stderr: se, explain: cliio.NewSafeWriter(stderr, red, 0), red: red}
	if cliio.IsTerminal(stderr) {
		env.tty = stderr
	}
	return dispatch(args, env)
}

// CleanupOnSignal makes SIGINT and SIGTERM remove the run's registered
// temporary paths and exit with 128+signal (130, 143). The returned
// function stops listening. main calls it around Run
// (cliio.CleanupOnSignal).
func CleanupOnSignal() (stop func()) { return cliio.CleanupOnSignal() }
