// Command pipeline-analyze finds the root cause of an incident in an
// LLM-serving or microservice system from its traces, metrics, GPU data,
// change events and alert.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command; main is a thin shell so tests can call it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "simulate":
			return runSimulate(args[1:], stdout, stderr)
		case "eval":
			return runEval(args[1:], stdout, stderr)
		case "record-gpu":
			return runRecordGPU(args[1:], stdout, stderr)
		case "compare":
			return runCompare(args[1:], stdin, stdout, stderr)
		}
	}
	return runAnalyze(args, stdin, stdout, stderr)
}
