package profdiff

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu"
)

// The one capture model both readers fill (a rank: one Kineto trace or one
// Nsight export) and the attribution of its GPU work to steps, layers and
// kernels.

// actKind is a GPU activity's kind.
type actKind uint8

const (
	actKernel actKind = iota
	actMemcpy
	actMemset
)

// kernel is one GPU activity (a kernel, a copy or a set): where and when
// it ran, and the correlation of the host call that launched it.
type kernel struct {
	name       int32 // short kernel name (names); "memcpy …"/"memset" for the others
	kind       actKind
	start, dur int64 // ns on the capture's clock
	corr       int64 // launch correlation, -1 when unknown
	gpuTrack   int32 // device/stream track (Kineto: pid/tid of the GPU row) for GPU-side annotations, -1 unknown
}

// launch is the host call that launched a kernel: its thread and time.
type launch struct {
	corr   int64
	thread int32 // thread key (threads)
	ts     int64
}

// rangeKind is what a host-side range is.
type rangeKind uint8

const (
	rangeAnnotation rangeKind = iota // record_function / NVTX / nn.Module: a layer
	rangeOp                          // an operator (cpu_op): a frame of the launch stack
	rangeStep                        // ProfilerStep: an iteration
)

// span is one range on a thread (host) or a GPU track (GPU-side
// annotations).
type span struct {
	thread     int32 // thread key, or GPU track
	start, end int64
	name       int32 // normalised name (names)
	kind       rangeKind
}

// names interns strings: a capture repeats a few thousand kernel and range
// names millions of times.
type names struct {
	idx  map[string]int32
	list []string
	max  int // bytes kept of one name
}

func newNames(max int) *names { return &names{idx: map[string]int32{}, max: max} }

