package nvml

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestNVMLRecordingInline(t *testing.T) {
	in := `{"pipeline_analyze_nvml":1,"host":"h1","devices":[]}
{"t_ns":1000000000,"gpu":0,"util_gpu_pct":50,"processes":[{"pid":7,"sm_util_pct":40}]}
{"t_ns":2000000000,"gpu":0,"util_gpu_pct":60,"xid":[{"t_ns":1500000000,"xid":79,"type":"xid"}]}
`
	b, err := decodeNVMLRecording("rec", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Series) != 3 || len(b.Events) != 1 || len(b.Warnings) != 0 {
		t.Fatalf("series %d events %d warnings %v", len(b.Series), len(b.Events), b.Warnings)
	}
	u := bundletest.FindSeries(t, b, "nvml_gpu_utilization_percent", "", "")
	if u.Entity.Name != "h1/gpu0" || u.Entity.Node != "h1" || len(u.V) != 2 || u.V[1] != 60 || u.T[1] != 2e9 {
		t.Errorf("util = %+v", u)
	}
	if p := bundletest.FindSeries(t, b, "nvml_process_sm_utilization_percent", "pid", "7"); p.V[0] != 40 || p.Signal != ingest.SignalGPUUtil {
		t.Errorf("process = %+v", p)
	}
	if e := b.Events[0]; e.Kind != ingest.EventXID || e.Time != 1500000000 || e.Message != "XID 79 on h1/gpu0" {
		t.Errorf("event = %+v", e)
	}
}

func TestNVMLRecordingMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		off  int64
	}{
		{"no header key", `{"host":"h"}` + "\n", 0},
		{"bad sample", `{"pipeline_analyze_nvml":1}` + "\n" + `{"t_ns":1,"gpu":"zero"}` + "\n", 50},
		{"no time", `{"pipeline_analyze_nvml":1}` + "\n" + `{"gpu":0}` + "\n", 27},
		{"truncated", `{"pipeline_analyze_nvml":1}` + "\n" + `{"t_ns":1,`, 38}, // end of input
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeNVMLRecording(tc.name, strings.NewReader(tc.in), ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) || ie.Offset != tc.off {
				t.Fatalf("err = %v (%+v), want *InputError at byte %d", err, ie, tc.off)
			}
		})
	}
}

// TestNVMLRecordingProcessWithoutReadings keeps the PID of a process NVML
// gave no readings for, so that it can still place the GPU.
func TestNVMLRecordingProcessWithoutReadings(t *testing.T) {
	in := `{"pipeline_analyze_nvml":1,"host":"h1","devices":[]}
{"t_ns":1000000000,"gpu":0,"processes":[{"pid":31}]}
`
	b, err := decodeNVMLRecording("rec", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p := bundletest.FindSeries(t, b, "nvml_process_running", "pid", "31"); len(p.V) != 1 || p.V[0] != 1 || p.Entity.Name != "h1/gpu0" {
		t.Errorf("process = %+v", p)
	}
}
