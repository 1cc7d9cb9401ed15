package kineto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu"
)

// kinetoEvent is the part of a Chrome-trace event the reader uses. ts and dur
// are microseconds (floats in recent PyTorch versions).
type kinetoEvent struct {
	Ph   string      `json:"ph"`
	Cat  string      `json:"cat"`
	Name string      `json:"name"`
	Ts   json.Number `json:"ts"`
	Dur  json.Number `json:"dur"`
	Args struct {
		Device *int `json:"device"`
	} `json:"args"`
}

// kinetoDevice is one entry of "deviceProperties".
type kinetoDevice struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// minEpochNs separates absolute Unix timestamps from relative ones: anything
// before 2001-09-09 is taken as relative to an unknown origin.
const minEpochNs = 1e18

// decodeKineto reads a PyTorch profiler (Kineto) Chrome-trace JSON, streaming
// "traceEvents" one event at a time. GPU activity ("kernel", "gpu_memcpy",
// "gpu_memset" complete events with args.device) and blocking CUDA runtime
// calls (cudaDeviceSynchronize, cudaStreamSynchronize, synchronous memcpy...)
// become the per-GPU timeline series of Timeline.derive with prefix
// "kineto". Times are ts (µs) plus "baseTimeNanoseconds" when present; a
// trace whose times are neither absolute nor based is kept relative with a
// warning. GPUs are named "<host>/gpuN" (host from "host_name", else
// "rank<R>" from distributedInfo, else "localhost").
// Its length is the one streaming pass over the top-level keys and each
// event's fields (a token loop whose state would only be threaded through
// helpers if split).
func decodeKineto(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	dec := json.NewDecoder(r)
	b := &ingest.Bundle{}
	tok, err := dec.Token()
	if err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ingest.ErrorAt(name, 0, errors.New("kineto: expected a JSON object"))
	}
	var acts []gpu.Interval
	type hostCall struct {
		dev        int
		start, end int64
	}
	var calls []hostCall
	var base int64
	host := ""
	rank := -1
	var devProps []kinetoDevice
	seenEvents := false
	skipped, capped := 0, 0
	lim = lim.WithDefaults()
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, ingest.JSONError(name, err, dec)
		}
		key, _ := kt.(string)
		switch key {
		case "traceEvents":
			seenEvents = true
			t, err := dec.Token()
			if err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
			if d, ok := t.(json.Delim); !ok || d != '[' {
				return nil, ingest.ErrorAt(name, dec.InputOffset(), errors.New("kineto: traceEvents is not an array"))
			}
			for dec.More() {
				var ev kinetoEvent
				off := dec.InputOffset()
				if err := dec.Decode(&ev); err != nil {
					return nil, ingest.JSONErrorAt(name, err, dec, off)
				}
				if ev.Ph != "X" {
					continue
				}
				if len(acts)+len(calls) >= lim.MaxSpans {
					capped++ // activity records are bounded like spans
					continue
				}
				s, ok1 := microsToNanos(ev.Ts)
				d, ok2 := microsToNanos(ev.Dur)
				if !ok1 || !ok2 || d < 0 {
					skipped++
					continue
				}
				e := s + d
				switch ev.Cat {
				case "kernel", "Kernel":
					if ev.Args.Device == nil {
						skipped++
						continue
					}
					acts = append(acts, gpu.Interval{Dev: *ev.Args.Device, Start: s, End: e, Kind: gpu.ActKernel, Name: gpu.ShortKernelName(ev.Name)})
				case "gpu_memcpy", "Memcpy":
					if ev.Args.Device != nil {
						acts = append(acts, gpu.Interval{Dev: *ev.Args.Device, Start: s, End: e, Kind: gpu.ActMemcpy})
					}
				case "gpu_memset", "Memset":
					if ev.Args.Device != nil {
						acts = append(acts, gpu.Interval{Dev: *ev.Args.Device, Start: s, End: e, Kind: gpu.ActMemset})
					}
				case "cuda_runtime", "cuda_driver", "Runtime":
					if gpu.IsSyncCall(ev.Name) {
						d := -1
						if ev.Args.Device != nil {
							d = *ev.Args.Device
						}
						calls = append(calls, hostCall{d, s, e})
					}
				}
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, ingest.JSONError(name, err, dec)
			}
		case "baseTimeNanoseconds":
			var n json.Number
			if err := dec.Decode(&n); err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
			if base, err = strconv.ParseInt(n.String(), 10, 64); err != nil {
				return nil, ingest.ErrorAt(name, dec.InputOffset(), fmt.Errorf("kineto: baseTimeNanoseconds %q: %w", n, err))
			}
		case "host_name":
			if err := dec.Decode(&host); err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
		case "distributedInfo":
			var di struct {
				Rank *int `json:"rank"`
			}
			if err := dec.Decode(&di); err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
			if di.Rank != nil {
				rank = *di.Rank
			}
		case "deviceProperties":
			if err := dec.Decode(&devProps); err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, ingest.JSONError(name, err, dec)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, ingest.JSONError(name, err, dec)
	}
	if !seenEvents {
		return nil, ingest.ErrorAt(name, dec.InputOffset(), errors.New("kineto: no traceEvents"))
	}
	if skipped > 0 {
		b.Warn(ingest.ErrBadValue, name, skipped, "%d GPU events without a device or with a bad time skipped", skipped)
	}
	if capped > 0 {
		b.Warn(ingest.ErrLimit, name, capped, "%d complete events dropped: more than %d activity records (--max-spans)", capped, lim.MaxSpans)
	}
	if host == "" && rank >= 0 {
		host = "rank" + strconv.Itoa(rank)
	}
	tl := &gpu.Timeline{Prefix: "kineto", Acts: acts, Base: base,
		Entity: func(dev int) ingest.Entity { return gpu.Entity("", host, strconv.Itoa(dev)) }}
	if len(acts) > 0 && base == 0 && acts[0].Start < minEpochNs {
		b.Warn(ingest.ErrPartialInput, name, 1, "no baseTimeNanoseconds and timestamps are not Unix times: the trace is kept on its relative clock")
	}
	devs := map[int]bool{}
	for _, a := range acts {
		devs[a.Dev] = true
	}
	only := -1
	if len(devs) == 1 {
		for d := range devs {
			only = d
		}
	}
	unplaced := 0
	for _, c := range calls {
		d := c.dev
		if d < 0 {
			d = only
		}
		if d < 0 {
			unplaced++
			continue
		}
		tl.Stalls = append(tl.Stalls, gpu.HostInterval{Dev: d, Start: c.start, End: c.end})
	}
	if unplaced > 0 {
		b.Warn(ingest.ErrUnmatched, name, unplaced, "%d blocking CUDA calls not attributed: the trace has %d GPUs and the calls name none", unplaced, len(devs))
	}
	tl.Derive(b, name, lim)
	return b, nil
}

// microsToNanos converts a JSON number of microseconds to integer
// nanoseconds exactly: epoch microseconds times 1000 exceed float64's
// integer precision, so integer and fraction are handled apart.
func microsToNanos(n json.Number) (int64, bool) {
	str := n.String()
	if str == "" {
		return 0, false
	}
	if !strings.ContainsAny(str, "eE") {
		ip, fp, _ := strings.Cut(str, ".")
		neg := strings.HasPrefix(ip, "-")
		i, err := strconv.ParseInt(ip, 10, 64)
		if err != nil || i > math.MaxInt64/1000 || i < math.MinInt64/1000 {
			return 0, false
		}
		ns := i * 1000
		if fp != "" {
			f, err := strconv.ParseFloat("0."+fp, 64)
			if err != nil {
				return 0, false
			}
			frac := int64(math.Round(f * 1000))
			if neg {
				frac = -frac
			}
			ns += frac
		}
		return ns, true
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/1000 {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatKineto, Decode: decodeKineto,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityKineto, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("traceEvents") || h.Has("deviceProperties") || h.Has("schemaVersion") && h.Has("distributedInfo"))
		}}}})
}
