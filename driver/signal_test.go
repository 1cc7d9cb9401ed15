package driver

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalsRemoveTemps: SIGINT or SIGTERM while a compressed SQLite
// export is being copied to a temporary file removes the run's temporary
// directory (and the copy in it) and exits 128+signal.
func TestSignalsRemoveTemps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	bin := realBinary(t)
	// A header whose in-header size is invalid, then 4 GiB of zeros: the
	// copy runs until --max-temp-size (1 GiB), which takes seconds.
	hdr := make([]byte, 100)
	copy(hdr, "SQLite format 3\x00")
	hdr[16], hdr[24] = 0x10, 1
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 64<<20))
	zw.Close()
	var head bytes.Buffer
	zw = gzip.NewWriter(&head)
	zw.Write(hdr)
	zw.Close()
	in := filepath.Join(t.TempDir(), "slow.sqlite.gz")
	data := head.Bytes()
	for i := 0; i < 64; i++ {
		data = append(data, member.Bytes()...)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []struct {
		s    syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(sig.s.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, "-q", in)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var se bytes.Buffer
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the temporary copy to appear and grow.
			deadline := time.Now().Add(30 * time.Second)
			var size int64
			for time.Now().Before(deadline) && size < 8<<20 {
				time.Sleep(20 * time.Millisecond)
				matches, _ := filepath.Glob(filepath.Join(tmp, "pipeline-analyze-run-*", "pipeline-analyze-*.sqlite"))
				for _, m := range matches {
					if st, err := os.Stat(m); err == nil {
						size = st.Size()
					}
				}
			}
			if size < 8<<20 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no temporary copy appeared in %s; stderr %q", tmp, se.String())
			}
			cmd.Process.Signal(sig.s)
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != sig.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, sig.code, se.String())
			}
			if left := leftovers(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR after %v: %q", sig.s, left)
			}
		})
	}
}
