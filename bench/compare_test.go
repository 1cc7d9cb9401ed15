package bench

import (
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// compareSizes are the compare benchmark's bundles: the million-span
// incident of the performance table and its fixed follow-up.
var compareSizes = [2]Size{
	{Name: "1M-3000", Spans: 1_000_000, Series: 3000, TraceFiles: 4},
	{Name: "1M-3000-fixed", Spans: 1_000_000, Series: 3000, TraceFiles: 4, Fixed: true},
}

// cpuSeconds is the process's user+system CPU time so far: a measure that,
// unlike wall time, does not depend on how busy the shared machine is.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// halfWindow is the second half of a bundle's data: about half its spans.
func halfWindow(b *ingest.Bundle) (ingest.Time, ingest.Time) {
	mid := b.Spans[len(b.Spans)/2].Start
	return mid, b.Spans[len(b.Spans)-1].Start.Add(time.Nanosecond)
}

// BenchmarkCompare compares two windows of about 500k spans each (the second
// half of the million-span incident and of its fixed follow-up, each with
// the first half as BEFORE's baseline) and 3,000 series: compare.Run alone,
// the bundles read beforehand. PA_BENCH_BIG=1 runs it.
func BenchmarkCompare(b *testing.B) {
	before := readBundle(b, bundleDir(b, compareSizes[0]))
	after := readBundle(b, bundleDir(b, compareSizes[1]))
	b0, b1 := halfWindow(before)
	a0, a1 := halfWindow(after)
	spans := func(bd *ingest.Bundle, lo, hi ingest.Time) int {
		i := sort.Search(len(bd.Spans), func(k int) bool { return bd.Spans[k].Start >= lo })
		j := sort.Search(len(bd.Spans), func(k int) bool { return bd.Spans[k].Start >= hi })
		return j - i
	}
	nb, na := spans(before, b0, b1), spans(after, a0, a1)
	opt := compare.DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	var rep *model.Report
	var err error
	cpu0 := cpuSeconds()
	for b.Loop() {
		rep, err = compare.Run(compare.Side{Bundle: before, Start: b0, End: b1}, compare.Side{Bundle: after, Start: a0, End: a1}, opt)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(nb), "before-spans")
	b.ReportMetric(float64(na), "after-spans")
	b.ReportMetric(float64(len(rep.Items)), "items")
}
