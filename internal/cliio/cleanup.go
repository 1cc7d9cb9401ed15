package cliio

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Temporary paths of a run (the per-run work directory with the demo, a
// live fetch and copies of compressed SQLite exports; the temporary file
// beside an export; a --save-bundle directory being written) are registered
// here, so that SIGINT or SIGTERM removes them before the process exits
// instead of leaving gigabytes behind. This is the command's only global
// state: signals are process-wide.
var temps = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// TrackTemp registers path for removal on a signal; the returned function
// unregisters it (call it once the path is removed or renamed into place).
func TrackTemp(path string) (untrack func()) {
	temps.Lock()
	temps.paths[path] = true
	temps.Unlock()
	return func() {
		temps.Lock()
		delete(temps.paths, path)
		temps.Unlock()
	}
}

// removeTemps removes every registered path.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for p := range temps.paths {
		os.RemoveAll(p)
		delete(temps.paths, p)
	}
}

// CleanupOnSignal makes SIGINT and SIGTERM remove the registered temporary
// paths and exit with 128+signal (130, 143). The returned function stops
// listening. main calls it around Run.
func CleanupOnSignal() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			removeTemps()
			code := 130
			if sig == syscall.SIGTERM {
				code = 143
			}
			os.Stderr.WriteString("pipeline-analyze: interrupted; temporary files removed\n")
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
