// Command pipeline-analyze finds the root cause of an incident in an
// LLM-serving or microservice system from its traces, metrics, GPU data,
// change events and alert.
package main

import (
	"io"
	"os"
)

func main() {
	stop := cleanupOnSignal()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command; main is a thin shell so tests can call it.
// Everything it writes to stderr goes through a safeWriter: secrets
// redacted, control characters escaped, lines cut to maxErrLine. Only the
// live progress line goes to a terminal stderr directly (it holds nothing
// but numbers the command formats).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	red := &redactor{}
	se := newSafeWriter(stderr, red, maxErrLine)
	defer se.Flush()
	env := cmdEnv{stdin: stdin, stdout: stdout, stderr: se, explain: newSafeWriter(stderr, red, 0), red: red}
	if isTerminal(stderr) {
		env.tty = stderr
	}
	return dispatch(args, env)
}
