package driver

import "io"

// Run is the whole command: cmd/pipeline-analyze's main is a thin shell
// over it, so tests can call it. Everything it writes to stderr goes through
// a safeWriter: secrets redacted, control characters escaped, lines cut to
// maxErrLine. Only the live progress line goes to a terminal stderr directly
// (it holds nothing but numbers the command formats).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	red := &redactor{}
	se := newSafeWriter(stderr, red, maxErrLine)
	defer se.Flush()
	env := cmdEnv{stdin: stdin, stdout: stdout, stderr: se, explain: newSafeWriter(stderr, red, 0), red: red}
	if isTerminal(stderr) {
		env.tty = stderr
	}
	return dispatch(args, env)
}
