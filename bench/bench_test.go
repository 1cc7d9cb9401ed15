package bench

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/evidence"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// bigEnv enables the sizes above 100k spans (generation takes ~20 s once,
// then the bundle is cached under os.UserCacheDir()).
const bigEnv = "PA_BENCH_BIG"

// bundleDir returns the cached bundle of sz, skipping big sizes unless
// PA_BENCH_BIG is set.
func bundleDir(tb testing.TB, sz Size) string {
	tb.Helper()
	if sz.Spans > 100_000 && os.Getenv(bigEnv) == "" {
		tb.Skipf("size %s: set %s=1 to run the million-span benchmarks", sz.Name, bigEnv)
	}
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	dir, err := Cached(filepath.Join(root, "pipeline-analyze-bench", CacheVersion), sz)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// stages holds the output of every stage for one bundle.
type stages struct {
	b    *ingest.Bundle
	inc  tcg.Incident
	g    *tcg.Graph
	res  *causal.Result
	card *scorecard.Card
}

func readBundle(tb testing.TB, dir string) *ingest.Bundle {
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// run is the CLI's analysis with its default flags.
func run(tb testing.TB, dir string) *stages {
	st := &stages{b: readBundle(tb, dir)}
	st.graphAndRank(tb)
	st.card = scorecard.Build(st.g, st.res, evidence.Collect(st.b, st.g, st.res, evidence.Options{}), scorecard.BuildOptions{Version: "bench"})
	if err := scorecard.Render(io.Discard, st.card, "text", scorecard.RenderOptions{Width: 100}); err != nil {
		tb.Fatal(err)
	}
	return st
}

func (st *stages) graphAndRank(tb testing.TB) {
	var err error
	if st.inc, st.g, err = st.graph(); err != nil {
		tb.Fatal(err)
	}
	st.rank(tb)
}

// graph resolves the incident (from the bundle's alert, as the CLI does)
// and builds the graph.
func (st *stages) graph() (tcg.Incident, *tcg.Graph, error) {
	inc, err := tcg.ResolveIncident(st.b, tcg.IncidentSpec{Window: 5 * time.Minute})
	if err != nil {
		return inc, nil, err
	}
	features.DeriveLogSeries(st.b, inc.BaselineStart, inc.WindowStart, features.Options{})
	g, err := tcg.Build(st.b, inc, tcg.Options{})
	return inc, g, err
}

// rank runs the default ranking on the graph.
func (st *stages) rank(tb testing.TB) {
	var err error
	if st.res, err = causal.Analyze(st.g, st.b, causal.Options{}); err != nil {
		tb.Fatal(err)
	}
}

// perSpan reports ns and bytes per span next to the usual metrics.
func perSpan(b *testing.B, spans int) {
	b.StopTimer()
	if spans > 0 && b.N > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(spans), "ns/span")
	}
	b.ReportMetric(float64(spans), "spans")
}

func BenchmarkIngest(b *testing.B) {
	for _, sz := range Sizes {
		b.Run(sz.Name, func(b *testing.B) {
			dir := bundleDir(b, sz)
			var bu *ingest.Bundle
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				bu = readBundle(b, dir)
			}
			perSpan(b, len(bu.Spans))
			b.ReportMetric(float64(len(bu.Series)), "series")
		})
	}
}

func BenchmarkTCG(b *testing.B) {
	for _, sz := range Sizes {
		b.Run(sz.Name, func(b *testing.B) {
			st := &stages{b: readBundle(b, bundleDir(b, sz))}
			st.graphAndRank(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tcg.Build(st.b, st.inc, tcg.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(st.g.Nodes)), "nodes")
		})
	}
}

func BenchmarkCausal(b *testing.B) {
	for _, sz := range Sizes {
		b.Run(sz.Name, func(b *testing.B) {
			st := &stages{b: readBundle(b, bundleDir(b, sz))}
			st.graphAndRank(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := causal.Analyze(st.g, st.b, causal.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	for _, sz := range Sizes {
		for _, format := range scorecard.Formats() {
			b.Run(sz.Name+"/"+format, func(b *testing.B) {
				st := &stages{b: readBundle(b, bundleDir(b, sz))}
				st.graphAndRank(b)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					card := scorecard.Build(st.g, st.res, evidence.Collect(st.b, st.g, st.res, evidence.Options{}), scorecard.BuildOptions{Version: "bench"})
					if err := scorecard.Render(io.Discard, card, format, scorecard.RenderOptions{Width: 100}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkEndToEnd is ingest → tcg → causal → scorecard (text), reporting
// time and peak heap per span.
func BenchmarkEndToEnd(b *testing.B) {
	for _, sz := range Sizes {
		b.Run(sz.Name, func(b *testing.B) {
			dir := bundleDir(b, sz)
			spans := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				spans = len(run(b, dir).b.Spans)
			}
			perSpan(b, spans)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapSys)/float64(max(spans, 1)), "heapsys-B/span")
		})
	}
}

// TestGenerate checks the generator on the smallest size: the span and
// series budgets hold, the traces are split into plain envelopes, and the
// whole pipeline runs on the result.
func TestGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a simulated incident")
	}
	sz := Size{Name: "t", Spans: 5_000, Series: 300, TraceFiles: 2}
	dir := t.TempDir()
	if err := Generate(dir, sz); err != nil {
		t.Fatal(err)
	}
	files, err := TraceFiles(dir)
	if err != nil || len(files) != sz.TraceFiles {
		t.Fatalf("trace files = %v, %v; want %d", files, err, sz.TraceFiles)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), `{"data":[`) {
			t.Errorf("%s does not start with the envelope", f)
		}
	}
	st := run(t, dir)
	if n := len(st.b.Spans); n < sz.Spans*8/10 || n > sz.Spans*12/10 {
		t.Errorf("spans = %d, want %d ± 20%%", n, sz.Spans)
	}
	prom := 0
	for _, in := range st.b.Inputs {
		if in.Format == ingest.FormatPromQueryRange {
			prom += in.Counts.Series
		}
	}
	if prom != sz.Series {
		t.Errorf("prometheus series = %d, want %d", prom, sz.Series)
	}
	if len(st.card.Causes) == 0 && st.res.Total == 0 {
		t.Errorf("no candidates on the generated incident")
	}
}
