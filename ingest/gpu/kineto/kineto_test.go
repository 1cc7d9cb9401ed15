package kineto

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestKinetoSamples(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "samples", "hta")
	// Independent numbers from python's json module: kernel count, union of
	// kernel+memcpy+memset time, union of blocking CUDA calls, distinct short
	// kernel names (series = 5 per device + 2 per kernel, top 20).
	tests := []struct {
		file            string
		series, buckets int
		step            time.Duration
		kernels         float64
		busyNs, stallNs float64
		gpu             string
		first           ingest.Time
	}{
		{"benchmark_result_493459_1694039959_trace.json.gz", 5 + 2*15, 166, 100 * time.Millisecond, 79, 49758000, 713000, "rank0/gpu0", ingest.Time(1694039994000000000)},
		{"rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 5 + 2*20, 97, 5 * time.Millisecond, 4350, 472454441, 89171621, "twshared39868.02.pnb3.facebook.com/gpu0", ingest.Time(1712195495505000000)},
		{"triton_example.json.gz", 5 + 2*1, 89, 2 * time.Microsecond, 1, 1760, 16846, "localhost/gpu0", ingest.Time(1730156791097444000)},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := ingest.ReadFile(filepath.Join(dir, tc.file), nil, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if in := b.Inputs[0]; in.Format != ingest.FormatKineto || in.Counts.Series != tc.series || len(b.Warnings) != 0 {
				t.Fatalf("input %+v warnings %v", in, b.Warnings)
			}
			busySum, busy := bundletest.SumSeries(t, b, "kineto_gpu_busy_ratio", "", "")
			if len(busy.T) != tc.buckets || busy.T[1]-busy.T[0] != ingest.Time(tc.step) || busy.T[0] != tc.first || busy.Entity.Name != tc.gpu {
				t.Errorf("busy grid: %d buckets from %v step %v on %q", len(busy.T), busy.T[0], busy.T[1].Sub(busy.T[0]), busy.Entity.Name)
			}
			if !bundletest.Near(busySum*float64(tc.step), tc.busyNs) {
				t.Errorf("busy time = %.1f ns, want %.0f", busySum*float64(tc.step), tc.busyNs)
			}
			if k, _ := bundletest.SumSeries(t, b, "kineto_kernel_count", "", ""); k != tc.kernels {
				t.Errorf("kernels = %v, want %v", k, tc.kernels)
			}
			if st, _ := bundletest.SumSeries(t, b, "kineto_host_sync_stall_ratio", "", ""); !bundletest.Near(st*float64(tc.step), tc.stallNs) {
				t.Errorf("stall = %.1f ns, want %.0f", st*float64(tc.step), tc.stallNs)
			}
		})
	}
}

func TestKinetoInline(t *testing.T) {
	rel := `{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10.0,"dur":5.0,"args":{"device":1}},
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20.0,"dur":5.0,"args":{"device":1}},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":20.0,"dur":5.0,"args":{}},
{"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":12.0,"dur":10.0,"args":{}}]}`
	b, err := decodeKineto("rel.json", strings.NewReader(rel), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, w := range b.Warnings {
		kinds = append(kinds, w.Kind.Error())
	}
	if got := strings.Join(kinds, ","); got != "bad value,partial input" {
		t.Errorf("warnings = %v", b.Warnings)
	}
	if len(b.Series) != 5+2 {
		t.Errorf("series = %d, want 7", len(b.Series))
	}
	gap, _ := bundletest.SumSeries(t, b, "kineto_launch_gap_seconds", "", "")
	if !bundletest.Near(gap, 5e-6) {
		t.Errorf("gap = %v, want 5µs", gap)
	}
	if s := bundletest.FindSeries(t, b, "kineto_gpu_busy_ratio", "", ""); s.Labels.Get("device") != "1" || s.Entity.Name != "localhost/gpu1" {
		t.Errorf("busy labels %v entity %q", s.Labels, s.Entity.Name)
	}
}

func TestKinetoMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		off  int64
	}{
		{"truncated", `{"traceEvents":[{"ph":"X","ts":1`, 32}, // end of input, where more was expected
		{"not an object", `[1,2]`, 0},
		{"wrong type", `{"traceEvents":[{"ph":"X","ts":{}}]}`, 32},
		{"no events", `{"schemaVersion":1}`, 19},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeKineto(tc.name, strings.NewReader(tc.in), ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.Offset != tc.off {
				t.Fatalf("err = %v (%#v), want *InputError at byte %d", err, ie, tc.off)
			}
		})
	}
}
