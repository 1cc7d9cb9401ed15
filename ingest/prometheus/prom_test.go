package prometheus

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// promShared locates /work/shared from the package directory or skips.
func promShared(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	return d
}

func promCountNaN(vs []float64) int {
	n := 0
	for _, v := range vs {
		if math.IsNaN(v) {
			n++
		}
	}
	return n
}

func TestPromQueryRangeSamples(t *testing.T) {
	shared := promShared(t)
	tests := []struct {
		name     string
		file     string
		series   int
		points   int
		first    string // name of the first series
		labels   string // labels of the first series
		nan      int    // NaN values in the first series
		warnKind error
		warnCnt  int
		warnMsg  string
	}{
		{"histogram_quantile no __name__", "captured/prometheus-2.42/qr_hq.json", 1, 3, "hq", "{}", 0, nil, 0, ""},
		{"plus inf", "captured/prometheus-2.42/qr_inf.json", 1, 4, "inf", "{}", 4, ingest.ErrBadValue, 4, "4 infinite"},
		{"minus inf", "captured/prometheus-2.42/qr_neginf.json", 1, 2, "neginf", "{}", 2, ingest.ErrBadValue, 2, "2 infinite"},
		{"nan kept", "captured/prometheus-2.42/qr_nan.json", 1, 4, "nan", "{}", 4, nil, 0, ""},
		{"rate no __name__", "captured/prometheus-2.42/qr_rate.json", 1, 3, "rate",
			`{code="200",handler="/metrics",instance="127.0.0.1:19090",job="prometheus"}`, 0, nil, 0, ""},
		{"up", "captured/prometheus-2.42/qr_up.json", 1, 4, "up", `{instance="127.0.0.1:19090",job="prometheus"}`, 0, nil, 0, ""},
		{"jaeger empty", "prometheus/jaeger-empty_response.json", 0, 0, "", "", 0, nil, 0, ""},
		{"jaeger one point", "prometheus/jaeger-service_datapoint_response.json", 1, 1, "jaeger-service_datapoint_response",
			`{service_name="emailservice"}`, 0, nil, 0, ""},
		{"jaeger warning status", "prometheus/jaeger-warning_response.json", 0, 0, "", "", 0, ingest.ErrSourceWarning, 2, "warning0; warning1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ingest.ReadFile(filepath.Join(shared, "samples", tt.file), nil, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			in := b.Inputs[0]
			if in.Format != ingest.FormatPromQueryRange || in.Counts.Series != tt.series || in.Counts.Points != tt.points {
				t.Fatalf("format %v, %d series, %d points; want prometheus, %d, %d", in.Format, in.Counts.Series, in.Counts.Points, tt.series, tt.points)
			}
			if tt.series > 0 {
				s := b.Series[0]
				if s.Name != tt.first || s.Labels.String() != tt.labels {
					t.Errorf("first series %s%s, want %s%s", s.Name, s.Labels, tt.first, tt.labels)
				}
				if n := promCountNaN(s.V); n != tt.nan {
					t.Errorf("%d NaN values, want %d", n, tt.nan)
				}
				for _, v := range s.V {
					if math.IsInf(v, 0) {
						t.Errorf("infinite value kept")
					}
				}
			}
			if tt.warnKind == nil {
				if len(b.Warnings) != 0 {
					t.Errorf("unexpected warnings %v", b.Warnings)
				}
				return
			}
			if len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], tt.warnKind) || b.Warnings[0].Count != tt.warnCnt ||
				!strings.Contains(b.Warnings[0].Message, tt.warnMsg) {
				t.Errorf("warnings %+v, want one %v count %d containing %q", b.Warnings, tt.warnKind, tt.warnCnt, tt.warnMsg)
			}
		})
	}
}

