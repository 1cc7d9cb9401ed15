package nvidiasmi

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestNvidiaSmiCaptures(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "samples", "nvidia-smi")
	const h100, h200 = "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt", "linux-x86_64__nvidia-h200__590.48.01.txt"
	tests := []struct {
		name         string
		file         string
		cmdPrefix    string
		nth          int // 0: idle capture, 1: load capture
		format       ingest.Format
		series, pts  int
		relativeTime bool
	}{
		{"h200/idle/query-gpu", h200, "nvidia-smi --query-gpu=", 0, ingest.FormatNvidiaSmiCSV, 91, 91, false},
		{"h200/load/query-gpu", h200, "nvidia-smi --query-gpu=", 1, ingest.FormatNvidiaSmiCSV, 91, 91, false},
		{"h200/idle/compute-apps", h200, "nvidia-smi --query-compute-apps", 0, ingest.FormatNvidiaSmiCSV, 0, 0, false},
		{"h200/load/compute-apps", h200, "nvidia-smi --query-compute-apps", 1, ingest.FormatNvidiaSmiCSV, 3, 3, false},
		{"h200/load/retired-pages", h200, "nvidia-smi --query-retired-pages", 1, ingest.FormatNvidiaSmiCSV, 0, 0, false},
		{"h200/idle/pmon", h200, "nvidia-smi pmon", 0, ingest.FormatNvidiaSmiDmon, 0, 0, true},
		{"h200/load/pmon", h200, "nvidia-smi pmon", 1, ingest.FormatNvidiaSmiDmon, 7, 35, true},
		{"h200/idle/dmon", h200, "nvidia-smi dmon", 0, ingest.FormatNvidiaSmiDmon, 11, 55, true},
		{"h200/load/dmon", h200, "nvidia-smi dmon", 1, ingest.FormatNvidiaSmiDmon, 11, 55, true},
		{"h100/load/query-gpu", h100, "nvidia-smi --query-gpu=", 1, ingest.FormatNvidiaSmiCSV, 91, 91, false},
		{"h100/load/pmon", h100, "nvidia-smi pmon", 1, ingest.FormatNvidiaSmiDmon, 5, 25, true},
		{"h100/load/dmon", h100, "nvidia-smi dmon", 1, ingest.FormatNvidiaSmiDmon, 11, 55, true},
	}
	cache := map[string][]testkit.SMISection{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if cache[tc.file] == nil {
				cache[tc.file] = testkit.SMISections(t, filepath.Join(dir, tc.file))
			}
			var body string
			n := 0
			for _, s := range cache[tc.file] {
				if strings.HasPrefix(s.Command, tc.cmdPrefix) {
					if n == tc.nth {
						body = s.Body
					}
					n++
				}
			}
			if body == "" {
				t.Fatalf("section %q #%d not found", tc.cmdPrefix, tc.nth)
			}
			if got := ingest.Sniff([]byte(body)); got != tc.format {
				t.Fatalf("Sniff = %v, want %v", got, tc.format)
			}
			b, err := ingest.Decoder(tc.format)(tc.name, strings.NewReader(body), ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			pts := 0
			for _, s := range b.Series {
				pts += len(s.T)
				if s.Entity.Kind != ingest.KindGPU || s.Entity.Name == "" || s.Entity.GPU != s.Entity.Name || s.Source != tc.name {
					t.Errorf("series %s: bad entity/source %+v %q", s.Name, s.Entity, s.Source)
				}
			}
			if len(b.Series) != tc.series || pts != tc.pts {
				t.Errorf("series, points = %d, %d; want %d, %d", len(b.Series), pts, tc.series, tc.pts)
			}
			gotRel := false
			for _, w := range b.Warnings {
				if errors.Is(w, ingest.ErrPartialInput) && strings.Contains(w.Message, "relative time") {
					gotRel = true
				}
			}
			if gotRel != tc.relativeTime {
				t.Errorf("relative-time warning = %v, want %v (%v)", gotRel, tc.relativeTime, b.Warnings)
			}
		})
	}
}

