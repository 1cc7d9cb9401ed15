package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// LogCacheVersion names the cache directory of generated log inputs; bump
// it when GenerateLogs changes what a size produces.
const LogCacheVersion = "logs-v2"

// logFiles returns the cached files of sz (generated on first use),
// skipping the million-line size unless PA_BENCH_BIG is set.
func logFiles(tb testing.TB, sz LogSize) []string {
	tb.Helper()
	if sz.Lines > 100_000 && os.Getenv(bigEnv) == "" {
		tb.Skipf("size %s: set %s=1 to run the million-line benchmark", sz.Name, bigEnv)
	}
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	files, err := CachedLogs(filepath.Join(root, "pipeline-analyze-bench", LogCacheVersion), sz)
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkLogs reads and templates the generated Loki files (features.Read:
// parse, fold, mine, merge templates across files, sort, derive the log
// series). Target (issue 14): 1M lines (~300 MB) in ≤ 3 s and ≤ 500 MB RSS
// on the 2-core machine: PA_BENCH_BIG=1 go test ./bench -run '^$' -bench Logs/logs-1M -benchtime 1x
func BenchmarkLogs(b *testing.B) {
	for _, sz := range LogSizes {
		b.Run(sz.Name, func(b *testing.B) {
			files := logFiles(b, sz)
			var bytes int64
			for _, f := range files {
				if st, err := os.Stat(f); err == nil {
					bytes += st.Size()
				}
			}
			b.SetBytes(bytes)
			b.ResetTimer()
			var n int
			for i := 0; i < b.N; i++ {
				bd, err := features.Read(files, nil, ingest.Options{}, features.Options{})
				if err != nil {
					b.Fatal(err)
				}
				n = len(bd.Logs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}

// TestGenerateLogs checks the log generator on a small size: the files
// read back as Loki streams with every line, the stack traces folded, and a
// few hundred templates.
func TestGenerateLogs(t *testing.T) {
	sz := LogSize{Name: "t", Lines: 20_000, Files: 2}
	files, records, err := GenerateLogs(t.TempDir(), sz)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.Read(files, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range b.Inputs {
		if in.Format != ingest.FormatLokiStreams {
			t.Fatalf("%s: format %v", in.Path, in.Format)
		}
	}
	if len(b.Logs) != records || records >= sz.Lines {
		t.Errorf("%d records, want %d (%d lines, stack traces folded)", len(b.Logs), records, sz.Lines)
	}
	if n := len(b.LogTemplates); n < 100 || n > 400 {
		t.Errorf("%d templates, want the ~160 statements (plus a few split ones)", n)
	}
}
