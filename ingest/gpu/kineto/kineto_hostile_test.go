package kineto

import (
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

// Hostile and extreme GPU inputs (moved from the core's sanity and time-bound tests).

// TestNsightHostile: a kernel "table" that is a view over an endless
// recursive CTE is not read; blob cells are never loaded; rows are capped.
// TestGPUDeviceAndCellLimits: a Kineto trace naming 100k devices keeps the
// devices whose series fit --max-series; a flood of one-point series beside
// a real one is cut to --max-cells, the real series kept.
func TestGPUDeviceAndCellLimits(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"schemaVersion":1,"baseTimeNanoseconds":1700000000000000000,"traceEvents":[`)
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"ph":"X","cat":"kernel","name":"k","ts":%d,"dur":5,"args":{"device":%d}}`, i*10, i)
	}
	sb.WriteString(`]}`)
	var b *ingest.Bundle
	var err error
	_, alloc := testkit.MeasureCost(func() {
		b, err = decodeKineto("k.json", strings.NewReader(sb.String()), ingest.Limits{MaxSeries: 1000})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Series) > 1000 || !strings.Contains(bundletest.WarningsOf(b, ingest.ErrLimit), "GPUs dropped") {
		t.Errorf("%d series; warnings %v", len(b.Series), b.Warnings)
	}
	if alloc > 400<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}

	fb := &ingest.Bundle{Inputs: []ingest.Input{{Path: "m"}}}
	real := &ingest.Series{Name: "real", Source: "m"}
	for i := 0; i < 240; i++ {
		real.T = append(real.T, ingest.Time(1700000000e9+int64(i)*15e9))
		real.V = append(real.V, float64(i))
	}
	fb.Series = append(fb.Series, real)
	for i := 0; i < 5000; i++ {
		fb.Series = append(fb.Series, &ingest.Series{Name: fmt.Sprintf("flood%05d", i), Source: "m", T: []ingest.Time{ingest.Time(1700000000e9 + int64(i%240)*15e9)}, V: []float64{1}})
	}
	ingest.Finalize(fb, ingest.Options{Limits: ingest.Limits{MaxCells: 240 * 100}})
	kept := false
	for _, s := range fb.Series {
		kept = kept || s.Name == "real"
	}
	if len(fb.Series) > 100 || !kept || !strings.Contains(bundletest.WarningsOf(fb, ingest.ErrLimit), "--max-cells") {
		t.Errorf("%d series kept (real: %v); warnings %v", len(fb.Series), kept, fb.Warnings)
	}
}

// TestKinetoExtremeEvent: a Kineto kernel lasting centuries among normal
// ones is dropped with a warning; the timeline keeps the bulk's buckets.
func TestKinetoExtremeEvent(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"schemaVersion":1,"baseTimeNanoseconds":1800000000000000000,"traceEvents":[`)
	for i := range 200 {
		fmt.Fprintf(&sb, `{"ph":"X","cat":"kernel","name":"k","ts":%d,"dur":4000,"args":{"device":0}},`, 1000000+i*10000)
	}
	sb.WriteString(`{"ph":"X","cat":"kernel","name":"k","ts":1500000,"dur":7000000000000000,"args":{"device":0}}]}`)
	b, err := decodeKineto("k.json", strings.NewReader(sb.String()), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bundletest.WarningsOf(b, ingest.ErrBadValue), "far outside the rest of the trace") {
		t.Errorf("no warning: %v", b.Warnings)
	}
	busy := bundletest.FindSeries(t, b, "kineto_gpu_busy_ratio", "", "")
	if n := len(busy.T); n < 50 || n > 500 || busy.T[1].Sub(busy.T[0]) > 100*time.Millisecond {
		t.Errorf("%d buckets of %v", n, busy.T[1].Sub(busy.T[0]))
	}
}
