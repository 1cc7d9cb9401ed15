package ingest

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// recoverInput turns a panic while reading one input into that input's
// error, so a reader bug met on one hostile file skips that file (with its
// name and the panic's first line in the message) instead of taking the
// other files of the run down with it. Deferred by readFileHashing.
func recoverInput(path string, b **Bundle, err *error) {
	r := recover()
	if r == nil {
		return
	}
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	where := ""
	// The first frame inside this module says where the reader failed.
	for _, line := range strings.Split(string(debug.Stack()), "\n") {
		if strings.Contains(line, "/ingest/") && !strings.Contains(line, "recoverinput.go") && strings.Contains(line, ".go:") {
			where = " at " + strings.TrimSpace(line[strings.LastIndex(line, "/ingest/")+1:])
			if i := strings.Index(where, " +0x"); i > 0 {
				where = where[:i]
			}
			break
		}
	}
	*b = &Bundle{Inputs: []Input{{Path: name}}}
	*err = &InputError{File: name, Offset: -1, Err: fmt.Errorf("internal error reading this input (skipped; please report it): %v%s", r, where)}
}
