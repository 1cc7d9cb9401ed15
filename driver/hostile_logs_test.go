package driver

// The log classes of the hostile-file suite (issue 28): the template miner,
// many services, pods and streams, many and long lines, log bombs, a whole
// OTLP logs document, and mixed formats. hostileCases appends them; they
// run like every other case (hostile_test.go). Each input holds only logs,
// so alone the run has no target and exits 1 with one line (aloneFails);
// beside the incident it is analysed and the budget that cut it is named.

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"time"
)

// rfc is t0+d as RFC 3339 with nanoseconds.
func (g *hostileGen) rfc(d time.Duration) string { return g.t0.Add(d).UTC().Format(time.RFC3339Nano) }

// ns is t0+d in Unix nanoseconds.
func (g *hostileGen) ns(d time.Duration) int64 { return g.t0.Add(d).UnixNano() }

// streamPlain writes what gen produces, uncompressed, to path.
func streamPlain(path string, gen func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	gen(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// gzMembers writes the gzip members parts[i](g) one after the other.
func gzMembers(path string, parts ...[]byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return err
		}
	}
	return f.Close()
}

// gz is the gzip member of s.
func gz(s string) []byte {
	var sb strings.Builder
	zw := gzip.NewWriter(&sb)
	zw.Write([]byte(s))
	zw.Close()
	return []byte(sb.String())
}

// vlogsLine is one VictoriaLogs record.
func (g *hostileGen) vlogsLine(w *bufio.Writer, d time.Duration, stream, msg string) {
	fmt.Fprintf(w, `{"_time":"%s","_stream":"{%s}","_msg":%q}`+"\n", g.rfc(d), stream, msg)
}

