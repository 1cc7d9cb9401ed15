package bench

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// fleetDir returns the cached fleet fl (generated on first use), skipping
// the 10,000-service fleet unless PA_BENCH_BIG is set.
func fleetDir(tb testing.TB, fl Fleet) string {
	tb.Helper()
	if fl.Services > 1_000 && os.Getenv(bigEnv) == "" {
		tb.Skipf("fleet %s: set %s=1 to run the 10,000-service benchmark", fl.Name, bigEnv)
	}
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	dir, err := CachedFleet(filepath.Join(root, "pipeline-analyze-bench", CacheVersion), fl)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// stageTimes runs the whole analysis on dir b.N times and reports the mean
// wall and CPU time (user + system, all threads) of each stage — ingest,
// graph, causal, render — in ms, the whole run's CPU time, and the
// bundle's spans, series, nodes and edges. On a shared machine the CPU
// times vary less than the wall times.
func stageTimes(b *testing.B, dir string) {
	var wall, cpu [4]float64
	var st *stages
	b.ReportAllocs()
	for b.Loop() {
		var t [5]time.Time
		var c [5]float64
		mark := func(k int) { t[k], c[k] = time.Now(), cpuSeconds() }
		mark(0)
		st = &stages{b: readBundle(b, dir)}
		mark(1)
		var err error
		st.inc, st.g, err = st.graph()
		if err != nil {
			b.Fatal(err)
		}
		mark(2)
		st.rank(b)
		mark(3)
		st.card = scorecard.Build(st.g, st.res, evidence.Collect(st.b, st.g, st.res, evidence.Options{}), scorecard.BuildOptions{Version: "bench"})
		if err := scorecard.Render(io.Discard, st.card, "text", scorecard.RenderOptions{Width: 100}); err != nil {
			b.Fatal(err)
		}
		mark(4)
		for k := range 4 {
			wall[k] += t[k+1].Sub(t[k]).Seconds() * 1e3
			cpu[k] += (c[k+1] - c[k]) * 1e3
		}
	}
	n := float64(b.N)
	total := 0.0
	for k, name := range []string{"ingest", "graph", "causal", "render"} {
		b.ReportMetric(wall[k]/n, name+"-ms")
		b.ReportMetric(cpu[k]/n, name+"-cpu-ms")
		total += cpu[k] / n
	}
	b.ReportMetric(total, "cpu-ms")
	b.ReportMetric(float64(len(st.b.Spans)), "spans")
	b.ReportMetric(float64(len(st.b.Series)), "series")
	b.ReportMetric(float64(len(st.g.Nodes)), "nodes")
	b.ReportMetric(float64(len(st.g.Edges)), "edges")
}

// BenchmarkStages is the per-stage split of BenchmarkEndToEnd (what
// scripts/bench.sh prints beside each row).
func BenchmarkStages(b *testing.B) {
	for _, sz := range Sizes {
		b.Run(sz.Name, func(b *testing.B) { stageTimes(b, bundleDir(b, sz)) })
	}
}

// BenchmarkFleet is the system-size benchmark (issue 19): the whole
// analysis of the generated 1,000- and 10,000-service fleets, per stage.
// Target: ≤ 12× from 1k to 10k services, 10k in ≤ 30 s on two cores:
// PA_BENCH_BIG=1 go test ./bench -run '^$' -bench Fleet -benchtime 1x
func BenchmarkFleet(b *testing.B) {
	for _, fl := range Fleets {
		b.Run(fl.Name, func(b *testing.B) { stageTimes(b, fleetDir(b, fl)) })
	}
}

// TestGenerateFleet checks the fleet generator on 200 services: every
// service is traced and has its ten series, the files read without
// warnings about their shape, and the analysis runs on the result.
func TestGenerateFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a fleet")
	}
	fl := Fleet{Name: "t", Services: 200}
	dir := t.TempDir()
	if err := GenerateFleet(dir, fl); err != nil {
		t.Fatal(err)
	}
	st := &stages{b: readBundle(t, dir)}
	st.graphAndRank(t)
	services := map[string]bool{}
	for i := range st.b.Spans {
		services[st.b.Spans[i].Service.String()] = true
	}
	if len(services) < fl.Services*9/10 {
		t.Errorf("%d services traced, want about %d", len(services), fl.Services)
	}
	if n := len(st.b.Spans); n < 10*fl.Services || n > 40*fl.Services {
		t.Errorf("spans = %d, want about %d", n, 20*fl.Services)
	}
	prom := 0
	for _, in := range st.b.Inputs {
		if in.Format == ingest.FormatPromQueryRange {
			prom += in.Counts.Series
		}
	}
	if want := fl.Services*fleetPods*len(fleetMetrics) + 2; prom != want {
		t.Errorf("prometheus series = %d, want %d", prom, want)
	}
	if st.g.Target < 0 || !st.g.Nodes[st.g.Target].Anomalous {
		t.Errorf("the entry service's latency is not an anomalous target")
	}
	if len(st.res.Candidates) == 0 {
		t.Errorf("no candidates on the generated fleet")
	}
}

