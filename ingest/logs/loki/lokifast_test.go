package loki

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
)

func TestLokiFastMatchesGeneral(t *testing.T) {
	cases := map[string]bool{ // input → fast path expected to accept
		`{"status":"success","data":{"resultType":"streams","result":[{"stream":{"app":"a","pod":"a-7d4b9c8f6-x2kq9"},"values":[["1700000000000000002","\tat x"],["1700000000000000001","ERROR boom \"q\" trace_id=4bf92f3577b34da6a3ce929d0e0e4736",{"level":"warn"}],["1700000000000000000","INFO ok"]]}],"stats":{"a":[1]}}}`: true,
		`{"streams":[{"values":[["1","x",{"structuredMetadata":{"trace_id":"01"},"parsed":{}}]],"stream":{"job":"ns/app"}}]}`: true,
		`{"status":"success","data":{"result":[],"resultType":"streams"}}`:                                                    false, // result before resultType
		`{"status":"success","data":{"resultType":"streams","result":[{"stream":{},"values":[["x","y"]]}]}}`:                  false, // a bad entry: the general reader warns
		`{"status":"success","data":{"resultType":"streams","result":[{"stream":{"a":1},"values":[]}]}}`:                      false,
		`{"status":"error","error":"x"}`: false,
	}
	for in, accept := range cases {
		if got := compareLokiFast(t, []byte(in), ingest.Limits{}); got != accept {
			t.Errorf("fast path accepted=%v, want %v: %.80s", got, accept, in)
		}
	}
	// The real samples take the fast path.
	dir := filepath.Join(testkit.SharedDir(t), "samples", "logs")
	for _, f := range []string{"loki-netobserv/flow_records.json", "loki-netobserv/flow_records_dropped.json", "captured/victorialogs-v1.52.2/loki-push.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !compareLokiFast(t, raw, ingest.Limits{}) {
			t.Errorf("%s: fast path declined", f)
		}
	}
}

func FuzzLokiFast(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"streams","result":[{"stream":{"service_name":"s"},"values":[["1700000000000000001","a\nb"],["1700000000000000000","x",{"level":"error"}]]}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		compareLokiFast(t, in, bundletest.FuzzLimits)
	})
}

// compareLokiFast decodes in with both Loki readers and reports whether the
// fast path accepted it; when it did, the bundles must be equal.
func compareLokiFast(t *testing.T, in []byte, lim ingest.Limits) bool {
	t.Helper()
	return bundletest.CompareLogFastPath(t, decodeLokiFast, decodeLoki, "l.json", in, lim)
}