func hostileLogCases() []hostileCase {
	words := func(i, n int) string { // n words, distinct for each i (no placeholders)
		var sb strings.Builder
		for j := 0; j < n; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			for k := i*7 + j; ; k /= 26 {
				sb.WriteByte(byte('a' + k%26))
				if k < 26 {
					break
				}
			}
		}
		return sb.String()
	}
	return []hostileCase{
		{name: "logs: one service, 1M distinct lines", file: "one-service.log", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					for i := 0; i < 1_000_000; i++ {
						fmt.Fprintf(w, "%s INFO op %s\n", g.rfc(time.Duration(i)*100*time.Microsecond), words(i, 4))
					}
				})
			}},
		{name: "logs: 1M templates over 1,000 services", file: "templates.jsonl", aloneFails: true, want: "--max-log-templates-total",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					for i := 0; i < 1_000_000; i++ {
						g.vlogsLine(w, time.Duration(i)*100*time.Microsecond, fmt.Sprintf(`app=\"svc-%d\"`, i%1000), words(i/1000, 3+i%4))
					}
				})
			}},
		{name: "logs: Loki file of 100k services", file: "loki-services.json", aloneFails: true, want: "--max-log-entities",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					w.WriteString(`{"status":"success","data":{"resultType":"streams","result":[`)
					for i := 0; i < 100_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						fmt.Fprintf(w, `{"stream":{"service_name":"svc-%d"},"values":[["%d","GET /item/%d 200"]]}`, i, g.ns(time.Duration(i)*time.Millisecond), i)
					}
					w.WriteString(`]}}`)
				})
			}},
		{name: "logs: fluent-bit file of 100k pods", file: "fluent-bit.jsonl", aloneFails: true, want: "--max-log-entities",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					for i := 0; i < 100_000; i++ {
						fmt.Fprintf(w, `{"date":%.6f,"log":"GET /x %d 200\n","stream":"stdout","time":"%s","kubernetes":{"pod_name":"cart-%08d-x%04d","namespace_name":"shop","container_name":"cart"}}`+"\n",
							float64(g.ns(time.Duration(i)*time.Millisecond))/1e9, i, g.rfc(time.Duration(i)*time.Millisecond), i, i%10000)
					}
				})
			}},
		{name: "logs: VictoriaLogs export of 1M streams", file: "vlogs-streams.jsonl", aloneFails: true, want: "--max-log-streams",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					for i := 0; i < 1_000_000; i++ {
						g.vlogsLine(w, time.Duration(i)*100*time.Microsecond, fmt.Sprintf(`app=\"a%d\",pod=\"p%d\"`, i%200_000, i), "ok")
					}
				})
			}},
		{name: "logs: 10M short lines", file: "short.log.gz", aloneFails: true, want: "--max-log-records-per-input",
			write: func(g *hostileGen, p string) error {
				m := g.member(g.rfc(0)+" INFO ok\n", 1_000_000)
				parts := make([][]byte, 10)
				for i := range parts {
					parts[i] = m
				}
				return gzMembers(p, parts...)
			}},
		{name: "logs: 800 distinct 1 MiB lines", file: "long-lines.log.gz", aloneFails: true, want: "--max-log-record-size",
			write: func(g *hostileGen, p string) error {
				body, nl := g.member("y ", 1<<19), gz("\n")
				var parts [][]byte
				for i := 0; i < 800; i++ {
					parts = append(parts, gz(fmt.Sprintf("%s ERROR %s ", g.rfc(time.Duration(i)*time.Second), words(i, 2))), body, nl)
				}
				return gzMembers(p, parts...)
			}},
		{name: "logs: 2 GiB CRI line bomb", file: "cri-bomb.log.gz", reject: true, want: "limit exceeded",
			write: func(g *hostileGen, p string) error {
				return gzFile(p, g.rfc(0)+" stdout F ", g.member("a", 64<<20), 32, "\n")
			}},
		{name: "logs: 2 GiB VictoriaLogs bomb", file: "vlogs-bomb.jsonl.gz", reject: true, want: "limit exceeded",
			write: func(g *hostileGen, p string) error {
				return gzFile(p, `{"_time":"`+g.rfc(0)+`","_stream":"{app=\"a\"}","_msg":"`, g.member("a", 64<<20), 32, "\"}\n")
			}},
		{name: "logs: one 2 GiB OTLP logs document", file: "otlp-logs.json.gz", reject: true, want: "--max-document-size",
			write: func(g *hostileGen, p string) error {
				rec := fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"ok"}},`, g.ns(0))
				return gzFile(p, `{"resourceLogs":[{"resource":{},"scopeLogs":[{"logRecords":[`, g.member(rec, (2<<30)/len(rec)), 1,
					fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"ok"}}]}]}]}`, g.ns(0)))
			}},
		{name: "logs: VictoriaLogs lines after a Prometheus response", file: "prom-then-vlogs.json", aloneFails: true, want: "VictoriaLogs records after the Prometheus response",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up","job":"hostile-a"},"values":[[%d,"1"],[%d,"1"]]}]}}`+"\n",
						g.t0.Unix(), g.t0.Unix()+15)
					for i := 0; i < 100; i++ {
						g.vlogsLine(w, time.Duration(i)*time.Second, `app=\"hostile-a\"`, "ERROR boom")
					}
				})
			}},
		{name: "logs: OTLP logs documents among spans", file: "otlp-mixed.jsonl", want: "OTLP logs documents among the span documents",
			write: func(g *hostileGen, p string) error {
				return streamPlain(p, func(w *bufio.Writer) {
					for i := 0; i < 20; i++ {
						fmt.Fprintf(w, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"hostile-a"}}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc6%02x","spanId":"eee19b7ec3c1b1%02x","name":"GET","kind":2,"startTimeUnixNano":"%d","endTimeUnixNano":"%d"}]}]}]}`+"\n",
							i, i, g.ns(time.Duration(i)*time.Second), g.ns(time.Duration(i)*time.Second+time.Millisecond))
						fmt.Fprintf(w, `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"hostile-a"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"%d","body":{"stringValue":"ERROR boom"}}]}]}]}`+"\n",
							g.ns(time.Duration(i)*time.Second))
					}
				})
			}},
		{name: "logs: Prometheus matrix under a Loki push body's key", file: "loki-matrix.json", aloneFails: true, want: `without "stream" labels`,
			write: func(g *hostileGen, p string) error {
				return writeText(p, fmt.Sprintf(`{"streams":[{"metric":{"streams":"a","stream":"b"},"values":[["%d","1"],["%d","2"]]}]}`, g.ns(0), g.ns(time.Second)))
			}},
	}
}
