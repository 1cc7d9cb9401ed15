// Command pipeline-analyze finds the root cause of an incident in an
// LLM-serving or microservice system from its traces, metrics, GPU data,
// change events and alert.
//
// main is flag wiring only, like pprof's main calling driver.PProf: the
// flags, the configuration and every command live in package driver.
package main

import (
	"os"

	"github.com/pipeline-analyze/pipeline-analyze/driver"
)

func main() {
	stop := driver.CleanupOnSignal()
	code := driver.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
