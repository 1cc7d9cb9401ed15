//go:build cgo

package gpurecord

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Options configure Record. The zero value samples every second until ctx is
// cancelled.
type Options struct {
	Interval time.Duration // time between ticks; 0 means 1 s
	Duration time.Duration // total recording time; 0 means until ctx is done
	Host     string        // recorded in the header
	// Now and Sleep are the clock; nil means the real one. Tests inject a fake
	// clock so that no real time passes.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Progress, when non-nil, is called after each tick with the number of
	// sample lines written so far.
	Progress func(samples int)
}

func realSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RecordDefault records from the system's NVML library (see Record).
func RecordDefault(ctx context.Context, w io.Writer, opt Options) (int, error) {
	return Record(ctx, nvml.New(), w, opt)
}

// device is one GPU being sampled.
type device struct {
	index    int
	h        nvml.Device
	uuid     string
	lastSeen uint64 // process-utilisation timestamp (µs) already consumed
}

// Record initialises NVML through lib (returning ErrNoDriver when that
// fails; no other NVML call is made then), writes the header and one sample
// line per GPU per tick to w, and returns the number of sample lines
// written. It stops after opt.Duration or when ctx is done (which is not an
// error). Calls a device does not support are left out of its samples.
func Record(ctx context.Context, lib nvml.Interface, w io.Writer, opt Options) (int, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return 0, fmt.Errorf("%w: %v", ErrNoDriver, ret)
	}
	defer lib.Shutdown()
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Sleep == nil {
		opt.Sleep = realSleep
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return 0, fmt.Errorf("nvml device count: %w", ret)
	}
	start := opt.Now()
	h := Header{Host: opt.Host, IntervalMs: opt.Interval.Milliseconds(), StartNs: start.UnixNano()}
	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		h.DriverVersion = v
	}
	if v, ret := lib.SystemGetNVMLVersion(); ret == nvml.SUCCESS {
		h.NVMLVersion = v
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		h.CUDADriverVersion = v
	}
	var devs []*device
	for i := 0; i < n; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return 0, fmt.Errorf("nvml device %d: %w", i, ret)
		}
		dev := &device{index: i, h: d}
		info := DeviceInfo{Index: i}
		if u, ret := d.GetUUID(); ret == nvml.SUCCESS {
			dev.uuid, info.UUID = u, u
		}
		if nm, ret := d.GetName(); ret == nvml.SUCCESS {
			info.Name = nm
		}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			info.MemoryTotalBytes = m.Total
		}
		devs = append(devs, dev)
		h.Devices = append(h.Devices, info)
	}
	events := registerEvents(lib, devs)
	if events != nil {
		defer events.Free()
	}
	out := NewWriter(w)
	if err := out.WriteHeader(h); err != nil {
		return 0, err
	}
	written := 0
	for tick := 0; ; tick++ {
		at := start.Add(time.Duration(tick) * opt.Interval)
		if opt.Duration > 0 && at.Sub(start) >= opt.Duration {
			break
		}
		if tick > 0 {
			if err := opt.Sleep(ctx, at.Sub(opt.Now())); err != nil {
				break // cancelled: keep what was recorded
			}
		}
		now := opt.Now()
		xids := pollEvents(events, devs, now)
		for _, d := range devs {
			s := sampleDevice(d, now)
			s.XIDs = xids[d.index]
			if err := out.WriteSample(s); err != nil {
				return written, err
			}
			written++
		}
		if err := out.Flush(); err != nil {
			return written, err
		}
		if opt.Progress != nil {
			opt.Progress(written)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return written, out.Flush()
}

func ptr[T any](v T) *T { return &v }

// sampleDevice reads one tick of one GPU; unsupported readings stay nil.
func sampleDevice(d *device, now time.Time) Sample {
	s := Sample{TimeNs: now.UnixNano(), GPU: d.index, UUID: d.uuid}
	if u, ret := d.h.GetUtilizationRates(); ret == nvml.SUCCESS {
		s.UtilGPUPct, s.MemBWUtilPct = ptr(u.Gpu), ptr(u.Memory)
	}
	if m, ret := d.h.GetMemoryInfo(); ret == nvml.SUCCESS {
		s.MemUsedBytes, s.MemTotalBytes = ptr(m.Used), ptr(m.Total)
	}
	if c, ret := d.h.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		s.SMClockMHz = ptr(c)
	}
	if c, ret := d.h.GetClockInfo(nvml.CLOCK_MEM); ret == nvml.SUCCESS {
		s.MemClockMHz = ptr(c)
	}
	if r, ret := d.h.GetCurrentClocksEventReasons(); ret == nvml.SUCCESS {
		s.ClockEventReasons = ptr(r)
	} else if r, ret := d.h.GetCurrentClocksThrottleReasons(); ret == nvml.SUCCESS {
		s.ClockEventReasons = ptr(r)
	}
	if p, ret := d.h.GetPowerUsage(); ret == nvml.SUCCESS {
		s.PowerW = ptr(float64(p) / 1000)
	}
	if t, ret := d.h.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		s.TempC = ptr(t)
	}
	if v, ret := d.h.GetPcieThroughput(nvml.PCIE_UTIL_TX_BYTES); ret == nvml.SUCCESS {
		s.PCIeTxBytesPerS = ptr(uint64(v) * 1024) // NVML reports KB/s
	}
	if v, ret := d.h.GetPcieThroughput(nvml.PCIE_UTIL_RX_BYTES); ret == nvml.SUCCESS {
		s.PCIeRxBytesPerS = ptr(uint64(v) * 1024)
	}
	fv := []nvml.FieldValue{
		{FieldId: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, ScopeId: math.MaxUint32},
		{FieldId: nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX, ScopeId: math.MaxUint32},
	}
	if ret := d.h.GetFieldValues(fv); ret == nvml.SUCCESS {
		for i, f := range fv {
			if nvml.Return(f.NvmlReturn) != nvml.SUCCESS {
				continue
			}
			v := ptr(binary.LittleEndian.Uint64(f.Value[:]) * 1024) // KiB counters
			if i == 0 {
				s.NVLinkTxBytes = v
			} else {
				s.NVLinkRxBytes = v
			}
		}
	}
	if v, ret := d.h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.VOLATILE_ECC); ret == nvml.SUCCESS {
		s.ECCCorrected = ptr(v)
	}
	if v, ret := d.h.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC); ret == nvml.SUCCESS {
		s.ECCUncorrected = ptr(v)
	}
	s.Processes = sampleProcesses(d)
	return s
}

