package gpu

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The GPU-timeline derivation the Nsight and Kineto readers share
// (ingest/gpu/nsight, ingest/gpu/kineto): GPU activity intervals (kernels,
// memcpy, memset) and host-side sync calls are bucketed per device into
// series.

// ActKind is the kind of a GPU activity interval.
type ActKind uint8

const (
	ActKernel ActKind = iota
	ActMemcpy
	ActMemset
)

// Interval is one GPU activity: [Start, End) in nanoseconds on the
// trace's own clock (absolute once the base is added).
type Interval struct {
	Dev        int
	Start, End int64
	Kind       ActKind
	Name       string // short kernel name (kernels only)
}

// HostInterval is one host-side blocking CUDA call; Dev is -1 when the call
// cannot be placed on a device.
type HostInterval struct {
	Dev        int
	Start, End int64
}

// Timeline is what a GPU trace reader collected before derivation.
type Timeline struct {
	Prefix string // series name prefix: "nsys" or "kineto"
	Acts   []Interval
	Stalls []HostInterval
	Base   int64 // added to every timestamp to get Unix ns
	Entity func(dev int) ingest.Entity
}

// maxTraceDevices is the most GPUs of one trace given timeline series (no
// machine a profiler runs on has more).
const maxTraceDevices = 1024

// topKernels is how many kernels (by total time) get per-kernel series.
const topKernels = 20

// timelineStep picks the bucket width for a trace of the given span: 100 ms,
// unless that gives fewer than 50 or more than 500 buckets, in which case a
// 1-2-5 step giving 50..500 buckets is chosen (never below 1 µs).
func timelineStep(span int64) time.Duration {
	const def = int64(100 * time.Millisecond)
	if span <= 0 {
		return time.Duration(def)
	}
	n := span / def
	if n >= 50 && n <= 500 {
		return time.Duration(def)
	}
	var steps []int64
	for p := int64(1000); p <= int64(1e15); p *= 10 {
		steps = append(steps, p, 2*p, 5*p)
	}
	if n < 50 { // the largest nice step giving at least 50 buckets
		best := steps[0]
		for _, s := range steps {
			if span/s >= 50 {
				best = s
			}
		}
		return time.Duration(best)
	}
	for _, s := range steps { // the smallest nice step giving at most 500
		if span/s+min(span%s, 1) <= 500 { // ⌈span/s⌉ without overflow
			return time.Duration(s)
		}
	}
	return time.Duration(steps[len(steps)-1])
}

// ShortKernelName reduces a demangled kernel name to something readable:
// "void at::native::(anonymous namespace)::foo<float, 4>(...)" → "at::native::foo".
func ShortKernelName(n string) string {
	n = strings.TrimSpace(strings.TrimPrefix(n, "void "))
	n = strings.ReplaceAll(n, "(anonymous namespace)::", "")
	if i := strings.IndexAny(n, "<("); i > 0 {
		n = n[:i]
	}
	n = strings.TrimSpace(n)
	if len(n) > 120 {
		n = n[:120]
	}
	return n
}

// overlapAdd adds the overlap of [s,e) with each bucket to acc.
func overlapAdd(acc []float64, t0, step, s, e int64) {
	if e <= s {
		return
	}
	for i := max(0, (s-t0)/step); i < int64(len(acc)); i++ {
		bs := t0 + i*step
		if bs >= e {
			break
		}
		be := bs + step
		acc[i] += float64(min(e, be) - max(s, bs))
	}
}