// wideDir returns the cached wide bundle w (generated on first use under
// the user cache dir), skipping the 100,000-replica bundles unless
// PA_BENCH_BIG is set.
func wideDir(tb testing.TB, w Wide) string {
	tb.Helper()
	if w.Replicas > 10_000 && os.Getenv(bigEnv) == "" {
		tb.Skipf("%s: set %s=1 to run the 100,000-replica benchmarks", w.Name, bigEnv)
	}
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	dir, err := CachedWide(filepath.Join(root, "pipeline-analyze-bench", CacheVersion), w)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkWide is the width benchmark (issue 44): the whole analysis of
// a small incident beside one workload of 1k, 10k and 100k replicas (one
// point each, and full series), per stage. Target: ≤ n log n growth,
// 100k replicas ≤ 20 s and ≤ 1 GB:
// PA_BENCH_BIG=1 go test ./bench -run '^$' -bench Wide -benchtime 1x
func BenchmarkWide(b *testing.B) {
	for _, w := range Wides {
		b.Run(w.Name, func(b *testing.B) { stageTimes(b, wideDir(b, w)) })
	}
}

// TestGenerateWide checks the wide generator on 300 replicas of each
// shape: the wide file holds one series per replica, of one workload's
// pods (one group of the version model), with one point or a full
// series, and the analysis runs on the result.
func TestGenerateWide(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an incident")
	}
	for _, w := range []Wide{{Name: "t1", Replicas: 300, Nodes: 7, Points: 1}, {Name: "tf", Replicas: 300, Nodes: 7}} {
		dir := t.TempDir()
		if err := GenerateWide(dir, w); err != nil {
			t.Fatal(err)
		}
		st := &stages{b: readBundle(t, dir)}
		st.graphAndRank(t)
		pods := map[string]bool{}
		for _, s := range st.b.Series {
			if s.Name == "container_memory_working_set_bytes" && strings.HasPrefix(ingest.PodOf(s), "batch-worker-7f9c6d5b8-") {
				pods[ingest.PodOf(s)] = true
			}
		}
		if len(pods) != w.Replicas {
			t.Errorf("%s: %d replicas' series, want %d", w.Name, len(pods), w.Replicas)
		}
		for _, in := range st.b.Inputs {
			if filepath.Base(in.Path) == WideFile {
				if c := in.Counts; c.Series != w.Replicas || w.Points == 1 && c.Points != w.Replicas || w.Points == 0 && c.Points < 20*w.Replicas {
					t.Errorf("%s: %d series, %d points in %s", w.Name, c.Series, c.Points, WideFile)
				}
			}
		}
		if len(st.res.Candidates) == 0 {
			t.Errorf("%s: no candidates", w.Name)
		}
	}
}
