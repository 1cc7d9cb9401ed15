package gpurecord

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRecordFileLeavesNothing checks that a failed recording leaves no file
// (neither the output nor its temporary file), and that a missing directory
// fails before recording.
func TestRecordFileLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has an NVIDIA driver")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "gpu.jsonl")
	if _, err := RecordFile(context.Background(), out, nil, Options{Interval: 10 * time.Millisecond, Duration: 20 * time.Millisecond}); err == nil {
		t.Fatal("recorded without an NVIDIA driver")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files behind, first %s", len(ents), ents[0].Name())
	}
	if _, err := RecordFile(context.Background(), filepath.Join(dir, "no", "gpu.jsonl"), nil, Options{}); err == nil {
		t.Error("recorded into a missing directory")
	}
}
