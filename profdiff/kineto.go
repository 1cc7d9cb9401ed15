package profdiff

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/fastjson"
)

// The Kineto (PyTorch profiler) reader: one pass over the Chrome-trace
// JSON with ingest's fast scanner (a million kernels are a gigabyte of
// JSON; encoding/json would spend the time budget on reflection), keeping
// of each complete ("X") event only what the attribution needs: GPU
// activities (kernel, gpu_memcpy, gpu_memset) with their correlation and
// GPU row, the host calls that launched them (cuda_runtime, cuda_driver:
// correlation, thread, time), and the host ranges — record_function
// annotations (user_annotation), nn.Module ranges (python_function
// "nn.Module: …", with_modules), operators (cpu_op), PyTorch's ProfilerStep
// — and the GPU-side annotations (gpu_user_annotation). Strings are views
// into the scanner's buffers until interned; buffers are recycled after
// every event.

// countingReader counts the bytes read, for positions in errors.
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads from the underlying reader, counting the bytes.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// kinetoEvent is the part of an event the reader keeps (views).
type kinetoEvent struct {
	ph, cat, name string
	pid, tid      string
	ts, dur       string // raw numbers (µs)
	corr, device  int64
}

var eventHints = fastjson.HintKeys("ph", "cat", "name", "pid", "tid", "ts", "dur", "args")

// readKineto reads one Kineto trace into a capture, keeping at most
// lim.MaxSpans records (activities, launches and ranges together).
func readKineto(name string, r io.Reader, lim ingest.Limits) (*capture, error) {
	cr := &countingReader{r: r}
	s := &fastjson.Scanner{R: cr, Keep: -1, MaxDepth: lim.MaxDepth, MaxTok: lim.MaxTokenBytes}
	c := newCapture(name, "kineto", lim.MaxStringBytes)
	pos := func() int64 { return cr.n - int64(len(s.Buf)) + int64(s.Pos()) }
	fail := func(what string) error {
		err := errors.New(what)
		if s.ReadErr != nil {
			err = fmt.Errorf("%s: %w", what, s.ReadErr)
		}
		return ingest.ErrorAt(name, pos(), fmt.Errorf("kineto: %w", err))
	}
	if s.SkipWS() != '{' {
		return nil, fail("expected a JSON object (a Chrome trace)")
	}
	seen := false
	records, bad := 0, 0
	var ev kinetoEvent
	ok := s.Object(func(key string) bool {
		switch key {
		case "traceEvents":
			seen = true
			return s.Array(func() bool {
				if !readEvent(s, &ev) {
					return false
				}
				if ev.ph == "X" && records < lim.MaxSpans {
					switch c.addEvent(&ev) {
					case eventKept:
						records++
					case eventBad:
						bad++
					}
				} else if ev.ph == "X" && c.kind(&ev) != eventSkipped {
					c.dropped++
				}
				s.Recycle() // nothing views the buffers now: the event's strings are interned
				return true
			})
		case "distributedInfo":
			return s.Object(func(key string) bool {
				if key == "rank" {
					if v, ok := s.Int(); ok {
						c.rank = int(v)
						return true
					}
					return false
				}
				_, ok := s.Value(3)
				return ok
			})
		}
		_, ok := s.Value(2)
		return ok
	})
	if !ok || !s.AtEnd() {
		if errors.Is(s.ReadErr, ingest.ErrLimit) {
			return nil, &ingest.InputError{File: name, Offset: pos(), Err: s.ReadErr}
		}
		return nil, fail("malformed JSON")
	}
	if !seen {
		return nil, ingest.ErrorAt(name, pos(), errors.New("kineto: no traceEvents"))
	}
	if bad > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%s: %d events with a bad time or without the fields they need skipped", name, bad))
	}
	if c.dropped > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%s: %d events beyond %d records (--max-spans) dropped", name, c.dropped, lim.MaxSpans))
	}
	return c, nil
}

// readEvent reads one event object into ev (views).
func readEvent(s *fastjson.Scanner, ev *kinetoEvent) bool {
	*ev = kinetoEvent{corr: -1, device: -1}
	return s.ObjectHinted(eventHints, func(key string) bool {
		var ok bool
		switch key {
		case "ph":
			ev.ph, ok = s.Str()
		case "cat":
			ev.cat, ok = s.Str()
		case "name":
			ev.name, ok = s.Str()
		case "pid":
			ev.pid, ok = scalar(s)
		case "tid":
			ev.tid, ok = scalar(s)
		case "ts":
			ev.ts, ok = number(s)
		case "dur":
			ev.dur, ok = number(s)
		case "args":
			if s.SkipWS() != '{' {
				_, ok = s.Value(3)
				return ok
			}
			return s.Object(func(key string) bool {
				switch key {
				case "correlation":
					if v, ok := s.Int(); ok {
						ev.corr = v
						return true
					}
				case "device":
					if v, ok := s.Int(); ok {
						ev.device = v
						return true
					}
				}
				_, ok := s.Value(4)
				return ok
			})
		default:
			_, ok = s.Value(3)
		}
		return ok
	})
}