// union merges intervals (sorted in place by start) into disjoint ones.
func union(iv [][2]int64) [][2]int64 {
	sort.Slice(iv, func(i, j int) bool {
		if iv[i][0] != iv[j][0] {
			return iv[i][0] < iv[j][0]
		}
		return iv[i][1] < iv[j][1]
	})
	var out [][2]int64
	for _, x := range iv {
		if n := len(out); n > 0 && x[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

// Derive turns the timeline into series on a common bucket grid. Per device:
// <p>_gpu_busy_ratio (union of kernel+memcpy+memset time / bucket),
// <p>_kernel_count (kernels starting in the bucket), <p>_kernel_mean_duration_seconds,
// <p>_launch_gap_seconds (mean idle time before each kernel since the end of
// the previous ones; NaN when no kernel started), and, when host calls were
// seen, <p>_host_sync_stall_ratio. For the top 20 kernels by total time:
// <p>_kernel_mean_duration_seconds and <p>_kernel_launches with label kernel,
// with points only in the buckets where that kernel started.
//
// Devices are kept in ID order while their series fit lim.MaxSeries and
// lim.MaxPoints (a trace naming 100k devices would otherwise allocate
// series for all); the rest are dropped with an ErrLimit warning.
// Its length is the fixed list of series it emits, each a few lines over
// the same buckets; split, each piece would take the whole bucket state.
func (tl *Timeline) Derive(b *ingest.Bundle, source string, lim ingest.Limits) {
	lim = lim.WithDefaults()
	// Intervals whose Unix time (t+Base) is negative or overflows, or that
	// end before they start, would overflow the bucket arithmetic below
	// (found by FuzzNsightSQLite): drop and count them.
	absOK := func(t int64) bool { // 0 <= t+Base <= MaxInt64, without overflow
		if tl.Base >= 0 {
			return t >= -tl.Base && t <= math.MaxInt64-tl.Base
		}
		return tl.Base != math.MinInt64 && t >= -tl.Base
	}
	okTime := func(s, e int64) bool { return e >= s && absOK(s) && absOK(e) }
	bad := len(tl.Acts) + len(tl.Stalls)
	tl.Acts = slices.DeleteFunc(tl.Acts, func(a Interval) bool { return !okTime(a.Start, a.End) })
	tl.Stalls = slices.DeleteFunc(tl.Stalls, func(h HostInterval) bool { return !okTime(h.Start, h.End) })
	if bad -= len(tl.Acts) + len(tl.Stalls); bad > 0 {
		b.Warn(ingest.ErrBadValue, source, bad, "%d GPU activities have a time before 1970, beyond 2262 or an end before their start (dropped)", bad)
	}
	tl.dropFarIntervals(b, source)
	if len(tl.Acts) == 0 {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, a := range tl.Acts {
		lo, hi = min(lo, a.Start), max(hi, a.End)
	}
	for _, h := range tl.Stalls {
		lo, hi = min(lo, h.Start), max(hi, h.End)
	}
	lo, hi = lo+tl.Base, hi+tl.Base
	step := int64(timelineStep(hi - lo))
	t0 := lo - ((lo%step)+step)%step
	n := int((hi-t0)/step) + 1
	times := make([]ingest.Time, n)
	for i := range times {
		times[i] = ingest.Time(t0 + int64(i)*step)
	}
	bucket := func(t int64) int { return int((t - t0) / step) }

	devSet := map[int]bool{}
	for _, a := range tl.Acts {
		devSet[a.Dev] = true
	}
	devs := make([]int, 0, len(devSet))
	for d := range devSet {
		devs = append(devs, d)
	}
	sort.Ints(devs)
	perDev := 4
	if len(tl.Stalls) > 0 {
		perDev++
	}
	budget := max(lim.MaxSeries-len(b.Series)-2*topKernels, perDev) / perDev
	budget = min(budget, max(lim.MaxPoints/max(n*perDev, 1), 1), maxTraceDevices)
	if len(devs) > budget {
		b.Warn(ingest.ErrLimit, source, len(devs)-budget, "%d of %d GPUs dropped: kept the first %d (at most %d GPUs per trace, within --max-series %d and --max-points %d)",
			len(devs)-budget, len(devs), budget, maxTraceDevices, lim.MaxSeries, lim.MaxPoints)
		keep := map[int]bool{}
		for _, d := range devs[:budget] {
			keep[d] = true
		}
		devs = devs[:budget]
		tl.Acts = slices.DeleteFunc(tl.Acts, func(a Interval) bool { return !keep[a.Dev] })
		tl.Stalls = slices.DeleteFunc(tl.Stalls, func(h HostInterval) bool { return !keep[h.Dev] })
	}
	byDev := map[int][]Interval{}
	for _, a := range tl.Acts {
		a.Start += tl.Base
		a.End += tl.Base
		byDev[a.Dev] = append(byDev[a.Dev], a)
	}
	mk := func(name string, e ingest.Entity, dev int, sig ingest.SignalKind, stat, unit string, extra ...ingest.Label) *ingest.Series {
		ls := append(ingest.Labels{{Name: "device", Value: strconv.Itoa(dev)}, {Name: "gpu", Value: e.Name}}, extra...)
		ingest.SortLabels(ls)
		return &ingest.Series{Name: tl.Prefix + "_" + name, Labels: ls, Entity: e, Signal: sig, Stat: stat, Unit: unit, Source: source}
	}
	full := func(v []float64) ([]ingest.Time, []float64) { return append([]ingest.Time(nil), times...), v }
	for _, d := range devs {
		e := tl.Entity(d)
		acts := byDev[d]
		var iv [][2]int64
		busy := make([]float64, n)
		count := make([]float64, n)
		durSum := make([]float64, n)
		gapSum := make([]float64, n)
		gapN := make([]float64, n)
		var kernels []Interval
		for _, a := range acts {
			iv = append(iv, [2]int64{a.Start, a.End})
			if a.Kind == ActKernel {
				kernels = append(kernels, a)
			}
		}
		for _, x := range union(iv) {
			overlapAdd(busy, t0, step, x[0], x[1])
		}
		sort.Slice(kernels, func(i, j int) bool {
			if kernels[i].Start != kernels[j].Start {
				return kernels[i].Start < kernels[j].Start
			}
			return kernels[i].End < kernels[j].End
		})
		var lastEnd int64
		for i, k := range kernels {
			bi := bucket(k.Start)
			count[bi]++
			durSum[bi] += float64(k.End-k.Start) / 1e9
			if i > 0 {
				gapSum[bi] += float64(max(0, k.Start-lastEnd)) / 1e9
				gapN[bi]++
			}
			lastEnd = max(lastEnd, k.End)
		}
		mean, gap := make([]float64, n), make([]float64, n)
		for i := range busy {
			busy[i] /= float64(step)
			mean[i], gap[i] = math.NaN(), math.NaN()
			if count[i] > 0 {
				mean[i] = durSum[i] / count[i]
			}
			if gapN[i] > 0 {
				gap[i] = gapSum[i] / gapN[i]
			}
		}
		for _, s := range []struct {
			name, stat, unit string
			sig              ingest.SignalKind
			v                []float64
		}{
			{"gpu_busy_ratio", "ratio", "ratio", ingest.SignalGPUUtil, busy},
			{"kernel_count", "count", "", ingest.SignalGPUUtil, count},
			{"kernel_mean_duration_seconds", "mean", "s", ingest.SignalOther, mean},
			{"launch_gap_seconds", "mean", "s", ingest.SignalOther, gap},
		} {
			sr := mk(s.name, e, d, s.sig, s.stat, s.unit)
			sr.T, sr.V = full(s.v)
			b.Series = append(b.Series, sr)
		}
		if len(tl.Stalls) > 0 {
			var hv [][2]int64
			for _, h := range tl.Stalls {
				if h.Dev == d {
					hv = append(hv, [2]int64{h.Start + tl.Base, h.End + tl.Base})
				}
			}
			stall := make([]float64, n)
			for _, x := range union(hv) {
				overlapAdd(stall, t0, step, x[0], x[1])
			}
			for i := range stall {
				stall[i] /= float64(step)
			}
			sr := mk("host_sync_stall_ratio", e, d, ingest.SignalOther, "ratio", "ratio")
			sr.T, sr.V = full(stall)
			b.Series = append(b.Series, sr)
		}
	}
	tl.deriveKernels(b, source, t0, step, mk)
}

// deriveKernels emits the per-kernel series of the top kernels by total time.
func (tl *Timeline) deriveKernels(b *ingest.Bundle, source string, t0, step int64,
	mk func(string, ingest.Entity, int, ingest.SignalKind, string, string, ...ingest.Label) *ingest.Series) {
	type kkey struct {
		dev  int
		name string
	}
	type kstat struct {
		key   kkey
		total int64
		count int
	}
	stats := map[kkey]*kstat{}
	for _, a := range tl.Acts {
		if a.Kind != ActKernel {
			continue
		}
		k := kkey{a.Dev, a.Name}
		st := stats[k]
		if st == nil {
			st = &kstat{key: k}
			stats[k] = st
		}
		st.total += a.End - a.Start
		st.count++
	}
	list := make([]*kstat, 0, len(stats))
	for _, st := range stats {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].total != list[j].total {
			return list[i].total > list[j].total
		}
		if list[i].key.dev != list[j].key.dev {
			return list[i].key.dev < list[j].key.dev
		}
		return list[i].key.name < list[j].key.name
	})
	if len(list) > topKernels {
		list = list[:topKernels]
	}
	type acc struct {
		sum map[int64]float64
		n   map[int64]float64
	}
	accs := map[kkey]*acc{}
	for _, st := range list {
		accs[st.key] = &acc{sum: map[int64]float64{}, n: map[int64]float64{}}
	}
	for _, a := range tl.Acts {
		ac := accs[kkey{a.Dev, a.Name}]
		if a.Kind != ActKernel || ac == nil {
			continue
		}
		bs := t0 + (a.Start+tl.Base-t0)/step*step
		ac.sum[bs] += float64(a.End-a.Start) / 1e9
		ac.n[bs]++
	}
	for _, st := range list {
		ac := accs[st.key]
		keys := make([]int64, 0, len(ac.n))
		for k := range ac.n {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		e := tl.Entity(st.key.dev)
		md := mk("kernel_mean_duration_seconds", e, st.key.dev, ingest.SignalOther, "mean", "s", ingest.Label{Name: "kernel", Value: st.key.name})
		ln := mk("kernel_launches", e, st.key.dev, ingest.SignalOther, "count", "", ingest.Label{Name: "kernel", Value: st.key.name})
		for _, k := range keys {
			md.T, md.V = append(md.T, ingest.Time(k)), append(md.V, ac.sum[k]/ac.n[k])
			ln.T, ln.V = append(ln.T, ingest.Time(k)), append(ln.V, ac.n[k])
		}
		b.Series = append(b.Series, md, ln)
	}
}

// IsSyncCall reports whether a CUDA runtime/driver API name blocks the host
// until the GPU catches up (synchronize calls, synchronous memcpy/memset).
func IsSyncCall(name string) bool {
	if i := strings.Index(name, "_v"); i > 0 {
		name = name[:i]
	}
	if strings.Contains(name, "Synchronize") {
		return true
	}
	for _, p := range []string{"cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset"} {
		if strings.HasPrefix(name, p) && !strings.Contains(name, "Async") {
			return true
		}
	}
	return false
}

// dropFarIntervals drops the activities and host calls of a GPU timeline
// that start or end far outside the robust range of all their start and end
// times (see RobustRange), with an ErrBadValue warning: the timeline's step
// and length then come from the bulk of the trace, never from one row
// spanning centuries.
func (tl *Timeline) dropFarIntervals(b *ingest.Bundle, source string) {
	n := len(tl.Acts) + len(tl.Stalls)
	stride := max(1, (2*n+ingest.OutlierSamples-1)/ingest.OutlierSamples)
	ts := make([]int64, 0, 2*n/stride+2)
	i := 0
	sample := func(s, e int64) {
		if i%stride == 0 {
			ts = append(ts, s, e)
		}
		i++
	}
	for _, a := range tl.Acts {
		sample(a.Start, a.End)
	}
	for _, h := range tl.Stalls {
		sample(h.Start, h.End)
	}
	slices.Sort(ts)
	lo, hi := ingest.RobustRange(ts, ingest.OutlierMinMargin)
	far := func(s, e int64) bool { return s < lo || e > hi }
	tl.Acts = slices.DeleteFunc(tl.Acts, func(a Interval) bool { return far(a.Start, a.End) })
	tl.Stalls = slices.DeleteFunc(tl.Stalls, func(h HostInterval) bool { return far(h.Start, h.End) })
	if d := n - len(tl.Acts) - len(tl.Stalls); d > 0 {
		b.Warn(ingest.ErrBadValue, source, d, "%d GPU activities or blocking calls start or end far outside the rest of the trace (dropped): the timeline is built from the bulk of the trace", d)
	}
}
