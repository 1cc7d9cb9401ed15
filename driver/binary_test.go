package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hostile-input suites run the real binary in a subprocess: memory is
// the peak RSS the kernel reports for it (rusage Maxrss), time its wall
// clock, and a panic is a panic of the program, not of a test. The binary
// is built once per test process, without -race (the race detector's
// memory overhead would hide what is measured).

// Bounds every run of a hostile suite must stay within.
const (
	maxRunRSS  = 1 << 30 // bytes
	maxRunWall = 60 * time.Second
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// realBinary returns the path of the command built from this package; it
// skips the test when no go toolchain is available, and under -race: the
// binary measured is never race-built, so the detector would only slow down
// the test process's generators and servers (tens of minutes on two cores);
// .ci/run runs these suites in a step of their own, without -race.
func realBinary(t *testing.T) string {
	t.Helper()
	if raceEnabled {
		t.Skip("the real-binary suites run without -race (see .ci/run)")
	}
	binOnce.Do(func() {
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(gobin); err != nil {
			if gobin, err = exec.LookPath("go"); err != nil {
				binErr = errors.New("no go toolchain to build the binary")
				return
			}
		}
		dir, err := os.MkdirTemp("", "pipeline-analyze-bin-*")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "pipeline-analyze")
		cmd := exec.Command(gobin, "build", "-o", binPath, "../cmd/pipeline-analyze")
		cmd.Env = append(os.Environ(), "CGO_CFLAGS="+os.Getenv("CGO_CFLAGS")+" -Wno-deprecated-declarations")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		if errors.Is(binErr, exec.ErrNotFound) || binErr.Error() == "no go toolchain to build the binary" {
			t.Skip(binErr)
		}
		t.Fatal(binErr)
	}
	return binPath
}

// binResult is one subprocess run.
type binResult struct {
	code           int
	stdout, stderr string
	wall           time.Duration
	rss            int64 // peak resident set, bytes
	tmp            string
}

// Peak RSS of a child is what the kernel's wait4 rusage says (Maxrss), but
// a child inherits the high-water mark of the process it was forked from:
// Go forks with CLONE_VM, and exec records the old (the parent's) peak. The
// test process itself can be hundreds of MiB, so runBinary does not start
// the binary itself: it starts this test binary again as a small helper
// (maybeMeasureHelper), which starts the real binary, waits for it and
// reports its rusage. The helper's own peak (tens of MiB) is then the floor
// of the figure.

const (
	helperEnv    = "PIPELINE_ANALYZE_MEASURE_HELPER" // the binary to run
	helperOutEnv = "PIPELINE_ANALYZE_MEASURE_OUT"    // where the helper writes Maxrss (bytes)
)

// maybeMeasureHelper runs as the helper when the environment says so, and
// exits with the real binary's exit status (or 125 when it cannot start it).
func maybeMeasureHelper() {
	bin := os.Getenv(helperEnv)
	if bin == "" {
		return
	}
	out := os.Getenv(helperOutEnv)
	os.Unsetenv(helperEnv)
	os.Unsetenv(helperOutEnv)
	cmd := exec.Command(bin, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // killed with the helper
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "measure helper:", err)
		os.Exit(125)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && out != "" {
		os.WriteFile(out, []byte(fmt.Sprint(ru.Maxrss*1024)), 0o644) // KiB on Linux
	}
	os.Exit(code)
}

// runBinary runs the binary with args under a fresh TMPDIR (returned in
// tmp, to check that nothing is left there), killing it after limit, and
// measures its peak RSS through the helper.
func runBinary(t *testing.T, limit time.Duration, stdin []byte, args ...string) binResult {
	t.Helper()
	bin := realBinary(t)
	tmp := t.TempDir()
	rssFile := filepath.Join(t.TempDir(), "maxrss")
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NO_COLOR=1", "PIPELINE_ANALYZE_TOKEN=", helperEnv+"="+bin, helperOutEnv+"="+rssFile)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	r := binResult{stdout: so.String(), stderr: se.String(), wall: time.Since(start), tmp: tmp}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run %v: %v", args, err)
	}
	if ctx.Err() != nil {
		r.code = -1
	}
	if r.code == 125 {
		t.Fatalf("the measure helper failed: %s", r.stderr)
	}
	if data, err := os.ReadFile(rssFile); err == nil {
		fmt.Sscan(string(data), &r.rss)
	} else if r.code >= 0 {
		t.Errorf("no peak RSS measured: %v", err)
	}
	return r
}

var reportMu sync.Mutex

// reportRun appends one run's figures to the file named by $HOSTILE_REPORT
// (tab-separated: suite, case, mode, exit, peak RSS MiB, seconds), which is
// how docs/reliability.md's figures are collected.
func reportRun(suite, name, mode string, r binResult) {
	path := os.Getenv("HOSTILE_REPORT")
	if path == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%s\t%s\t%d\t%d\t%.2f\n", suite, strings.NewReplacer("\t", " ", "\n", " ").Replace(name), mode, r.code, r.rss>>20, r.wall.Seconds())
}

// leftovers lists what a run left in its TMPDIR.
func leftovers(dir string) []string {
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
