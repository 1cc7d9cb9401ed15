//go:build cgo

package gpurecord

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// fakeClock advances only when Sleep is called.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return ctx.Err()
}

// mockGPU returns a mock device whose readings depend on its index and on how
// many times it was sampled.
func mockGPU(i int) *mock.Device {
	calls := 0
	d := &mock.Device{}
	d.GetUUIDFunc = func() (string, nvml.Return) { return "GPU-mock-" + string(rune('a'+i)), nvml.SUCCESS }
	d.GetNameFunc = func() (string, nvml.Return) { return "Mock H100", nvml.SUCCESS }
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		calls++
		return nvml.Utilization{Gpu: uint32(10*i + calls), Memory: 5}, nvml.SUCCESS
	}
	d.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		return nvml.Memory{Total: 80 << 30, Used: uint64(i+1) << 30}, nvml.SUCCESS
	}
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return 1980, nvml.SUCCESS
		}
		return 2619, nvml.SUCCESS
	}
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return 0x4, nvml.SUCCESS }
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 350500, nvml.SUCCESS }
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return uint32(60 + i), nvml.SUCCESS }
	d.GetPcieThroughputFunc = func(nvml.PcieUtilCounter) (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	d.GetFieldValuesFunc = func([]nvml.FieldValue) nvml.Return { return nvml.ERROR_NOT_SUPPORTED }
	d.GetTotalEccErrorsFunc = func(nvml.MemoryErrorType, nvml.EccCounterType) (uint64, nvml.Return) { return 0, nvml.SUCCESS }
	d.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
		return []nvml.ProcessInfo{{Pid: uint32(1000 + i), UsedGpuMemory: 1 << 30}}, nvml.SUCCESS
	}
	d.GetProcessUtilizationFunc = func(uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
		return nil, nvml.ERROR_NOT_FOUND
	}
	d.GetSupportedEventTypesFunc = func() (uint64, nvml.Return) { return nvml.EventTypeXidCriticalError, nvml.SUCCESS }
	d.RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { return nvml.SUCCESS }
	return d
}

func mockLib(devs []*mock.Device) *mock.Interface {
	waits := 0
	set := &mock.EventSet{
		WaitFunc: func(uint32) (nvml.EventData, nvml.Return) {
			waits++
			if waits == 1 { // one XID 79 on GPU 1 before the first tick
				return nvml.EventData{Device: devs[1], EventType: nvml.EventTypeXidCriticalError, EventData: 79}, nvml.SUCCESS
			}
			return nvml.EventData{}, nvml.ERROR_TIMEOUT
		},
		FreeFunc: func() nvml.Return { return nvml.SUCCESS },
	}
	return &mock.Interface{
		InitFunc:                       func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:                   func() nvml.Return { return nvml.SUCCESS },
		DeviceGetCountFunc:             func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		DeviceGetHandleByIndexFunc:     func(i int) (nvml.Device, nvml.Return) { return devs[i], nvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, nvml.Return) { return "590.48.01", nvml.SUCCESS },
		SystemGetNVMLVersionFunc:       func() (string, nvml.Return) { return "13.590.48", nvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, nvml.Return) { return 13010, nvml.SUCCESS },
		EventSetCreateFunc:             func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS },
	}
}

