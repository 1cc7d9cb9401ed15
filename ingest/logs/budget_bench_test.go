package logs

import (
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// lineGen is an io.Reader of n generated lines (line(i, buf) appends line
// i), so a benchmark of 10M lines holds no 330 MB input in memory.
type lineGen struct {
	n, i int
	line func(i int, b []byte) []byte
	buf  []byte
}

func (g *lineGen) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		g.buf = g.line(g.i, g.buf)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}

const benchT0 = 1796008320 // 2026-11-30T03:12:00Z

// BenchmarkLogLines reads n short plain-text lines, one second of data per
// 10,000 lines, with the default limits (which keep the first
// --max-log-records-per-input records) and with the record budget raised
// to n. Peak RSS, one case at a time: go test -c, then
// /usr/bin/time -v ./ingest.test -test.run '^$' -test.bench 'LogLines/lines=10M/budget=default' -test.benchtime 1x.
func BenchmarkLogLines(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		for _, raised := range []bool{false, true} {
			name := fmt.Sprintf("lines=%dM/budget=default", n/1_000_000)
			lim := ingest.Limits{}
			if raised {
				name = fmt.Sprintf("lines=%dM/budget=raised", n/1_000_000)
				lim.MaxLogRecords = n
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for it := 0; it < b.N; it++ {
					g := &lineGen{n: n, line: func(i int, buf []byte) []byte {
						buf = time.Unix(int64(benchT0+i/10_000), int64(i%10_000)*100_000).UTC().AppendFormat(buf, time.RFC3339Nano)
						buf = append(buf, " INFO request served in "...)
						buf = strconv.AppendInt(buf, int64(i%97), 10)
						return append(buf, "ms\n"...)
					}}
					bd, err := ingest.Decoder(ingest.FormatTextLog)("app.log", g, lim)
					if err != nil {
						b.Fatal(err)
					}
					finalizeLogs(bd, ingest.Options{Limits: lim})
					b.ReportMetric(float64(len(bd.Logs)), "records")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
			})
		}
	}
}

// BenchmarkLogTemplates reads n lines that are n distinct templates over
// 1,000 services (VictoriaLogs JSON lines), with the default limits: the
// miner's per-leaf and total budgets keep the work per line bounded.
func BenchmarkLogTemplates(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("templates=%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for it := 0; it < b.N; it++ {
				g := &lineGen{n: n, line: func(i int, buf []byte) []byte {
					buf = append(buf, `{"_time":"2026-11-30T03:12:`...)
					buf = append(buf, fmt.Sprintf(`%02d.%06dZ","_stream":"{app=\"svc-%d\"}","_msg":"`, i/100_000%60, i%1_000_000, i%1000)...)
					k := i / 1000
					for j := 0; j < 3+k%4; j++ { // distinct words: t<k>w<j>
						if j > 0 {
							buf = append(buf, ' ')
						}
						buf = append(buf, 't')
						buf = strconv.AppendInt(buf, int64(k), 36)
						buf = append(buf, 'w')
						buf = strconv.AppendInt(buf, int64(j), 10)
					}
					return append(buf, "\"}\n"...)
				}}
				bd, err := ingest.Decoder(ingest.FormatVictoriaLogs)("v.jsonl", g, ingest.Limits{})
				if err != nil {
					b.Fatal(err)
				}
				finalizeLogs(bd, ingest.Options{})
				b.ReportMetric(float64(len(bd.LogTemplates)), "templates")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
