// Package simulate is the simulate command's work over the incident
// simulator (package fixtures): the fault catalog as a table, the seeds of
// --seeds, a whole catalog written with its progress, and what one written
// case says on stdout. The command (driver) parses the flags and calls it;
// fixtures stays test and demo data that imports nothing of the module.
package simulate

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// ParseSeeds parses a comma-separated list of seeds ("101,102"); empty
// items are skipped, and no seed at all is an error.
func ParseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad seed %q: %w", f, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("no seeds")
	}
	return out, nil
}

// WriteCatalog writes every fault × every seed into dir/<fault>-s<seed>
// (fixtures.WriteCatalog), one progress line per case on progress
// ("[3/13] ...") and a last one with the count and the time taken.
func WriteCatalog(dir string, seeds []uint64, progress io.Writer) error {
	start := time.Now()
	n := 0
	err := fixtures.WriteCatalog(dir, seeds, func(msg string) {
		n++
		fmt.Fprintf(progress, "[%d/%d] %s\n", n, len(seeds)*len(fixtures.Faults()), msg)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "wrote %d incidents to %s in %s\n", n, dir, time.Since(start).Round(time.Millisecond))
	return nil
}

// WriteSummary says what fixtures.Write wrote to dir: the fault, when it
// was injected, the root cause, the distractor and when the alert fired
// (a fixed case: the fault never injected).
func WriteSummary(w io.Writer, dir string, l fixtures.Label) {
	alert := l.AlertTime
	if alert == "" {
		alert = "never (SLO not breached)"
	}
	if l.Fixed {
		fmt.Fprintf(w, "wrote %s\nfault:      %s, fixed (never injected)\nalert:      %s\n", dir, l.Fault, alert)
		return
	}
	fmt.Fprintf(w, "wrote %s\nfault:      %s (injected %s)\nroot cause: %s / %s (%s)\ndistractor: %s / %s (%s)\nalert:      %s\n",
		dir, l.Fault, l.InjectTime, l.RootCause.Service, l.RootCause.Component, l.RootCause.Signal,
		l.Distractor.Service, l.Distractor.Component, l.Distractor.Signal, alert)
}

// PrintFaults writes the fault catalog within width columns: the name and
// signal, and the description wrapped under them. It returns the first
// write error.
func PrintFaults(w io.Writer, width int) error {
	faults := fixtures.Faults()
	nw, sw := len("FAULT"), len("SIGNAL")
	for _, f := range faults {
		nw, sw = max(nw, len(f.Name)), max(sw, len(f.Signal))
	}
	indent := nw + sw + 4
	ew := reportfmt.NewErrWriter(w)
	fmt.Fprintf(ew, "%-*s  %-*s  %s\n", nw, "FAULT", sw, "SIGNAL", "DESCRIPTION")
	for _, f := range faults {
		for i, l := range clihelp.WrapWords(f.Description, max(width-indent, 30)) {
			if i == 0 {
				fmt.Fprintf(ew, "%-*s  %-*s  %s\n", nw, f.Name, sw, f.Signal, l)
			} else {
				fmt.Fprintf(ew, "%s%s\n", strings.Repeat(" ", indent), l)
			}
		}
	}
	return ew.Err()
}