// id returns s's index, copying s the first time (s may be a view into a
// read buffer). A name over max bytes is cut.
func (n *names) id(s string) int32 {
	if len(s) > n.max {
		s = s[:n.max]
	}
	if i, ok := n.idx[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := int32(len(n.list))
	n.idx[s] = i
	n.list = append(n.list, s)
	return i
}

// capture is what a reader collected of one rank.
type capture struct {
	file, format string
	rank         int // -1 when the file does not say
	names        *names
	kernels      []kernel
	launches     []launch
	ranges       []span // host ranges
	gpuRanges    []span // GPU-side annotations (Kineto gpu_user_annotation)
	threads      map[[2]string]int32
	lastPid      string // thread's cache
	lastTid      string
	lastThread   int32
	warnings     []string
	dropped      int // activities beyond the budget
}

func newCapture(file, format string, maxName int) *capture {
	return &capture{file: file, format: format, rank: -1, names: newNames(maxName), threads: map[[2]string]int32{}, lastThread: -1}
}

// thread returns the key of a thread named by its process and thread IDs
// (views are fine: the strings are copied when new). The last thread is
// cached: events come in runs of one thread.
func (c *capture) thread(pid, tid string) int32 {
	if c.lastThread >= 0 && c.lastPid == pid && c.lastTid == tid {
		return c.lastThread
	}
	k := [2]string{pid, tid}
	t, ok := c.threads[k]
	if !ok {
		k = [2]string{strings.Clone(pid), strings.Clone(tid)}
		t = int32(len(c.threads))
		c.threads[k] = t
	}
	c.lastPid, c.lastTid, c.lastThread = k[0], k[1], t
	return t
}

// instanceSuffix matches the per-instance parts of range names: PyTorch's
// "#123" counters (ProfilerStep#7) and NVTX's ", seq = 12" / ", op_id = 3"
// (torch.autograd.profiler.emit_nvtx).
var instanceSuffix = regexp.MustCompile(`(#\d+|, (seq|op_id) = \d+)+$`)

// normalizeRange is a range's name without its instance counters.
func normalizeRange(s string) string {
	return strings.TrimSpace(instanceSuffix.ReplaceAllString(s, ""))
}

// isStep reports PyTorch's iteration range (profiler.step(): ProfilerStep#N).
func isStep(normalized string) bool { return normalized == "ProfilerStep" }

// kernelName is gpu.ShortKernelName, the name ingest's timeline gives a
// kernel.
func kernelName(s string) string { return gpu.ShortKernelName(s) }

// instance is one occurrence of a layer (an annotation range) or a step,
// and the GPU time of the work launched inside it.
type instance struct {
	name int32
	gpu  int64 // ns of kernel time launched inside (nested ranges included)
}

// attributed is a capture's GPU work grouped for the comparison.
type attributed struct {
	// layers: per layer key, the GPU time of each instance (ns).
	layers map[string][]float64
	// layerSource: how each layer key was formed ("annotation",
	// "gpu annotation", "launch stack").
	layerSource map[string]string
	// kernels: per kernel name, each launch's duration (ns).
	kernels map[string][]float64
	// steps: GPU time of each step (ns); stepWall: each step range's own
	// duration (ns), empty without step annotations.
	steps, stepWall []float64
	gpuTotal        int64 // all activity time (ns)
	nkernels        int
}

// maxStackFrames is how many operator frames, from the outermost, name an
// unannotated kernel's launch stack.
const maxStackFrames = 3

// attribute assigns every GPU activity of c to its step (the step range of
// its launching process open at the launch), its layers (the annotation
// ranges on the launching thread that enclose the launch, innermost and
// outer ones alike: a layer's time includes its sublayers'; without any,
// the GPU-side annotation holding the kernel; without that either, the
// kernel's name under its collapsed launch stack of operators) and its
// kernel name. O((K + R) log(K + R)) for K activities and R ranges.
func (c *capture) attribute() *attributed {
	a := &attributed{layers: map[string][]float64{}, layerSource: map[string]string{}, kernels: map[string][]float64{}}
	slices.SortFunc(c.launches, func(x, y launch) int { return cmp.Compare(x.corr, y.corr) })
	launchOf := func(corr int64) (launch, bool) {
		if corr < 0 {
			return launch{}, false
		}
		i, ok := slices.BinarySearchFunc(c.launches, corr, func(l launch, k int64) int { return cmp.Compare(l.corr, k) })
		if !ok {
			return launch{}, false
		}
		return c.launches[i], true
	}
	// Per kernel: its enclosing host ranges, from a sweep per thread.
	type ref struct{ k, thread int32 }
	// enclosing is a kernel's host ranges in pool: nAnn annotation ranges
	// (outermost first) from off, then nOps operator frames.
	type enclosing struct {
		off        int32
		nAnn, nOps uint8
	}
	var pool []int32
	enc := make([]enclosing, len(c.kernels))
	launchTS := make([]int64, len(c.kernels))
	var byThread []ref
	for i := range c.kernels {
		launchTS[i] = -1
		if l, ok := launchOf(c.kernels[i].corr); ok {
			launchTS[i] = l.ts
			byThread = append(byThread, ref{int32(i), l.thread})
		}
	}
	slices.SortFunc(byThread, func(x, y ref) int {
		return cmp.Or(cmp.Compare(x.thread, y.thread), cmp.Compare(launchTS[x.k], launchTS[y.k]), cmp.Compare(x.k, y.k))
	})
	order := make([]int32, len(c.ranges))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		rx, ry := &c.ranges[x], &c.ranges[y]
		return cmp.Or(cmp.Compare(rx.thread, ry.thread), cmp.Compare(rx.start, ry.start), cmp.Compare(ry.end, rx.end), cmp.Compare(x, y))
	})
	var stack []int32
	ri := 0
	thread := int32(-1)
	for _, r := range byThread {
		if r.thread != thread {
			thread, stack = r.thread, stack[:0]
			for ri < len(order) && c.ranges[order[ri]].thread < thread {
				ri++
			}
		}
		ts := launchTS[r.k]
		for ri < len(order) && c.ranges[order[ri]].thread == thread && c.ranges[order[ri]].start <= ts {
			rg := order[ri]
			for len(stack) > 0 && c.ranges[stack[len(stack)-1]].end < c.ranges[rg].start {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, rg)
			ri++
		}
		for len(stack) > 0 && c.ranges[stack[len(stack)-1]].end < ts {
			stack = stack[:len(stack)-1]
		}
		e := &enc[r.k]
		e.off = int32(len(pool))
		for _, rg := range stack { // annotations first, then the outermost operators
			if c.ranges[rg].end >= ts && c.ranges[rg].kind == rangeAnnotation && e.nAnn < 255 {
				pool = append(pool, rg)
				e.nAnn++
			}
		}
		for _, rg := range stack {
			if c.ranges[rg].end >= ts && c.ranges[rg].kind == rangeOp && e.nOps < maxStackFrames {
				pool = append(pool, rg)
				e.nOps++
			}
		}
	}
	// Steps: the step ranges of the launching process by time, any thread
	// (backward passes launch from their own threads).
	type stepRange struct {
		start, end int64
		gpu        int64
		idx        int32
	}
	var steps []stepRange
	for i, rg := range c.ranges {
		if rg.kind == rangeStep {
			steps = append(steps, stepRange{start: rg.start, end: rg.end, idx: int32(i)})
		}
	}
	slices.SortFunc(steps, func(x, y stepRange) int { return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.idx, y.idx)) })
	// GPU-side annotations per track, for kernels without a host one.
	slices.SortFunc(c.gpuRanges, func(x, y span) int {
		return cmp.Or(cmp.Compare(x.thread, y.thread), cmp.Compare(x.start, y.start), cmp.Compare(y.end, x.end))
	})
	gpuAnnotation := func(k *kernel) (int32, bool) {
		if k.gpuTrack < 0 || len(c.gpuRanges) == 0 {
			return 0, false
		}
		// The innermost GPU range of the track that holds the kernel's start.
		i, _ := slices.BinarySearchFunc(c.gpuRanges, span{thread: k.gpuTrack, start: k.start + 1}, func(x, y span) int {
			return cmp.Or(cmp.Compare(x.thread, y.thread), cmp.Compare(x.start, y.start))
		})
		best, found := int32(0), false
		for j := i - 1; j >= 0 && c.gpuRanges[j].thread == k.gpuTrack; j-- {
			g := &c.gpuRanges[j]
			if g.end >= k.start && !isStep(c.names.list[g.name]) {
				best, found = g.name, true
				break
			}
			if k.start-g.start > 60e9 { // no annotation spans a minute
				break
			}
		}
		return best, found
	}
	// Instances of annotation ranges: GPU time launched inside.
	annGPU := map[int32]int64{}
	for i := range c.kernels {
		k := &c.kernels[i]
		d := k.dur
		a.gpuTotal += d
		a.nkernels++
		kn := c.names.list[k.name]
		a.kernels[kn] = append(a.kernels[kn], float64(d))
		if ts := launchTS[i]; ts >= 0 && len(steps) > 0 {
			j, _ := slices.BinarySearchFunc(steps, ts+1, func(s stepRange, t int64) int { return cmp.Compare(s.start, t) })
			if j > 0 && steps[j-1].end >= ts {
				steps[j-1].gpu += d
			}
		}
		e := &enc[i]
		switch {
		case e.nAnn > 0:
			for _, rg := range pool[e.off : e.off+int32(e.nAnn)] {
				annGPU[rg] += d
			}
		default:
			if g, ok := gpuAnnotation(k); ok {
				key := c.names.list[g]
				a.layers[key] = append(a.layers[key], float64(d))
				a.layerSource[key] = "gpu annotation"
				continue
			}
			var frames []string
			for _, rg := range pool[e.off+int32(e.nAnn) : e.off+int32(e.nAnn)+int32(e.nOps)] {
				frames = append(frames, c.names.list[c.ranges[rg].name])
			}
			key := kn
			if len(frames) > 0 {
				key = strings.Join(frames, ";") + ";" + kn
			}
			a.layers[key] = append(a.layers[key], float64(d))
			a.layerSource[key] = "launch stack"
		}
	}
	// Annotation instances in range order (deterministic), only those that
	// launched GPU work.
	anns := make([]int32, 0, len(annGPU))
	for rg := range annGPU {
		anns = append(anns, rg)
	}
	slices.Sort(anns)
	for _, rg := range anns {
		key := c.names.list[c.ranges[rg].name]
		a.layers[key] = append(a.layers[key], float64(annGPU[rg]))
		a.layerSource[key] = "annotation"
	}
	for _, s := range steps {
		a.steps = append(a.steps, float64(s.gpu))
		a.stepWall = append(a.stepWall, float64(s.end-s.start))
	}
	if len(steps) == 0 {
		a.steps = []float64{float64(a.gpuTotal)}
	}
	return a
}
