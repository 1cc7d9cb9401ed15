package nsight

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestNsightSQLite(t *testing.T) {
	path := filepath.Join(testkit.SharedDir(t), "samples", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadFile(path, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in := b.Inputs[0]
	// Independent numbers (python sqlite3): 5 kernels + 15 memcpys on device 0,
	// union busy time 373273080 ns, cudaMemcpy(+_v3020) union 374343896 ns,
	// kernel gaps 952000911 ns, activity span 1097528087 ns → 20 ms buckets, 56 of them.
	if in.Format != ingest.FormatNsightSQLite || in.Counts.Series != 7 || in.Counts.Points != 5*56+2*5 || len(b.Warnings) != 0 {
		t.Fatalf("input = %+v, warnings %v", in, b.Warnings)
	}
	const uuid = "GPU-74e128b2-90b6-b409-07c8-33bee5ff6f88"
	step := 20 * time.Millisecond
	for _, tc := range []struct {
		name, label, value string
		sum                float64
		signal             ingest.SignalKind
	}{
		{"nsys_gpu_busy_ratio", "", "", 373273080 / float64(step), ingest.SignalGPUUtil},
		{"nsys_kernel_count", "", "", 5, ingest.SignalGPUUtil},
		{"nsys_host_sync_stall_ratio", "", "", 374343896 / float64(step), ingest.SignalOther},
		{"nsys_launch_gap_seconds", "", "", 0.952000911, ingest.SignalOther},
		{"nsys_kernel_launches", "kernel", "saxpy", 5, ingest.SignalOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, s := bundletest.SumSeries(t, b, tc.name, tc.label, tc.value)
			if !bundletest.Near(sum, tc.sum) || s.Signal != tc.signal {
				t.Errorf("sum = %.9f, want %.9f; signal %v", sum, tc.sum, s.Signal)
			}
			if s.Entity.Name != uuid || s.Entity.Node != "nid001608" || s.Entity.Kind != ingest.KindGPU || s.Labels.Get("device") != "0" {
				t.Errorf("entity %+v labels %v", s.Entity, s.Labels)
			}
		})
	}
	busy := bundletest.FindSeries(t, b, "nsys_gpu_busy_ratio", "", "")
	// session start 1687813257637297504 + first memcpy 887857742, floored to 20 ms
	if want := ingest.Time(1687813258520000000); busy.T[0] != want || busy.T[1]-busy.T[0] != ingest.Time(step) {
		t.Errorf("first bucket %v (+%v), want %v", busy.T[0], busy.T[1].Sub(busy.T[0]), want)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the input file was modified")
	}
}

func TestNsightSQLiteMalformed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string
	}{
		{"not a database", "SQLite format 3\x00" + strings.Repeat("garbage", 100)},
		{"text file", "hello"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".sqlite")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := decodeNsightSQLite(p, p, ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.File != p {
				t.Fatalf("err = %v, want *InputError on %s", err, p)
			}
		})
	}
}