func TestRecordMock(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 7, 3, 22, 10, 45, 0, time.UTC)}
	devs := []*mock.Device{mockGPU(0), mockGPU(1)}
	var buf bytes.Buffer
	var progress []int
	n, err := Record(context.Background(), mockLib(devs), &buf, Options{
		Interval: time.Second, Duration: 3 * time.Second, Host: "node-1",
		Now: clk.Now, Sleep: clk.Sleep, Progress: func(k int) { progress = append(progress, k) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 || len(progress) != 3 || progress[2] != 6 {
		t.Fatalf("samples = %d, progress %v; want 6 over 3 ticks", n, progress)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 7 {
		t.Fatalf("lines = %d, want 7", len(lines))
	}
	var h Header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h.Version != 1 || h.Host != "node-1" || h.DriverVersion != "590.48.01" || h.NVMLVersion != "13.590.48" ||
		h.CUDADriverVersion != 13010 || h.IntervalMs != 1000 || len(h.Devices) != 2 || h.Devices[1].UUID != "GPU-mock-b" ||
		h.Devices[0].MemoryTotalBytes != 80<<30 {
		t.Errorf("header = %+v", h)
	}
	tests := []struct {
		name   string
		line   int
		gpu    int
		tNs    int64
		util   uint32
		xids   int
		procID uint32
	}{
		{"tick0/gpu0", 1, 0, clk0(), 1, 0, 1000},
		{"tick0/gpu1", 2, 1, clk0(), 11, 1, 1001},
		{"tick2/gpu1", 6, 1, clk0() + 2e9, 13, 0, 1001},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Sample
			if err := json.Unmarshal([]byte(lines[tc.line]), &s); err != nil {
				t.Fatal(err)
			}
			if s.GPU != tc.gpu || s.TimeNs != tc.tNs || *s.UtilGPUPct != tc.util || *s.MemBWUtilPct != 5 ||
				*s.SMClockMHz != 1980 || *s.MemClockMHz != 2619 || *s.ClockEventReasons != 4 || *s.PowerW != 350.5 ||
				*s.TempC != uint32(60+tc.gpu) || *s.MemUsedBytes != uint64(tc.gpu+1)<<30 || len(s.XIDs) != tc.xids ||
				len(s.Processes) != 1 || s.Processes[0].PID != tc.procID || s.PCIeTxBytesPerS != nil || s.NVLinkTxBytes != nil {
				t.Errorf("sample = %s", lines[tc.line])
			}
			if tc.xids == 1 && (s.XIDs[0].XID != 79 || s.XIDs[0].Type != "xid") {
				t.Errorf("xid = %+v", s.XIDs)
			}
		})
	}

	t.Run("round trip through ingest", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "gpu.jsonl")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ingest.ReadFile(p, nil, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		in := b.Inputs[0]
		// per GPU: 11 readings present (util, mem bw, used, total, 2 clocks,
		// reasons, power, temp, 2 ECC) + 1 process memory series; GPU 1 also
		// nvml_xid_events.
		if in.Format != ingest.FormatNVMLRecording || in.Counts.Series != 2*12+1 || in.Counts.Points != 2*12*3+1 || in.Counts.Events != 1 {
			t.Fatalf("input = %+v", in)
		}
		ev := b.Events[0]
		if ev.Kind != ingest.EventXID || ev.Entity.Name != "GPU-mock-b" || ev.Entity.Node != "node-1" || ev.Time != ingest.Time(clk0()) {
			t.Errorf("event = %+v", ev)
		}
		for _, s := range b.Series {
			if s.Name == "nvml_gpu_utilization_percent" && s.Entity.Name == "GPU-mock-b" {
				if s.Signal != ingest.SignalGPUUtil || len(s.V) != 3 || s.V[0] != 11 || s.V[2] != 13 || s.T[2] != ingest.Time(clk0()+2e9) {
					t.Errorf("util = %+v", s)
				}
			}
			if s.Name == "nvml_process_used_memory_bytes" && s.Labels.Get("pid") == "" {
				t.Errorf("process series without pid: %+v", s.Labels)
			}
		}
	})
}

func clk0() int64 { return time.Date(2026, 7, 3, 22, 10, 45, 0, time.UTC).UnixNano() }

func TestRecordInitFails(t *testing.T) {
	tests := []struct {
		name string
		ret  nvml.Return
	}{
		{"library not found", nvml.ERROR_LIBRARY_NOT_FOUND},
		{"driver not loaded", nvml.ERROR_DRIVER_NOT_LOADED},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lib := &mock.Interface{InitFunc: func() nvml.Return { return tc.ret }} // any other call would panic
			var buf bytes.Buffer
			n, err := Record(context.Background(), lib, &buf, Options{})
			if !errors.Is(err, ErrNoDriver) || n != 0 || buf.Len() != 0 {
				t.Fatalf("n=%d err=%v out=%q", n, err, buf.String())
			}
			if !strings.HasPrefix(err.Error(), "no NVIDIA driver/NVML found on this machine: ") {
				t.Errorf("message = %q", err)
			}
		})
	}
}

// TestRecordRealNoDriver runs against the real NVML loader: on a machine
// without a driver it must fail with ErrNoDriver, not crash.
func TestRecordRealNoDriver(t *testing.T) {
	var buf bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // on a machine with GPUs, record a single tick only
	n, err := RecordDefault(ctx, &buf, Options{Interval: time.Millisecond, Duration: time.Millisecond})
	if err != nil {
		if !errors.Is(err, ErrNoDriver) {
			t.Fatalf("err = %v, want ErrNoDriver", err)
		}
		t.Logf("no driver here, as expected: %v", err)
		return
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
	}
	if lines != n+1 {
		t.Errorf("lines = %d, samples %d", lines, n)
	}
}
