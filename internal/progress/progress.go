// Package progress is the command's progress on stderr (Reporter): the
// lines of each stage, the per-file lines and phase timings of -v, and on
// a terminal the live line of a long read (Reading: inputs, bytes, spans,
// rates, ETA), erased when the read ends.
//
// It writes through the writer it is given (the command's safe stderr,
// cliio.SafeWriter); only the live line, which holds nothing but numbers
// it formats itself, goes to the terminal directly.
package progress

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// Reporter is the command's progress on stderr. With -q it says nothing;
// by default one line per stage (what was read, what was analysed, what was
// written); with -v also every input file and each phase's time. On a
// terminal, reading inputs that take more than a second shows a live line
// (bytes and spans per second, ETA) that is erased when reading ends.
// Safe for concurrent use; set the exported fields before the first call.
type Reporter struct {
	Out      io.Writer // the safe (escaping) stderr
	Terminal io.Writer // the terminal itself, for the live line only (nil: none)
	Quiet    bool      // -q: say nothing
	Verbose  bool      // -v: also Detail's lines and the phase timings

	mu        sync.Mutex
	liveShown bool
	phases    []string
}

// Say writes a progress line (not with -q).
func (r *Reporter) Say(format string, args ...any) {
	if r.Quiet {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLive()
	fmt.Fprintln(r.Out, cliio.OneLine(fmt.Sprintf(format, args...)))
}

// Detail writes a line only with -v.
func (r *Reporter) Detail(format string, args ...any) {
	if r.Verbose && !r.Quiet {
		r.Say(format, args...)
	}
}

// Phase records how long a phase took (printed with -v by PrintPhases).
func (r *Reporter) Phase(name string, since time.Time) {
	r.mu.Lock()
	r.phases = append(r.phases, fmt.Sprintf("%s %s", name, time.Since(since).Round(time.Millisecond)))
	r.mu.Unlock()
}

// PrintPhases writes the phase timings (with -v).
func (r *Reporter) PrintPhases() {
	r.mu.Lock()
	p := strings.Join(r.phases, ", ")
	r.mu.Unlock()
	if p != "" {
		r.Detail("phases: %s", p)
	}
}

// clearLive erases the live line; r.mu is held.
func (r *Reporter) clearLive() {
	if r.liveShown {
		io.WriteString(r.Terminal, "\r\x1b[K")
		r.liveShown = false
	}
}

// showLive replaces the live line with s (only ASCII and numbers the
// command formats itself: it bypasses the escaping writer).
func (r *Reporter) showLive(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	io.WriteString(r.Terminal, "\r"+s+"\x1b[K")
	r.liveShown = true
}

// Reading follows one ingest.Read: files and spans done (from
// ingest's per-file progress calls) and bytes read (from the process's
// read counter, where the OS has one).
type Reading struct {
	r          *Reporter
	files      int
	totalBytes int64
	start      time.Time

	mu        sync.Mutex
	done      int
	spans     int
	skipped   int
	startRead int64
	stop      chan struct{}
	stopped   chan struct{}
}

// StartRead begins following a read of files (their sizes summed for the
// ETA). The live line starts after a second, on a terminal only; End
// stops it.
func (r *Reporter) StartRead(files []string) *Reading {
	p := &Reading{r: r, files: len(files), start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			p.totalBytes += st.Size()
		}
	}
	p.startRead, _ = processReadBytes()
	if r.Terminal == nil || r.Quiet {
		close(p.stopped)
		return p
	}
	go p.loop()
	return p
}

// File is ingest.Options.Progress: one call per file read or skipped.
// It counts them (and the spans of a file read, its third argument), and
// passes the line on with -v.
func (p *Reading) File(format string, args ...any) {
	p.mu.Lock()
	p.done++
	if strings.HasPrefix(format, "skip ") {
		p.skipped++
	} else if strings.Contains(format, "spans") && len(args) >= 3 {
		if n, ok := args[2].(int); ok {
			p.spans += n
		}
	}
	p.mu.Unlock()
	p.r.Detail(format, args...)
}

func (p *Reading) loop() {
	defer close(p.stopped)
	delay := time.NewTimer(time.Second)
	defer delay.Stop()
	select {
	case <-p.stop:
		return
	case <-delay.C:
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		p.r.showLive(p.line())
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// line is "reading 3/12 inputs · 412 MiB of 1.1 GiB · 180 MiB/s · 2100000
// spans (950000/s) · ETA 4s".
func (p *Reading) line() string {
	p.mu.Lock()
	done, spans := p.done, p.spans
	p.mu.Unlock()
	el := time.Since(p.start).Seconds()
	parts := []string{fmt.Sprintf("reading %d/%d inputs", done, p.files)}
	if n, ok := processReadBytes(); ok && p.totalBytes > 0 {
		read := min(max(n-p.startRead, 0), p.totalBytes)
		rate := float64(read) / el
		parts = append(parts, fmt.Sprintf("%s of %s", cliio.BinaryBytes(read), cliio.BinaryBytes(p.totalBytes)), cliio.BinaryBytes(int64(rate))+"/s")
		if spans > 0 {
			parts = append(parts, fmt.Sprintf("%d spans (%.0f/s)", spans, float64(spans)/el))
		}
		if rate > 0 && read < p.totalBytes {
			parts = append(parts, "ETA "+time.Duration(float64(p.totalBytes-read)/rate*float64(time.Second)).Round(time.Second).String())
		}
	} else if spans > 0 {
		parts = append(parts, fmt.Sprintf("%d spans (%.0f/s)", spans, float64(spans)/el))
	}
	parts = append(parts, time.Duration(el*float64(time.Second)).Round(time.Second).String())
	return strings.Join(parts, " · ")
}

// End stops the live line and erases it.
func (p *Reading) End() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.stopped
	p.r.mu.Lock()
	p.r.clearLive()
	p.r.mu.Unlock()
}

// processReadBytes is the bytes this process has read so far (Linux
// /proc/self/io rchar: every read, file or pipe, compressed bytes as they
// are on disk); ok is false elsewhere.
func processReadBytes() (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