func TestPromQueryRangeValues(t *testing.T) {
	shared := promShared(t)
	b, err := ingest.ReadFile(filepath.Join(shared, "samples", "prometheus", "jaeger-service_datapoint_response.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := b.Series[0]
	if s.T[0] != ingest.FromUnixSeconds(1620351786) || s.V[0] != 9223372036854 || s.Entity.Service != "emailservice" {
		t.Errorf("got t=%v v=%v entity=%+v", s.T[0], s.V[0], s.Entity)
	}
	b, err = ingest.ReadFile(filepath.Join(shared, "samples", "captured", "prometheus-2.42", "qr_up.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Series[0].T[0].String(); got != "2026-11-30T06:11:39.500Z" {
		t.Errorf("float second timestamp = %s", got)
	}
}

func TestPromQueryRangeErrorBody(t *testing.T) {
	shared := promShared(t)
	_, err := ingest.ReadFile(filepath.Join(shared, "samples", "captured", "prometheus-2.42", "qr_err.json"), nil, ingest.Limits{})
	var ie *ingest.InputError
	if err == nil || !errors.As(err, &ie) {
		t.Fatalf("want *InputError, got %v", err)
	}
	if !strings.HasSuffix(err.Error(), "qr_err.json: prometheus error (bad_data): 1:5: parse error: unclosed left parenthesis") {
		t.Errorf("error %q", err)
	}
}

func TestPromQueryRangeShapes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		lim     ingest.Limits
		series  int
		points  int
		first   string
		values  []float64
		err     string
		warnErr error
	}{
		{"vector", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"a","x":"1"},"value":[10.5,"2"]},{"metric":{"__name__":"a","x":"2"},"value":[10.5,"3"]}]}}`,
			ingest.Limits{}, 2, 2, "a", []float64{2}, "", nil},
		{"scalar", `{"status":"success","data":{"resultType":"scalar","result":[10.5,"7.25"]}}`, ingest.Limits{}, 1, 1, "qr_case", []float64{7.25}, "", nil},
		{"status after data", `{"data":{"result":[{"metric":{"__name__":"b"},"values":[[1,"1"],[2,"NaN"]]}],"resultType":"matrix"},"status":"success"}`,
			ingest.Limits{}, 1, 2, "b", []float64{1, math.NaN()}, "", nil},
		{"warnings on success", `{"status":"success","warnings":["w"],"data":{"resultType":"matrix","result":[]}}`, ingest.Limits{}, 0, 0, "", nil, "", ingest.ErrSourceWarning},
		{"unparsable value", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`,
			ingest.Limits{}, 1, 1, "case", []float64{math.NaN()}, "", ingest.ErrBadValue},
		{"series limit", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"i":"1"},"values":[[1,"1"]]},{"metric":{"i":"2"},"values":[[1,"1"]]}]}}`,
			ingest.Limits{MaxSeries: 1}, 1, 1, "case", []float64{1}, "", ingest.ErrLimit},
		{"point limit", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"i":"1"},"values":[[1,"1"],[2,"2"]]},{"metric":{"i":"2"},"values":[[1,"1"]]}]}}`,
			ingest.Limits{MaxPoints: 2}, 1, 2, "case", []float64{1, 2}, "", ingest.ErrLimit},
		{"string result", `{"status":"success","data":{"resultType":"string","result":[1,"s"]}}`, ingest.Limits{}, 0, 0, "", nil, `resultType "string"`, nil},
		{"truncated", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]`, ingest.Limits{}, 0, 0, "", nil, "unexpected end", nil},
		{"bad timestamp", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["x","1"]]}]}}`, ingest.Limits{}, 0, 0, "", nil, "bad sample timestamp", nil},
		{"error without type", `{"status":"error","error":"boom"}`, ingest.Limits{}, 0, 0, "", nil, "prometheus error (unknown): boom", nil},
		{"not an object", `[1,2]`, ingest.Limits{}, 0, 0, "", nil, `expected "{"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "qr_case.json"
			if tt.first == "case" {
				name = "metrics_case.json.gz"
			}
			b, err := decodePromQueryRange(name, strings.NewReader(tt.body), tt.lim)
			if tt.err != "" {
				var ie *ingest.InputError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want *InputError containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pts := 0
			for _, s := range b.Series {
				pts += len(s.T)
			}
			if len(b.Series) != tt.series || pts != tt.points {
				t.Fatalf("%d series %d points, want %d %d", len(b.Series), pts, tt.series, tt.points)
			}
			if tt.series > 0 {
				s := b.Series[0]
				if s.Name != tt.first && !(tt.first == "qr_case" && s.Name == "case") {
					t.Errorf("name %q, want %q", s.Name, tt.first)
				}
				for i, v := range tt.values {
					if !(v == s.V[i] || math.IsNaN(v) && math.IsNaN(s.V[i])) {
						t.Errorf("value %d = %v, want %v", i, s.V[i], v)
					}
				}
			}
			if tt.warnErr == nil && len(b.Warnings) > 0 || tt.warnErr != nil && (len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], tt.warnErr)) {
				t.Errorf("warnings %v, want %v", b.Warnings, tt.warnErr)
			}
		})
	}
}

func TestPromBaseName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"nezha metrics prefix", "data/ob-1/metrics_pod_request_duration_seconds_p99.json", "pod_request_duration_seconds_p99"},
		{"gzip", "metrics_pod_requests_rate1m.json.gz", "pod_requests_rate1m"},
		{"captured qr prefix", "captured/qr_hq.json", "hq"},
		{"no prefix", "/x/ttft_p99.json", "ttft_p99"},
		{"stdin", "<stdin>", "value"},
		{"prefix only", "metrics_.json", "metrics_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := promBaseName(tt.in); got != tt.want {
				t.Errorf("promBaseName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzPromQueryRange(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"a"},"values":[[1,"+Inf"]]}]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodePromQueryRange("fuzz.json", strings.NewReader(string(data)), ingest.Limits{MaxSeries: 100, MaxPoints: 1000})
		if err != nil {
			return
		}
		for _, s := range b.Series {
			if len(s.T) != len(s.V) {
				t.Fatalf("T and V lengths differ")
			}
			for _, v := range s.V {
				if math.IsInf(v, 0) {
					t.Fatalf("infinite value kept")
				}
			}
		}
	})
}
