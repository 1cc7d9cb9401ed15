package driver

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// TestFIFOWaitIsSaid runs the real binary on a FIFO whose writer comes
// late: the line "waiting up to 20s for a writer on FILE (--stall-timeout)"
// is on stderr at once, before the writer opens the FIFO, and the
// incident then written into it is analysed (exit 0). With -q the wait is
// not said (-q: no progress on stderr; a FIFO nobody writes to is still
// its one error line, TestHostileFiles).
func TestFIFOWaitIsSaid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	bin := realBinary(t)
	dir := t.TempDir()
	inc := filepath.Join(dir, "incident")
	if _, err := fixtures.Write(inc, smallSpec); err != nil {
		t.Fatal(err)
	}
	traces, _ := filepath.Glob(filepath.Join(inc, "traces*"))
	if len(traces) == 0 {
		t.Fatal("the fixture wrote no traces file")
	}
	data, err := os.ReadFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "traces.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(bin, "-o", "json", "--stall-timeout", "20s", fifo)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	start := time.Now()
	want := "waiting up to 20s for a writer on " + fifo + " (--stall-timeout)"
	var got []string
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break wait
			}
			got = append(got, l)
			if l == want {
				break wait
			}
		case <-time.After(10 * time.Second):
			break wait
		}
	}
	if len(got) == 0 || got[len(got)-1] != want {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no %q on stderr before the writer came (after %v): %q", want, time.Since(start).Round(time.Millisecond), got)
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	for l := range lines {
		got = append(got, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after the writer: %v; stderr %q", err, got)
	}
	if n := strings.Count(strings.Join(got, "\n"), "waiting up to"); n != 1 {
		t.Errorf("the wait said %d times: %q", n, got)
	}
}
