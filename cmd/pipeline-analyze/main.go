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
// redacted, control characters escaped, lines cut to maxErrLine.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	red := &redactor{}
	se := newSafeWriter(stderr, red, maxErrLine)
	defer se.Flush()
	if len(args) > 0 {
		switch args[0] {
		case "simulate":
			return runSimulate(args[1:], stdout, se)
		case "eval":
			return runEval(args[1:], stdout, se)
		case "record-gpu":
			return runRecordGPU(args[1:], stdout, se)
		case "compare":
			return runCompare(args[1:], stdin, stdout, se)
		}
	}
	return runAnalyze(args, stdin, stdout, se, newSafeWriter(stderr, red, 0), red)
}
