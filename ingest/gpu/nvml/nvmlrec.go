package nvml

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu"
)

// nvmlHeader is the first line of a record-gpu recording (see
// docs/nvml-recording.md; written by package gpurecord).
type nvmlHeader struct {
	Version       *int   `json:"pipeline_analyze_nvml"`
	Host          string `json:"host"`
	DriverVersion string `json:"driver_version"`
	NVMLVersion   string `json:"nvml_version"`
}

// nvmlSample is one GPU sample line; absent readings stay nil.
type nvmlSample struct {
	TimeNs            *int64   `json:"t_ns"`
	GPU               int      `json:"gpu"`
	UUID              string   `json:"uuid"`
	UtilGPUPct        *float64 `json:"util_gpu_pct"`
	MemBWUtilPct      *float64 `json:"mem_bw_util_pct"`
	MemUsedBytes      *float64 `json:"mem_used_bytes"`
	MemTotalBytes     *float64 `json:"mem_total_bytes"`
	SMClockMHz        *float64 `json:"sm_clock_mhz"`
	MemClockMHz       *float64 `json:"mem_clock_mhz"`
	ClockEventReasons *float64 `json:"clock_event_reasons"`
	PowerW            *float64 `json:"power_w"`
	TempC             *float64 `json:"temp_c"`
	PCIeTx            *float64 `json:"pcie_tx_bytes_per_s"`
	PCIeRx            *float64 `json:"pcie_rx_bytes_per_s"`
	NVLinkTx          *float64 `json:"nvlink_tx_bytes"`
	NVLinkRx          *float64 `json:"nvlink_rx_bytes"`
	ECCCorrected      *float64 `json:"ecc_corrected_volatile"`
	ECCUncorrected    *float64 `json:"ecc_uncorrected_volatile"`
	XIDs              []struct {
		TimeNs int64  `json:"t_ns"`
		XID    uint64 `json:"xid"`
		Type   string `json:"type"`
	} `json:"xid"`
	Processes []struct {
		PID        uint32   `json:"pid"`
		UsedMemory *float64 `json:"used_memory_bytes"`
		SMUtil     *float64 `json:"sm_util_pct"`
		MemUtil    *float64 `json:"mem_util_pct"`
	} `json:"processes"`
}

// nvmlField maps a sample field to its series.
type nvmlField struct {
	name   string
	signal ingest.SignalKind
	unit   string
	get    func(*nvmlSample) *float64
}

var nvmlFields = []nvmlField{
	{"nvml_gpu_utilization_percent", ingest.SignalGPUUtil, "%", func(s *nvmlSample) *float64 { return s.UtilGPUPct }},
	{"nvml_mem_bw_utilization_percent", ingest.SignalGPUMemBW, "%", func(s *nvmlSample) *float64 { return s.MemBWUtilPct }},
	{"nvml_memory_used_bytes", ingest.SignalGPUMemory, "bytes", func(s *nvmlSample) *float64 { return s.MemUsedBytes }},
	{"nvml_memory_total_bytes", ingest.SignalGPUMemory, "bytes", func(s *nvmlSample) *float64 { return s.MemTotalBytes }},
	{"nvml_sm_clock_mhz", ingest.SignalGPUClock, "MHz", func(s *nvmlSample) *float64 { return s.SMClockMHz }},
	{"nvml_mem_clock_mhz", ingest.SignalGPUClock, "MHz", func(s *nvmlSample) *float64 { return s.MemClockMHz }},
	{"nvml_clock_event_reasons", ingest.SignalGPUThrottle, "", func(s *nvmlSample) *float64 { return s.ClockEventReasons }},
	{"nvml_power_watts", ingest.SignalPower, "W", func(s *nvmlSample) *float64 { return s.PowerW }},
	{"nvml_temperature_celsius", ingest.SignalTemperature, "C", func(s *nvmlSample) *float64 { return s.TempC }},
	{"nvml_pcie_tx_bytes_per_second", ingest.SignalOther, "bytes/s", func(s *nvmlSample) *float64 { return s.PCIeTx }},
	{"nvml_pcie_rx_bytes_per_second", ingest.SignalOther, "bytes/s", func(s *nvmlSample) *float64 { return s.PCIeRx }},
	{"nvml_nvlink_tx_bytes_total", ingest.SignalNVLink, "bytes", func(s *nvmlSample) *float64 { return s.NVLinkTx }},
	{"nvml_nvlink_rx_bytes_total", ingest.SignalNVLink, "bytes", func(s *nvmlSample) *float64 { return s.NVLinkRx }},
	{"nvml_ecc_corrected_errors", ingest.SignalXID, "", func(s *nvmlSample) *float64 { return s.ECCCorrected }},
	{"nvml_ecc_uncorrected_errors", ingest.SignalXID, "", func(s *nvmlSample) *float64 { return s.ECCUncorrected }},
}

