package formats_test

import (
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/nsighttest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Tests that read several formats at once: they need every decoder
// registered, so they live here, outside the decoder packages.

// TestBadNsightBesideGood: a directory with an extreme Nsight export beside
// a good one and a trace analyses them all.
func TestBadNsightBesideGood(t *testing.T) {
	dir := t.TempDir()
	nsighttest.Write(t, filepath.Join(dir, "a-bad.sqlite"), nsighttest.Extremes[0].Row)
	nsighttest.Write(t, filepath.Join(dir, "b-good.sqlite"))
	tr := jaegerTrace(jaegerSpan("1", "", "p1", 1800000001000000, 100), jaegerSpan("2", "1", "p2", 1800000001000010, 50))
	if err := os.WriteFile(filepath.Join(dir, "c-trace.json"), []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ingest.Read([]string{dir}, nil, ingest.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, in := range b.Inputs {
		if !in.Skipped && in.Error == "" {
			read++
		}
	}
	if read != 3 || len(b.Spans) != 2 {
		t.Errorf("%d of 3 inputs read, %d spans: %+v", read, len(b.Spans), b.Inputs)
	}
	if span := b.End.Sub(b.Start); span > time.Hour {
		t.Errorf("data range %v → %v", b.Start, b.End)
	}
}

func jaegerSpan(id, parent, proc string, startUs, durUs int64) string {
	refs := ""
	if parent != "" {
		refs = fmt.Sprintf(`,"references":[{"refType":"CHILD_OF","traceID":"1","spanID":"%s"}]`, parent)
	}
	return fmt.Sprintf(`{"traceID":"1","spanID":"%s","operationName":"op","startTime":%d,"duration":%d,"processID":"%s"%s}`, id, startUs, durUs, proc, refs)
}

func jaegerTrace(spans ...string) string {
	return `{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"front","tags":[{"key":"hostname","type":"string","value":"h1"}]},` +
		`"p2":{"serviceName":"back","tags":[{"key":"hostname","type":"string","value":"h2"}]}},"spans":[` + strings.Join(spans, ",") + `]}]}`
}

// TestNezhaCrossSource reads the metrics, alert and dependencies of real
// Nezha OnlineBoutique cases and checks that every metric series lands on
// one of the services of the call graph (plus the entry service frontend).
func TestNezhaCrossSource(t *testing.T) {
	shared := testkit.SharedDir(t)
	want := []string{"adservice", "cartservice", "checkoutservice", "currencyservice", "emailservice", "frontend",
		"paymentservice", "productcatalogservice", "recommendationservice", "shippingservice"}
	tests := []struct {
		name          string
		dir           string
		series, pts   int
		edges, deps   int
		nodeSeries    int
		alertStartsAt string
	}{
		{"ob-20220822-035354", "ob-20220822-035354", 213, 2340, 28, 14, 30, "2022-08-22T03:55:54.000Z"},
		{"ob-20220822-041835", "ob-20220822-041835", 213, 7662, 28, 14, 30, "2022-08-22T04:20:35.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(shared, "data", "nezha-ob", tt.dir)
			files, _ := filepath.Glob(filepath.Join(dir, "metrics_*.json"))
			if len(files) != 21 {
				t.Fatalf("%d metrics files, want 21", len(files))
			}
			files = append(files, filepath.Join(dir, "alert.json"), filepath.Join(dir, "dependencies.json"))
			all := &ingest.Bundle{}
			for _, f := range files {
				b, err := ingest.ReadFile(f, nil, ingest.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				all.Merge(b)
			}
			depSvc := map[string]bool{"frontend": true}
			for _, d := range all.Deps {
				depSvc[d.Parent], depSvc[d.Child] = true, true
			}
			metricSvc := map[string]bool{}
			edges, nodes, pts := 0, 0, 0
			for _, s := range all.Series {
				pts += len(s.T)
				metricSvc[s.Entity.Service] = true
				switch s.Entity.Kind {
				case ingest.KindEdge:
					edges++
					if s.Entity.Caller == "" || s.Entity.Callee == "" || s.Entity.Name != s.Entity.Caller+"->"+s.Entity.Callee ||
						!strings.HasSuffix(s.Source, "metrics_istio_request_duration_seconds_p50.json") || s.Signal != ingest.SignalLatency || s.Stat != "p50" {
						t.Errorf("bad edge series %s%s %+v", s.Name, s.Labels, s.Entity)
					}
				case ingest.KindNode:
					nodes++
				}
			}
			if got, w := promKeys(metricSvc), promKeys(depSvc); strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(w, ",") != strings.Join(want, ",") {
				t.Errorf("metric services %v, dependency services %v, want %v", got, w, want)
			}
			if edges != tt.edges || nodes != tt.nodeSeries {
				t.Errorf("%d edge series, %d node series; want %d, %d", edges, nodes, tt.edges, tt.nodeSeries)
			}
			if len(all.Series) != tt.series || pts != tt.pts || len(all.Deps) != tt.deps {
				t.Errorf("%d series %d points %d deps, want %d %d %d", len(all.Series), pts, len(all.Deps), tt.series, tt.pts, tt.deps)
			}
			if len(all.Alerts) != 1 {
				t.Fatalf("%d alerts", len(all.Alerts))
			}
			a := all.Alerts[0]
			if a.Service != "frontend" || a.Signal != ingest.SignalLatency || a.Stat != "p90" || a.StartsAt.String() != tt.alertStartsAt {
				t.Errorf("alert %+v", a)
			}
		})
	}
}

// TestNezhaAllCasesServices checks the cross-source service match on every
// Nezha case: metric services == dependency services ∪ {frontend}.
func TestNezhaAllCasesServices(t *testing.T) {
	shared := testkit.SharedDir(t)
	dirs, _ := filepath.Glob(filepath.Join(shared, "data", "nezha-ob", "ob-*"))
	if len(dirs) != 56 {
		t.Fatalf("%d case directories, want 56", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(dir, "metrics_*.json"))
			metricSvc, depSvc := map[string]bool{}, map[string]bool{"frontend": true}
			for _, f := range append(files, filepath.Join(dir, "dependencies.json")) {
				b, err := ingest.ReadFile(f, nil, ingest.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range b.Series {
					metricSvc[s.Entity.Service] = true
				}
				for _, d := range b.Deps {
					depSvc[d.Parent], depSvc[d.Child] = true, true
				}
			}
			if m, d := strings.Join(promKeys(metricSvc), ","), strings.Join(promKeys(depSvc), ","); m != d || len(metricSvc) != 10 {
				t.Errorf("metric services %s != dependency services %s", m, d)
			}
		})
	}
}

func promKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