func TestNvidiaSmiCaptureValues(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "samples", "nvidia-smi")
	secs := testkit.SMISections(t, filepath.Join(dir, "linux-x86_64__nvidia-h200__590.48.01.txt"))
	var csv, apps, pmon []string
	for _, s := range secs {
		switch {
		case strings.HasPrefix(s.Command, "nvidia-smi --query-gpu="):
			csv = append(csv, s.Body)
		case strings.HasPrefix(s.Command, "nvidia-smi --query-compute-apps"):
			apps = append(apps, s.Body)
		case strings.HasPrefix(s.Command, "nvidia-smi pmon"):
			pmon = append(pmon, s.Body)
		}
	}
	b, err := decodeNvidiaSmiCSV("load.csv", strings.NewReader(csv[1]), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantT := ingest.FromTime(time.Date(2026, 7, 3, 22, 11, 9, 763e6, time.UTC))
	const uuid = "GPU-00000000-0000-0000-0000-000000000000"
	for _, tc := range []struct {
		name   string
		v      float64
		unit   string
		signal ingest.SignalKind
	}{
		{"nvidia_smi_utilization_gpu", 100, "%", ingest.SignalGPUUtil},
		{"nvidia_smi_utilization_memory", 7, "%", ingest.SignalGPUMemBW},
		{"nvidia_smi_memory_used", 32362 << 20, "bytes", ingest.SignalGPUMemory},
		{"nvidia_smi_power_draw", 627.40, "W", ingest.SignalPower},
		{"nvidia_smi_clocks_current_sm", 1980, "MHz", ingest.SignalGPUClock},
		{"nvidia_smi_clocks_event_reasons_active", 0, "", ingest.SignalGPUThrottle},
		{"nvidia_smi_temperature_gpu", 52, "", ingest.SignalTemperature},
		{"nvidia_smi_pstate", 0, "", ingest.SignalOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := bundletest.FindSeries(t, b, tc.name, "", "")
			if len(s.T) != 1 || s.T[0] != wantT || s.V[0] != tc.v || s.Unit != tc.unit || s.Signal != tc.signal || s.Entity.Name != uuid {
				t.Errorf("got T=%v V=%v unit=%q signal=%v entity=%q", s.T, s.V, s.Unit, s.Signal, s.Entity.Name)
			}
		})
	}
	t.Run("compute-apps pids", func(t *testing.T) {
		b, err := decodeNvidiaSmiCSV("apps.csv", strings.NewReader(apps[1]), ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		s := bundletest.FindSeries(t, b, "nvidia_smi_used_gpu_memory", "pid", "10309")
		if len(s.V) != 1 || s.V[0] != 28234<<20 || s.Labels.Get("process") != "./gpu_burn" || s.Signal != ingest.SignalGPUMemory {
			t.Errorf("pid 10309: %v %v", s.V, s.Labels)
		}
	})
	t.Run("pmon pids", func(t *testing.T) {
		b, err := decodeNvidiaSmiDmon("pmon", strings.NewReader(pmon[1]), ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var pids []string
		for _, s := range b.Series {
			if s.Name == "nvidia_smi_pmon_process" {
				pids = append(pids, s.Labels.Get("pid")+"/"+s.Labels.Get("command"))
			}
		}
		if got := strings.Join(pids, ","); got != "10291/memhog,10293/memhog,10309/gpu_burn" {
			t.Errorf("pids = %s", got)
		}
		sm := bundletest.FindSeries(t, b, "nvidia_smi_pmon_sm", "pid", "10309")
		if len(sm.V) != 5 || sm.V[3] != 79 || sm.Entity.Name != "localhost/gpu0" {
			t.Errorf("pmon sm = %v %q", sm.V, sm.Entity.Name)
		}
	})
}

func TestNvidiaSmiCSVVariants(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		series   int
		points   int
		first    string // a series name to check
		firstV   []float64
		warnKind error // expected warning kind, nil for none
	}{
		{"units in header and cells",
			"timestamp, index, uuid, utilization.gpu [%], clocks.sm [MHz]\n2026/07/03 22:10:45.123, 0, GPU-a, 87 %, 1410 MHz\n2026/07/03 22:10:46.123, 0, GPU-a, 90 %, [N/A]\n",
			2, 4, "nvidia_smi_clocks_sm", []float64{1410, math.NaN()}, nil},
		{"nounits",
			"timestamp, uuid, utilization.gpu [%], memory.used [MiB]\n2026/07/03 22:10:45.123, GPU-a, 87, 1\n",
			2, 2, "nvidia_smi_memory_used", []float64{1 << 20}, nil},
		{"two gpus",
			"timestamp, index, utilization.gpu [%]\n2026/07/03 22:10:45.123, 0, 1 %\n2026/07/03 22:10:45.123, 1, 2 %\n",
			2, 2, "nvidia_smi_utilization_gpu", []float64{1}, nil},
		{"no timestamp",
			"index, utilization.gpu [%]\n0, 5 %\n0, 6 %\n",
			1, 2, "nvidia_smi_utilization_gpu", []float64{5, 6}, ingest.ErrPartialInput},
		{"noheader",
			"2026/07/03 22:10:45.123, GPU-a, 87 %\n",
			1, 1, "nvidia_smi_col3", []float64{87}, ingest.ErrPartialInput},
		{"gpu lost",
			"timestamp, uuid, utilization.gpu [%]\n2026/07/03 22:10:45.123, GPU-a, 3 %\n2026/07/03 22:10:46.123, GPU-a, [GPU is lost]\n",
			1, 2, "nvidia_smi_utilization_gpu", []float64{3, math.NaN()}, ingest.ErrSourceWarning},
		{"short row",
			"timestamp, uuid, utilization.gpu [%]\n2026/07/03 22:10:45.123, GPU-a, 3 %\n2026/07/03 22:10:46.123, GPU-a\n",
			1, 1, "nvidia_smi_utilization_gpu", []float64{3}, ingest.ErrBadValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := decodeNvidiaSmiCSV(tc.name, strings.NewReader(tc.in), ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			pts := 0
			for _, s := range b.Series {
				pts += len(s.T)
			}
			if len(b.Series) != tc.series || pts != tc.points {
				t.Errorf("series, points = %d, %d; want %d, %d", len(b.Series), pts, tc.series, tc.points)
			}
			s := bundletest.FindSeries(t, b, tc.first, "", "")
			if !sameFloats(s.V, tc.firstV) {
				t.Errorf("%s = %v, want %v", tc.first, s.V, tc.firstV)
			}
			var kinds []error
			for _, w := range b.Warnings {
				kinds = append(kinds, w.Kind)
			}
			if tc.warnKind == nil && len(kinds) > 0 || tc.warnKind != nil && (len(kinds) != 1 || kinds[0] != tc.warnKind) {
				t.Errorf("warnings = %v, want [%v]", b.Warnings, tc.warnKind)
			}
		})
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestNvidiaSmiDmonVariants(t *testing.T) {
	in := `#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem   rxpci   txpci
#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %    MB/s    MB/s
 20260703   22:10:45      0     77     28     31      0      0      12      -
 20260703   22:10:45      1     70     27     30      5      1      13      -
#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem   rxpci   txpci
#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %    MB/s    MB/s
 20260703   22:10:46      0     78     28     31      1      0      14      -
`
	b, err := decodeNvidiaSmiDmon("dt", strings.NewReader(in), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings: %v", b.Warnings)
	}
	// 2 GPUs × 6 non-empty columns (txpci, all "-", is dropped)
	if len(b.Series) != 12 {
		t.Fatalf("series = %d, want 12", len(b.Series))
	}
	s := bundletest.FindSeries(t, b, "nvidia_smi_dmon_pwr", "", "")
	want := []ingest.Time{ingest.FromTime(time.Date(2026, 7, 3, 22, 10, 45, 0, time.UTC)), ingest.FromTime(time.Date(2026, 7, 3, 22, 10, 46, 0, time.UTC))}
	if s.Entity.Name != "localhost/gpu0" || len(s.T) != 2 || s.T[0] != want[0] || s.T[1] != want[1] || s.V[1] != 78 || s.Unit != "W" || s.Signal != ingest.SignalPower {
		t.Errorf("pwr = %+v", s)
	}
}

func TestNvidiaSmiMalformed(t *testing.T) {
	tests := []struct {
		name   string
		dec    ingest.DecodeFunc
		in     string
		offset int64
	}{
		{"csv bad timestamp", decodeNvidiaSmiCSV, "timestamp, utilization.gpu [%]\nyesterday, 5 %\n", 31},
		{"dmon data before header", decodeNvidiaSmiDmon, "    0     77\n", 0},
		{"dmon header without gpu", decodeNvidiaSmiDmon, "# pwr  gtemp\n# W C\n", 0},
		{"dmon bad time", decodeNvidiaSmiDmon, "#Date Time gpu pwr\n#YYYYMMDD HH:MM:SS Idx W\n 2026 xx 0 5\n", 44},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.dec(tc.name, strings.NewReader(tc.in), ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *InputError", err)
			}
			if ie.Offset != tc.offset || ie.File != tc.name {
				t.Errorf("error at %s byte %d, want byte %d: %v", ie.File, ie.Offset, tc.offset, err)
			}
		})
	}
}