// sampleProcesses merges the running compute processes (PID, memory) with
// the per-process utilisation samples since the previous tick, by PID order.
func sampleProcesses(d *device) []Process {
	byPID := map[uint32]*Process{}
	var order []uint32
	get := func(pid uint32) *Process {
		if p, ok := byPID[pid]; ok {
			return p
		}
		p := &Process{PID: pid}
		byPID[pid] = p
		order = append(order, pid)
		return p
	}
	if ps, ret := d.h.GetComputeRunningProcesses(); ret == nvml.SUCCESS {
		for _, p := range ps {
			get(p.Pid).UsedMemoryBytes = ptr(p.UsedGpuMemory)
		}
	}
	if us, ret := d.h.GetProcessUtilization(d.lastSeen); ret == nvml.SUCCESS {
		for _, u := range us {
			p := get(u.Pid)
			p.SMUtilPct, p.MemUtilPct = ptr(u.SmUtil), ptr(u.MemUtil)
			if u.TimeStamp > d.lastSeen {
				d.lastSeen = u.TimeStamp
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	// stable order: ascending PID
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && order[j] < order[j-1]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out := make([]Process, 0, len(order))
	for _, pid := range order {
		out = append(out, *byPID[pid])
	}
	return out
}

const watchedEvents = nvml.EventTypeXidCriticalError | nvml.EventTypeSingleBitEccError | nvml.EventTypeDoubleBitEccError

// registerEvents creates an event set for XID/ECC events on every device
// that supports them; nil when none does.
func registerEvents(lib nvml.Interface, devs []*device) nvml.EventSet {
	set, ret := lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		return nil
	}
	registered := false
	for _, d := range devs {
		sup, ret := d.h.GetSupportedEventTypes()
		if ret != nvml.SUCCESS || sup&watchedEvents == 0 {
			continue
		}
		if d.h.RegisterEvents(sup&watchedEvents, set) == nvml.SUCCESS {
			registered = true
		}
	}
	if !registered {
		set.Free()
		return nil
	}
	return set
}

// pollEvents drains the event set without waiting, grouping events by GPU index.
func pollEvents(set nvml.EventSet, devs []*device, now time.Time) map[int][]XIDEvent {
	if set == nil {
		return nil
	}
	out := map[int][]XIDEvent{}
	for i := 0; i < 1024; i++ { // bounded: a storm cannot stall sampling
		ev, ret := set.Wait(0)
		if ret != nvml.SUCCESS {
			break
		}
		idx := -1
		if ev.Device != nil {
			if u, ret := ev.Device.GetUUID(); ret == nvml.SUCCESS {
				for _, d := range devs {
					if d.uuid == u {
						idx = d.index
					}
				}
			}
		}
		if idx < 0 {
			continue
		}
		typ := "xid"
		switch ev.EventType {
		case nvml.EventTypeSingleBitEccError:
			typ = "ecc_single_bit"
		case nvml.EventTypeDoubleBitEccError:
			typ = "ecc_double_bit"
		}
		out[idx] = append(out[idx], XIDEvent{TimeNs: now.UnixNano(), XID: ev.EventData, Type: typ})
	}
	return out
}
