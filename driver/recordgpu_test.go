package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordGPUCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gpu.jsonl")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring
		stderr   string // substring
		noOutput bool
	}{
		{"help", []string{"--help"}, 0, "--duration 3s --out gpu.jsonl", "", true},
		{"bad flag", []string{"--bogus"}, 2, "", "unknown flag", true},
		{"bad interval", []string{"--interval", "0s"}, 2, "", "--interval must be > 0", true},
		{"extra args", []string{"x"}, 2, "", "unexpected arguments", true},
		// This machine has no NVIDIA driver (or the build has no cgo): a clear
		// message and exit 1, no partial output file.
		{"no driver", []string{"--interval", "10ms", "--duration", "20ms", "--out", out}, 1, "", "no NVIDIA driver/NVML found on this machine", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no driver" {
				if _, err := os.Stat("/dev/nvidiactl"); err == nil {
					t.Skip("this machine has an NVIDIA driver")
				}
			}
			var so, se bytes.Buffer
			code := Run(append([]string{"record-gpu"}, tc.args...), nil, &so, &se)
			if code != tc.code || !strings.Contains(so.String(), tc.stdout) || !strings.Contains(se.String(), tc.stderr) {
				t.Errorf("code %d stdout %q stderr %q", code, so.String(), se.String())
			}
			if _, err := os.Stat(out); tc.noOutput && err == nil {
				t.Errorf("%s exists after a failed recording", out)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".gpu.jsonl.*"))
			if len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
