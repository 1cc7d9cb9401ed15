package driver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// reporter is the command's progress on stderr. With -q it says nothing;
// by default one line per stage (what was read, what was analysed, what was
// written); with -v also every input file and each phase's time. On a
// terminal, reading inputs that take more than a second shows a live line
// (bytes and spans per second, ETA) that is erased when reading ends.
type reporter struct {
	w       io.Writer // the safe (escaping) stderr
	raw     io.Writer // the terminal itself, for the live line only (nil: none)
	quiet   bool
	verbose bool

	mu        sync.Mutex
	liveShown bool
	phases    []string
}

// say writes a progress line (not with -q).
func (r *reporter) say(format string, args ...any) {
	if r.quiet {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLive()
	fmt.Fprintln(r.w, cliio.OneLine(fmt.Sprintf(format, args...)))
}

// detail writes a line only with -v.
func (r *reporter) detail(format string, args ...any) {
	if r.verbose && !r.quiet {
		r.say(format, args...)
	}
}

// phase records how long a phase took (printed with -v by phases).
func (r *reporter) phase(name string, since time.Time) {
	r.mu.Lock()
	r.phases = append(r.phases, fmt.Sprintf("%s %s", name, time.Since(since).Round(time.Millisecond)))
	r.mu.Unlock()
}

// printPhases writes the phase timings (with -v).
func (r *reporter) printPhases() {
	r.mu.Lock()
	p := strings.Join(r.phases, ", ")
	r.mu.Unlock()
	if p != "" {
		r.detail("phases: %s", p)
	}
}

// clearLive erases the live line; r.mu is held.
func (r *reporter) clearLive() {
	if r.liveShown {
		io.WriteString(r.raw, "\r\x1b[K")
		r.liveShown = false
	}
}

// showLive replaces the live line with s (only ASCII and numbers the
// command formats itself: it bypasses the escaping writer).
func (r *reporter) showLive(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	io.WriteString(r.raw, "\r"+s+"\x1b[K")
	r.liveShown = true
}

// readProgress follows one ingest.Read: files and spans done (from
// ingest's per-file progress calls) and bytes read (from the process's
// read counter, where the OS has one).
type readProgress struct {
	r          *reporter
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

// startRead begins following a read of files (their sizes summed for the
// ETA). The live line starts after a second, on a terminal only.
func (r *reporter) startRead(files []string) *readProgress {
	p := &readProgress{r: r, files: len(files), start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			p.totalBytes += st.Size()
		}
	}
	p.startRead, _ = processReadBytes()
	if r.raw == nil || r.quiet {
		close(p.stopped)
		return p
	}
	go p.loop()
	return p
}

// callback is ingest.Options.Progress: one call per file read or skipped.
// It counts them (and the spans of a file read, its third argument), and
// passes the line on with -v.
func (p *readProgress) callback(format string, args ...any) {
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
	p.r.detail(format, args...)
}

func (p *readProgress) loop() {
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
func (p *readProgress) line() string {
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

// end stops the live line and erases it.
func (p *readProgress) end() {
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

// readSummary is the one line saying what was read: "read 14 inputs in
// 0.4s (prometheus-query-range 9, jaeger-json 1, ...): 4210 spans, 312
// series, 0 log records, 2026-… → 2026-… (14m0s); 1 skipped".
func readSummary(b *ingest.Bundle, took time.Duration) string {
	n := map[string]int{}
	read, skipped := 0, 0
	for _, in := range b.Inputs {
		if in.Skipped {
			skipped++
			continue
		}
		read++
		n[in.Format.String()]++
	}
	formats := make([]string, 0, len(n))
	for f := range n {
		formats = append(formats, f)
	}
	sort.Slice(formats, func(i, j int) bool {
		if n[formats[i]] != n[formats[j]] {
			return n[formats[i]] > n[formats[j]]
		}
		return formats[i] < formats[j]
	})
	for i, f := range formats {
		formats[i] = fmt.Sprintf("%s %d", f, n[f])
	}
	s := fmt.Sprintf("read %s in %s (%s): %d spans, %d series, %d log records", plural(read, "input"), took.Round(10*time.Millisecond),
		strings.Join(formats, ", "), len(b.Spans), len(b.Series), len(b.Logs))
	if b.End != 0 {
		s += ", " + analysis.DataRange(b)
	}
	if skipped > 0 {
		s += fmt.Sprintf("; %d skipped (see the report's inputs; -v names them)", skipped)
	}
	return s
}

// plural is "1 input", "3 inputs".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