// scalar reads a string or a number as text (pid and tid are either).
func scalar(s *fastjson.Scanner) (string, bool) {
	if s.SkipWS() == '"' {
		return s.Str()
	}
	v, ok := s.Value(3)
	if !ok || len(v) == 0 || v[0] == '{' || v[0] == '[' {
		return "", ok
	}
	return unsafe.String(&v[0], len(v)), true // a view, like Str's
}

// number reads a number's raw text.
func number(s *fastjson.Scanner) (string, bool) {
	v, ok := s.Value(3)
	if !ok || len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return "", ok
	}
	return unsafe.String(&v[0], len(v)), true // a view, like Str's
}

// eventClass is what addEvent did with an event.
type eventClass uint8

const (
	eventSkipped eventClass = iota // not an event the attribution uses
	eventKept
	eventBad // one it uses, but broken (a bad time)
)

// kind says whether an event would be kept, without keeping it.
func (c *capture) kind(ev *kinetoEvent) eventClass {
	switch ev.cat {
	case "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_runtime", "cuda_driver", "Runtime", "Driver",
		"cpu_op", "Operator", "user_annotation", "gpu_user_annotation":
		return eventKept
	case "python_function":
		if strings.HasPrefix(ev.name, "nn.Module: ") {
			return eventKept
		}
	}
	return eventSkipped
}

// addEvent keeps what the attribution needs of a complete event.
func (c *capture) addEvent(ev *kinetoEvent) eventClass {
	if c.kind(ev) == eventSkipped {
		return eventSkipped
	}
	ts, ok1 := microsToNanos(ev.ts)
	dur, ok2 := microsToNanos(ev.dur)
	if !ok1 || !ok2 || dur < 0 || ts > math.MaxInt64-dur {
		return eventBad
	}
	switch ev.cat {
	case "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset":
		k := kernel{start: ts, dur: dur, corr: ev.corr, gpuTrack: c.thread(ev.pid, ev.tid)}
		switch ev.cat {
		case "kernel", "Kernel":
			k.name = c.names.id(kernelName(ev.name))
		case "gpu_memcpy", "Memcpy":
			k.kind, k.name = actMemcpy, c.names.id(memName(ev.name, "memcpy"))
		default:
			k.kind, k.name = actMemset, c.names.id("memset")
		}
		c.kernels = append(c.kernels, k)
	case "cuda_runtime", "cuda_driver", "Runtime", "Driver":
		if ev.corr < 0 {
			return eventSkipped
		}
		c.launches = append(c.launches, launch{corr: ev.corr, thread: c.thread(ev.pid, ev.tid), ts: ts})
	case "gpu_user_annotation":
		c.gpuRanges = append(c.gpuRanges, span{thread: c.thread(ev.pid, ev.tid), start: ts, end: ts + dur, name: c.names.id(normalizeRange(ev.name)), kind: rangeAnnotation})
	default:
		kind := rangeOp
		n := ev.name
		if ev.cat != "cpu_op" && ev.cat != "Operator" {
			kind = rangeAnnotation
			n = normalizeRange(n)
			if isStep(n) {
				kind = rangeStep
			}
		}
		c.ranges = append(c.ranges, span{thread: c.thread(ev.pid, ev.tid), start: ts, end: ts + dur, name: c.names.id(n), kind: kind})
	}
	return eventKept
}

// memName names a copy by its direction when Kineto's name has one
// ("Memcpy HtoD (Pageable -> Device)" → "memcpy HtoD").
func memName(n, kind string) string {
	for _, d := range []string{"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"} {
		if strings.Contains(n, d) {
			return kind + " " + d
		}
	}
	return kind
}

// microsToNanos converts a JSON number of microseconds to integer
// nanoseconds exactly (epoch microseconds times 1000 exceed float64's
// integer precision, so integer and fraction are handled apart): digits,
// an optional sign, fraction (rounded to the nanosecond) and exponent.
func microsToNanos(str string) (int64, bool) {
	if str == "" {
		return 0, false
	}
	// The common case, "[-]digits[.digits]", without allocating.
	i, neg := 0, false
	if str[0] == '-' {
		neg, i = true, 1
	}
	var whole int64
	digits := 0
	for ; i < len(str) && str[i] >= '0' && str[i] <= '9'; i++ {
		if whole > (math.MaxInt64/1000-9)/10 {
			return 0, false
		}
		whole = whole*10 + int64(str[i]-'0')
		digits++
	}
	var frac, scale int64 = 0, 1000 // frac in units of 1/scale µs, down to ns
	if i < len(str) && str[i] == '.' {
		i++
		var rest int64
		n := 0
		for ; i < len(str) && str[i] >= '0' && str[i] <= '9'; i++ {
			if n < 4 { // one digit past the nanosecond, for rounding
				rest = rest*10 + int64(str[i]-'0')
				n++
			}
			digits++
		}
		for ; n < 4; n++ {
			rest *= 10
		}
		frac = (rest + 5) / 10 // rounded to ns
		scale = 1
	}
	if i == len(str) && digits > 0 {
		ns := whole*1000 + frac
		if scale == 1000 {
			ns = whole * 1000
		}
		if neg {
			ns = -ns
		}
		return ns, true
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/1000 {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}