// decodeNVMLRecording reads a record-gpu JSON Lines recording: a header
// line, then one sample per GPU per tick. Each reading becomes a series
// "nvml_<reading>" per GPU (entity named by UUID, else "host/gpuN"); each
// process a "nvml_process_*" series with label pid; each XID/ECC event an
// EventXID event plus a point of "nvml_xid_events" (value = XID code).
func decodeNVMLRecording(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	b := &ingest.Bundle{}
	br := bufio.NewReader(r)
	dec := json.NewDecoder(br)
	var h nvmlHeader
	if err := dec.Decode(&h); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	if h.Version == nil {
		return nil, ingest.ErrorAt(name, 0, errors.New("nvml recording: first line is not a header with \"pipeline_analyze_nvml\""))
	}
	if *h.Version != 1 {
		b.Warn(ingest.ErrPartialInput, name, 1, "recording format version %d is newer than 1: unknown fields ignored", *h.Version)
	}
	ss := gpu.NewSeriesSet(name)
	lines := 0
	for {
		off := dec.InputOffset()
		var s nvmlSample
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, ingest.JSONErrorAt(name, err, dec, off)
		}
		lines++
		if s.TimeNs == nil {
			return nil, ingest.ErrorAt(name, off, errors.New("nvml recording: sample without t_ns"))
		}
		t := ingest.Time(*s.TimeNs)
		e := gpu.Entity(s.UUID, h.Host, strconv.Itoa(s.GPU))
		if s.UUID != "" {
			e.Node = h.Host
		}
		for _, f := range nvmlFields {
			if v := f.get(&s); v != nil {
				sr := ss.Get(f.name, nil, e, f.signal, f.unit)
				sr.T, sr.V = append(sr.T, t), append(sr.V, *v)
			}
		}
		for _, p := range s.Processes {
			pid := ingest.Labels{{Name: "pid", Value: strconv.FormatUint(uint64(p.PID), 10)}}
			if p.UsedMemory == nil && p.SMUtil == nil && p.MemUtil == nil {
				// No readings (NVML may not report them): keep the PID,
				// which places the GPU (features/placement.go).
				sr := ss.Get("nvml_process_running", pid, e, ingest.SignalOther, "")
				sr.T, sr.V = append(sr.T, t), append(sr.V, 1)
				continue
			}
			for _, f := range []struct {
				name   string
				signal ingest.SignalKind
				unit   string
				v      *float64
			}{
				{"nvml_process_used_memory_bytes", ingest.SignalGPUMemory, "bytes", p.UsedMemory},
				{"nvml_process_sm_utilization_percent", ingest.SignalGPUUtil, "%", p.SMUtil},
				{"nvml_process_mem_utilization_percent", ingest.SignalGPUMemBW, "%", p.MemUtil},
			} {
				if f.v != nil {
					sr := ss.Get(f.name, append(ingest.Labels(nil), pid...), e, f.signal, f.unit)
					sr.T, sr.V = append(sr.T, t), append(sr.V, *f.v)
				}
			}
		}
		for _, x := range s.XIDs {
			reason := "XID"
			if x.Type != "" && x.Type != "xid" {
				reason = x.Type
			}
			b.Events = append(b.Events, ingest.Event{Time: ingest.Time(x.TimeNs), Entity: e, Kind: ingest.EventXID, Reason: reason,
				Message: fmt.Sprintf("%s %d on %s", reason, x.XID, e.Name), Count: 1, Source: name})
			sr := ss.Get("nvml_xid_events", nil, e, ingest.SignalXID, "")
			sr.T, sr.V = append(sr.T, ingest.Time(x.TimeNs)), append(sr.V, float64(x.XID))
		}
	}
	if lines == 0 {
		b.Warn(ingest.ErrPartialInput, name, 1, "recording has a header but no samples")
	}
	b.Series = ss.NonEmpty()
	return b, nil
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatNVMLRecording, Decode: decodeNVMLRecording,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityNVMLRecording, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("pipeline_analyze_nvml") || h.Has("nvml_version") && h.Has("samples"))
		}}}})
}
