// Package gpurecord samples NVIDIA GPUs through NVML and writes the samples
// as a JSON Lines recording that ingest reads back (format "nvml-recording").
//
// The recording is one header object followed by one object per GPU per
// sampling tick; docs/nvml-recording.md documents every field. The sampler
// (Record) takes an nvml.Interface so tests drive it with go-nvml's mock
// package; it needs cgo, and without cgo RecordDefault reports that NVML is
// unavailable.
package gpurecord

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// FormatVersion is the value of the header's "pipeline_analyze_nvml" key.
const FormatVersion = 1

// ErrNoDriver is returned when NVML cannot be initialised (no driver, no
// libnvidia-ml, or a build without cgo).
var ErrNoDriver = errors.New("no NVIDIA driver/NVML found on this machine")

// Header is the first line of a recording.
type Header struct {
	Version           int          `json:"pipeline_analyze_nvml"`
	Host              string       `json:"host"`
	DriverVersion     string       `json:"driver_version,omitempty"`
	NVMLVersion       string       `json:"nvml_version,omitempty"`
	CUDADriverVersion int          `json:"cuda_driver_version,omitempty"`
	IntervalMs        int64        `json:"interval_ms"`
	StartNs           int64        `json:"start_ns"`
	Devices           []DeviceInfo `json:"devices"`
}

// DeviceInfo describes one GPU in the header.
type DeviceInfo struct {
	Index            int    `json:"index"`
	UUID             string `json:"uuid,omitempty"`
	Name             string `json:"name,omitempty"`
	MemoryTotalBytes uint64 `json:"memory_total_bytes,omitempty"`
}

// Sample is one GPU at one tick. Pointer fields are omitted when NVML did
// not report them (unsupported on the device, or the call failed).
type Sample struct {
	TimeNs            int64      `json:"t_ns"`
	GPU               int        `json:"gpu"`
	UUID              string     `json:"uuid,omitempty"`
	UtilGPUPct        *uint32    `json:"util_gpu_pct,omitempty"`
	MemBWUtilPct      *uint32    `json:"mem_bw_util_pct,omitempty"` // NVML "memory utilization": time the DRAM was read or written
	MemUsedBytes      *uint64    `json:"mem_used_bytes,omitempty"`
	MemTotalBytes     *uint64    `json:"mem_total_bytes,omitempty"`
	SMClockMHz        *uint32    `json:"sm_clock_mhz,omitempty"`
	MemClockMHz       *uint32    `json:"mem_clock_mhz,omitempty"`
	ClockEventReasons *uint64    `json:"clock_event_reasons,omitempty"` // nvmlClocksEventReason bitmask
	PowerW            *float64   `json:"power_w,omitempty"`
	TempC             *uint32    `json:"temp_c,omitempty"`
	PCIeTxBytesPerS   *uint64    `json:"pcie_tx_bytes_per_s,omitempty"`
	PCIeRxBytesPerS   *uint64    `json:"pcie_rx_bytes_per_s,omitempty"`
	NVLinkTxBytes     *uint64    `json:"nvlink_tx_bytes,omitempty"` // cumulative counter
	NVLinkRxBytes     *uint64    `json:"nvlink_rx_bytes,omitempty"` // cumulative counter
	ECCCorrected      *uint64    `json:"ecc_corrected_volatile,omitempty"`
	ECCUncorrected    *uint64    `json:"ecc_uncorrected_volatile,omitempty"`
	XIDs              []XIDEvent `json:"xid,omitempty"`
	Processes         []Process  `json:"processes,omitempty"`
}

// XIDEvent is one XID (or ECC) event NVML reported since the previous tick.
type XIDEvent struct {
	TimeNs int64  `json:"t_ns"`
	XID    uint64 `json:"xid"`
	Type   string `json:"type"` // "xid", "ecc_single_bit", "ecc_double_bit"
}

// Process is one process using the GPU at the tick.
type Process struct {
	PID             uint32  `json:"pid"`
	UsedMemoryBytes *uint64 `json:"used_memory_bytes,omitempty"`
	SMUtilPct       *uint32 `json:"sm_util_pct,omitempty"`
	MemUtilPct      *uint32 `json:"mem_util_pct,omitempty"`
}

// Writer writes a recording line by line.
type Writer struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a Writer on w; call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	return &Writer{bw: bw, enc: json.NewEncoder(bw)}
}

// WriteHeader writes the header line (Version is set to FormatVersion).
func (w *Writer) WriteHeader(h Header) error {
	h.Version = FormatVersion
	if err := w.enc.Encode(h); err != nil {
		return fmt.Errorf("write recording header: %w", err)
	}
	return nil
}

// WriteSample writes one sample line.
func (w *Writer) WriteSample(s Sample) error {
	if err := w.enc.Encode(s); err != nil {
		return fmt.Errorf("write recording sample: %w", err)
	}
	return nil
}

// Flush flushes buffered lines to the underlying writer.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	return nil
}
