package prometheus

import (
	"bytes"
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// comparePromFast decodes in with both Prometheus readers and reports
// whether the fast path accepted it; when it did, the bundles (series bit
// for bit, warnings) must be equal, and the error too when there is one.
func comparePromFast(t *testing.T, in []byte, lim ingest.Limits) bool {
	t.Helper()
	got, err := decodePromFast("m.json", bytes.NewReader(in), lim)
	if errors.Is(err, ingest.ErrSlowPath) {
		return false
	}
	want, werr := decodePromQueryRange("m.json", bytes.NewReader(in), lim)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("errors differ: fast %v, general %v", err, werr)
	}
	if err != nil {
		return true
	}
	if len(got.Series) != len(want.Series) {
		t.Fatalf("series: fast %d, general %d", len(got.Series), len(want.Series))
	}
	for i, g := range got.Series {
		w := want.Series[i]
		if g.Name != w.Name || !reflect.DeepEqual(g.Labels, w.Labels) || g.Entity != w.Entity || g.Signal != w.Signal ||
			g.Stat != w.Stat || g.Unit != w.Unit || !reflect.DeepEqual(g.T, w.T) || len(g.V) != len(w.V) {
			t.Fatalf("series %d: fast %+v, general %+v", i, g, w)
		}
		for j := range g.V {
			if math.Float64bits(g.V[j]) != math.Float64bits(w.V[j]) {
				t.Fatalf("series %d point %d: fast %v, general %v", i, j, g.V[j], w.V[j])
			}
		}
	}
	if !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Fatalf("warnings:\nfast    %v\ngeneral %v", got.Warnings, want.Warnings)
	}
	return true
}

const promFastSample = `{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"__name__":"vllm:num_requests_waiting","pod":"vllm-0","model_name":"m\u00e9"},"values":[[1796008320,"0"],[1796008335.5,"4"],[1796008350,"NaN"],[1796008365,"+Inf"],[1796008380,"x"]]},
 {"metric":{"service":"api"},"values":[[1796008320,"5.95"]],"extra":{"a":[1,2]}}]},"warnings":["w1"],"infos":null}`

func TestPromFastMatchesGeneral(t *testing.T) {
	cases := map[string]bool{ // input → fast path expected to accept
		promFastSample: true,
		`{"status":"success","data":{"resultType":"matrix","result":[]}}`:                                         true,
		`{"status":"error","errorType":"bad_data","error":"parse error"}`:                                         true,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}}`:            false,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","1"]]}]}}`:       false,
		`{"status":"success","data":{"resultType":"matrix","result":[{"Metric":{},"values":[]}]}}`:                false,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"1","a":"2"},"values":[]}]}}`: false,
		`{"status":"success","data":{"result":[],"resultType":"matrix"}}`:                                         false,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1e400,"1"]]}]}}`:     false,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,2]]}]}}`:           false,
	}
	for in, accept := range cases {
		if got := comparePromFast(t, []byte(in), ingest.Limits{}); got != accept {
			t.Errorf("fast path accepted=%v, want %v: %.80s", got, accept, in)
		}
	}
	// Limits: series and points beyond them are dropped alike.
	for _, lim := range []ingest.Limits{{MaxSeries: 1}, {MaxPoints: 3}} {
		if !comparePromFast(t, []byte(promFastSample), lim) {
			t.Errorf("fast path declined the sample under limits %+v", lim)
		}
	}
}

// TestPromFastRealFiles: every Prometheus file of the shared samples and
// of the Nezha cases recorded 03:00-04:59 on 22 Aug (real exports) takes the fast path and
// decodes exactly as the general reader.
func TestPromFastRealFiles(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../shared/samples/captured/prometheus-*/*.json", "../../shared/data/nezha-ob/ob-20220822-0[34]*/metrics_*.json"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("../shared is absent")
	}
	fast := 0
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if ingest.Sniff(in[:min(len(in), ingest.SniffLen)]) != ingest.FormatPromQueryRange {
			continue
		}
		if comparePromFast(t, in, ingest.Limits{}) {
			fast++
		} else if strings.Contains(f, "nezha-ob") {
			t.Errorf("%s: the fast path declined a plain matrix file", f)
		}
	}
	t.Logf("%d of %d files on the fast path", fast, len(files))
}

// FuzzPromFast checks that the fast path never disagrees with the general
// reader on an input it accepts.
func FuzzPromFast(f *testing.F) {
	f.Add([]byte(promFastSample))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"x"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		comparePromFast(t, in, ingest.Limits{MaxSeries: 50, MaxPoints: 1000})
	})
}
