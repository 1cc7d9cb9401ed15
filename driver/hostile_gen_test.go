package driver

// The generator of the hostile-file suite (hostile_test.go): every case
// writes one hostile input (a file, a FIFO, a symlink) into a directory.
// Nothing is committed: bombs are built from a few compressed members
// written many times, so a 10 GiB expansion is a 10 MB file.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"database/sql"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

// hostileCase is one hostile input.
type hostileCase struct {
	name string
	file string // the base name the case creates (may hold control characters)
	// reject: alone, the run exits 1 with one line naming the file; beside a
	// real incident it is a skipped input. Otherwise it is accepted (alone it
	// exits 0, unless aloneFails: it has nothing to analyse on its own, and
	// the run exits 1 with one line).
	reject, aloneFails bool
	flags              []string // extra flags for both runs
	want               string   // expected in a warning or the input's error beside the incident ("" = not checked)
	write              func(g *hostileGen, path string) error
}

// hostileGen holds what cases share: the time the incident beside them is
// at (so that accepted data lands in its range) and the bomb members.
type hostileGen struct {
	t0      time.Time
	members sync.Map // string → []byte
}

// us is t0+d in Unix microseconds.
func (g *hostileGen) us(d time.Duration) int64 { return g.t0.Add(d).UnixMicro() }

// member is the gzip member of n copies of pat (cached).
func (g *hostileGen) member(pat string, n int) []byte {
	key := fmt.Sprintf("%d:%s", n, pat)
	if m, ok := g.members.Load(key); ok {
		return m.([]byte)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := []byte(strings.Repeat(pat, max(1, (1<<20)/len(pat))))
	for left := n * len(pat); left > 0; left -= len(chunk) {
		zw.Write(chunk[:min(len(chunk), left)])
	}
	zw.Close()
	g.members.Store(key, buf.Bytes())
	return buf.Bytes()
}

// gzFile writes head, body members and tail as one multi-member gzip file.
func gzFile(path, head string, body []byte, times int, tail string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, s := range []string{head} {
		zw := gzip.NewWriter(f)
		zw.Write([]byte(s))
		zw.Close()
	}
	for i := 0; i < times; i++ {
		if _, err := f.Write(body); err != nil {
			return err
		}
	}
	if tail != "" {
		zw := gzip.NewWriter(f)
		zw.Write([]byte(tail))
		zw.Close()
	}
	return f.Close()
}

// streamGz writes what gen produces, gzip-compressed (fast), to path.
func streamGz(path string, gen func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 1<<20)
	gen(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func writeText(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// span renders one Jaeger span of trace tr.
func span(tr, id, parent string, startUs, durUs int64, proc string) string {
	refs := ""
	if parent != "" {
		refs = fmt.Sprintf(`,"references":[{"refType":"CHILD_OF","traceID":"%s","spanID":"%s"}]`, tr, parent)
	}
	return fmt.Sprintf(`{"traceID":"%s","spanID":"%s","operationName":"GET /h","startTime":%d,"duration":%d,"processID":"%s"%s}`, tr, id, startUs, durUs, proc, refs)
}

// trace renders a Jaeger file of one trace with processes p1 (service a)
// and p2 (service b).
func trace(tr string, spans ...string) string {
	return `{"data":[{"traceID":"` + tr + `","processes":{"p1":{"serviceName":"hostile-a"},"p2":{"serviceName":"hostile-b"}},"spans":[` +
		strings.Join(spans, ",") + `]}]}`
}

// manySpans renders n spans over traces of per spans, one a second from t0.
func (g *hostileGen) manySpans(n, per int) []string {
	var out []string
	for i := 0; i < n; i++ {
		tr := fmt.Sprintf("%x", i/per+1)
		parent := ""
		if i%per != 0 {
			parent = fmt.Sprintf("%x", (i/per)*per+1)
		}
		out = append(out, span(tr, fmt.Sprintf("%x", i+1), parent, g.us(time.Duration(i)*time.Second), 1000, "p1"))
	}
	return out
}

// jaegerFile is one file of traces with the given spans (each its own trace).
func jaegerFile(spans []string) string {
	var parts []string
	for _, s := range spans {
		tr := s[strings.Index(s, `"traceID":"`)+11:]
		tr = tr[:strings.IndexByte(tr, '"')]
		parts = append(parts, `{"traceID":"`+tr+`","processes":{"p1":{"serviceName":"hostile-a"},"p2":{"serviceName":"hostile-b"}},"spans":[`+s+`]}`)
	}
	return `{"data":[` + strings.Join(parts, ",") + `]}`
}

// promFile renders a query_range answer with the series given as
// `{labels}` → values text.
func promFile(series ...string) string {
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(series, ",") + `]}}`
}

// sqlite writes an Nsight-like export with the statements given.
func sqlite(path string, stmts ...string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return db.Close()
}

// jsonHeads are the heads, by format, that put the next byte inside a
// string value.
var jsonHeads = map[string]string{
	"jaeger": `{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"1","operationName":"`,
	"otlp":   `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"`,
	"prom":   `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"`,
	"alert":  `{"receiver":"x","status":"firing","alerts":[{"labels":{"alertname":"`,
	"kineto": `{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"`,
	"k8s":    `{"kind":"EventList","items":[{"involvedObject":{"kind":"Pod","name":"`,
	"deps":   `[{"parent":"a","child":"b","callCount":1,"x":"`,
	"nvml":   `{"pipeline_analyze_nvml":1,"host":"`,
}

// hostileCases is the suite: every class of the hardening issue (#15).
func hostileCases() []hostileCase {
	var cs []hostileCase
	// Bombs: gzip members expanding to 1 GiB of whitespace or of one
	// string, behind the head of every JSON format.
	for _, f := range []string{"jaeger", "otlp", "prom", "alert", "kineto", "k8s", "deps", "nvml"} {
		head := jsonHeads[f]
		cs = append(cs,
			hostileCase{name: "gzip bomb: 1 GiB string in " + f, file: f + "-string-bomb.json.gz", reject: true, want: "--max-token",
				write: func(g *hostileGen, p string) error { return gzFile(p, head, g.member("x", 64<<20), 16, `"}`) }},
			hostileCase{name: "gzip bomb: 1 GiB whitespace in " + f, file: f + "-space-bomb.json.gz", reject: true, want: "--max-token",
				write: func(g *hostileGen, p string) error { return gzFile(p, head+`x"`, g.member(" ", 64<<20), 16, `}`) }})
	}
	cs = append(cs,
		hostileCase{name: "gzip bomb: 1 GiB number", file: "number-bomb.json.gz", reject: true, want: "--max-token",
			write: func(g *hostileGen, p string) error {
				return gzFile(p, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]],"x":1`, g.member("1", 64<<20), 16, `}]}}`)
			}},
		hostileCase{name: "gzip bomb: 10 GiB of spans and whitespace, default limits", file: "ten-gib.json.gz", reject: true, want: "limit exceeded",
			write: func(g *hostileGen, p string) error {
				// Whitespace runs just under the 64 KiB a run may have: only
				// the file size limit stops it.
				s := span("1", "1", "", g.us(0), 10, "p1") + ","
				return gzFile(p, `{"data":[{"traceID":"1","spans":[`, g.member(s+strings.Repeat(" ", (60<<10)-len(s)), 1024), 160, "")
			}},
		hostileCase{name: "gzip bomb: 10 GiB of spans and whitespace, --max-file-size 256MiB", file: "ten-gib-limited.json.gz", reject: true,
			flags: []string{"--max-file-size", "268435456"}, want: "maximum file size",
			write: func(g *hostileGen, p string) error {
				s := span("1", "1", "", g.us(0), 10, "p1") + ","
				return gzFile(p, `{"data":[{"traceID":"1","spans":[`, g.member(s+strings.Repeat(" ", (60<<10)-len(s)), 1024), 160, "")
			}},
		hostileCase{name: "gzip: valid member then garbage", file: "trailing-garbage.json.gz", reject: true,
			write: func(g *hostileGen, p string) error {
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				zw.Write([]byte(promFile(`{"metric":{"__name__":"up"},"values":[[1,"1"]]}`)))
				zw.Close()
				buf.WriteString("\x1f\x8bthis is not gzip")
				return os.WriteFile(p, buf.Bytes(), 0o644)
			}},
		hostileCase{name: "gzip: truncated member", file: "truncated.json.gz", reject: true,
			write: func(g *hostileGen, p string) error {
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				zw.Write([]byte(promFile(strings.Repeat(`{"metric":{"__name__":"up"},"values":[[1,"1"]]},`, 2000) + `{"metric":{}}`)))
				zw.Close()
				return os.WriteFile(p, buf.Bytes()[:buf.Len()/2], 0o644)
			}},
		hostileCase{name: "whole document over --max-document-size", file: "alerts-70mib.json.gz", reject: true, want: "--max-document-size",
			write: func(g *hostileGen, p string) error {
				one := `{"labels":{"alertname":"x"}},`
				return gzFile(p, `{"receiver":"x","status":"firing","alerts":[`, g.member(one, (70<<20)/len(one)), 1, `{}]}`)
			}},
		hostileCase{name: "10M-deep nesting", file: "deep.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"data":[{"traceID":"1","spans":[],"x":`+strings.Repeat("[", 10_000_000))
			}},
	)

	// Floods and counts.
	cs = append(cs,
		// Alone, alerts are no telemetry: "no traces, metrics or logs found" (exit 1, one line).
		hostileCase{name: "10,000 firing alerts", file: "alerts-10k.json", aloneFails: true, want: "the earliest of",
			write: func(g *hostileGen, p string) error {
				var as []string
				for i := 0; i < 10_000; i++ {
					as = append(as, fmt.Sprintf(`{"status":"firing","labels":{"alertname":"Flood%d","service":"hostile-%d"},"startsAt":"%s"}`, i, i, g.t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339)))
				}
				return writeText(p, `{"receiver":"x","status":"firing","alerts":[`+strings.Join(as, ",")+`]}`)
			}},
		hostileCase{name: "2.3M tiny alerts", file: "alerts-tiny.json.gz", aloneFails: true, want: "--max-events",
			write: func(g *hostileGen, p string) error {
				one := `{"labels":{"alertname":"x"}},`
				return gzFile(p, `{"receiver":"x","status":"firing","alerts":[`, g.member(one, (60<<20)/len(one)), 1, `{}]}`)
			}},
		hostileCase{name: "300k Kubernetes events", file: "events-300k.json.gz", aloneFails: true, want: "--max-events",
			write: func(g *hostileGen, p string) error {
				ev := fmt.Sprintf(`{"involvedObject":{"kind":"Pod","name":"p-1"},"reason":"BackOff","lastTimestamp":"%s"},`, g.t0.Format(time.RFC3339))
				return gzFile(p, `{"kind":"EventList","items":[`, g.member(ev, 300_000), 1, `{"involvedObject":{},"reason":"x"}]}`)
			}},
		hostileCase{name: "1M spans in one trace", file: "one-trace-1m.json.gz", want: "--max-trace-spans",
			write: func(g *hostileGen, p string) error {
				return streamGz(p, func(w *bufio.Writer) {
					w.WriteString(`{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"hostile-a"}},"spans":[`)
					for i := 0; i < 1_000_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						parent := "1"
						if i == 0 {
							parent = ""
						}
						w.WriteString(span("1", fmt.Sprintf("%x", i+1), parent, g.us(time.Duration(i)*time.Millisecond), 500, "p1"))
					}
					w.WriteString(`]}]}`)
				})
			}},
		hostileCase{name: "1M spans with one duplicated ID", file: "dup-1m.json.gz", want: "repeat a (trace, span) ID",
			write: func(g *hostileGen, p string) error {
				return streamGz(p, func(w *bufio.Writer) {
					w.WriteString(`[`)
					for i := 0; i < 1_000_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						w.WriteString(`{"traceID":"1","spanID":"1","operationName":"x","startTime":` + fmt.Sprint(g.us(time.Duration(i)*time.Millisecond)) +
							`,"duration":5,"process":{"serviceName":"hostile-a"}}`)
					}
					w.WriteString(`]`)
				})
			}},
		hostileCase{name: "100k one-point series", file: "series-100k.json.gz", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return streamGz(p, func(w *bufio.Writer) {
					w.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
					for i := 0; i < 100_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						fmt.Fprintf(w, `{"metric":{"__name__":"flood","service":"s%d"},"values":[[%d,"1"]]}`, i, g.t0.Add(time.Duration(i%600)*time.Second).Unix())
					}
					w.WriteString(`]}}`)
				})
			}},
		hostileCase{name: "one series of 2M points", file: "points-2m.json.gz", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return streamGz(p, func(w *bufio.Writer) {
					w.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"dense"},"values":[`)
					for i := 0; i < 2_000_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						fmt.Fprintf(w, `[%.3f,"%d"]`, float64(g.t0.UnixMilli())/1e3+float64(i)*0.001, i%7)
					}
					w.WriteString(`]}]}}`)
				})
			}},
		hostileCase{name: "Kineto trace with 100k devices", file: "kineto-100k.json.gz", aloneFails: true, want: "GPUs dropped",
			write: func(g *hostileGen, p string) error {
				return streamGz(p, func(w *bufio.Writer) {
					fmt.Fprintf(w, `{"schemaVersion":1,"baseTimeNanoseconds":%d,"traceEvents":[`, g.t0.UnixNano())
					for i := 0; i < 100_000; i++ {
						if i > 0 {
							w.WriteByte(',')
						}
						fmt.Fprintf(w, `{"ph":"X","cat":"kernel","name":"k","ts":%d,"dur":5,"args":{"device":%d}}`, i*10, i)
					}
					w.WriteString(`]}`)
				})
			}},
		hostileCase{name: "Nsight export with 100k devices", file: "nsys-100k.sqlite", aloneFails: true, want: "GPUs dropped",
			write: func(g *hostileGen, p string) error {
				return sqlite(p, `CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, shortName TEXT)`,
					`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 99999) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i*10, i*10+5, i, 'k' FROM n`,
					`CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER)`,
					fmt.Sprintf(`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%d)`, g.t0.UnixNano()))
			}},
	)

	// Untrusted SQLite.
	cs = append(cs,
		hostileCase{name: "SQLite: kernel table is a view over an endless recursive CTE", file: "view-cte.sqlite", aloneFails: true, want: "a view",
			write: func(g *hostileGen, p string) error {
				return sqlite(p, `CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(start, end, deviceId, shortName) AS (SELECT 1, 2, 0, 'k' UNION ALL SELECT start+1, end+1, deviceId, shortName FROM r) SELECT * FROM r`)
			}},
		hostileCase{name: "SQLite: 200 MB blobs in every column", file: "blobs.sqlite", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return sqlite(p, `CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, shortName)`,
					`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (zeroblob(50000000), zeroblob(50000000), zeroblob(50000000), zeroblob(50000000))`,
					`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)`, `INSERT INTO StringIds VALUES (1, CAST(zeroblob(30000000) AS TEXT))`)
			}},
		hostileCase{name: "SQLite: .sqlite.gz bomb behind a valid header", file: "bomb.sqlite.gz", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				tmp := p + ".src"
				defer os.Remove(tmp)
				if err := sqlite(tmp, `CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER)`, `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0)`); err != nil {
					return err
				}
				db, err := os.ReadFile(tmp)
				if err != nil {
					return err
				}
				var head bytes.Buffer
				zw := gzip.NewWriter(&head)
				zw.Write(db)
				zw.Close()
				f, err := os.Create(p)
				if err != nil {
					return err
				}
				f.Write(head.Bytes())
				for i := 0; i < 160; i++ { // and 10 GiB of zeros the header does not claim
					f.Write(g.member("\x00", 64<<20))
				}
				return f.Close()
			}},
		hostileCase{name: "SQLite: .sqlite.gz over --max-temp-size", file: "big.sqlite.gz", reject: true, flags: []string{"--max-temp-size", "67108864"}, want: "--max-temp-size",
			write: func(g *hostileGen, p string) error {
				// A header whose in-header size is not valid: the copy is bounded by the flag alone.
				hdr := make([]byte, 100)
				copy(hdr, "SQLite format 3\x00")
				hdr[16], hdr[17] = 0x10, 0x00
				hdr[24] = 1
				return gzFile(p, string(hdr), g.member("\x00", 64<<20), 4, "")
			}},
		hostileCase{name: "SQLite: header then garbage", file: "corrupt.sqlite", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, "SQLite format 3\x00"+strings.Repeat("\xde\xad\xbe\xef", 4096))
			}},
	)

	// Nonsense values.
	cs = append(cs,
		hostileCase{name: "spans that are their own parent", file: "self-parent.json", want: "themselves as their parent",
			write: func(g *hostileGen, p string) error {
				var s []string
				for i, x := range g.manySpans(200, 2) {
					if i%2 == 1 {
						x = strings.Replace(x, fmt.Sprintf(`"spanID":"%x"`, (i/2)*2+1), fmt.Sprintf(`"spanID":"%x"`, i+1), 1)
					}
					s = append(s, x)
				}
				return writeText(p, jaegerFile(s))
			}},
		hostileCase{name: "parent cycles", file: "cycles.json", want: "parent cycles",
			write: func(g *hostileGen, p string) error {
				var s []string
				for i := 0; i < 100; i++ {
					tr := fmt.Sprintf("%x", i+1)
					s = append(s, span(tr, "a", "b", g.us(time.Duration(i)*time.Second), 100, "p1"), span(tr, "b", "a", g.us(time.Duration(i)*time.Second+time.Millisecond), 50, "p2"))
				}
				return writeText(p, `{"data":[`+strings.Join(func() []string {
					var ts []string
					for i := 0; i < len(s); i += 2 {
						tr := fmt.Sprintf("%x", i/2+1)
						ts = append(ts, `{"traceID":"`+tr+`","processes":{"p1":{"serviceName":"hostile-a"},"p2":{"serviceName":"hostile-b"}},"spans":[`+s[i]+","+s[i+1]+`]}`)
					}
					return ts
				}(), ",")+`]}`)
			}},
		hostileCase{name: "a span with 100k references", file: "refs-100k.json", want: "references",
			write: func(g *hostileGen, p string) error {
				var refs strings.Builder
				for i := 0; i < 100_000; i++ {
					if i > 0 {
						refs.WriteByte(',')
					}
					fmt.Fprintf(&refs, `{"refType":"FOLLOWS_FROM","traceID":"1","spanID":"%x"}`, i+100)
				}
				return writeText(p, trace("1", span("1", "1", "", g.us(0), 100, "p1"),
					`{"traceID":"1","spanID":"2","operationName":"x","startTime":`+fmt.Sprint(g.us(time.Millisecond))+`,"duration":5,"processID":"p2","references":[`+refs.String()+`]}`))
			}},
		hostileCase{name: "spans in year 1", file: "year-1.json", reject: true, want: "before 1970",
			write: func(g *hostileGen, p string) error {
				return writeText(p, trace("1", span("1", "1", "", -62135596800000000, 100, "p1"), span("1", "2", "1", -62135596800000000, 50, "p2")))
			}},
		hostileCase{name: "spans in year 9999", file: "year-9999.json", reject: true, want: "after 2200",
			write: func(g *hostileGen, p string) error {
				return writeText(p, trace("1", span("1", "1", "", 253402300799000000, 100, "p1")))
			}},
		hostileCase{name: "year 1 and 9999 among good spans", file: "years-mixed.json", want: "before 1970 or after 2200",
			write: func(g *hostileGen, p string) error {
				s := g.manySpans(100, 5)
				s = append(s, span("ff1", "ff1", "", -62135596800000000, 100, "p1"), span("ff2", "ff2", "", 253402300799000000, 100, "p1"))
				return writeText(p, jaegerFile(s))
			}},
		hostileCase{name: "int64-max durations", file: "max-duration.json", want: "duration",
			write: func(g *hostileGen, p string) error {
				s := g.manySpans(100, 5)
				s = append(s, span("fe1", "fe1", "", g.us(time.Minute), math.MaxInt64, "p1"))
				return writeText(p, jaegerFile(s))
			}},
		hostileCase{name: "negative durations", file: "negative.json", want: "negative duration",
			write: func(g *hostileGen, p string) error {
				s := g.manySpans(100, 5)
				s = append(s, span("fd1", "fd1", "", g.us(time.Minute), -1000, "p1"))
				return writeText(p, jaegerFile(s))
			}},
		hostileCase{name: "a 2017 sample among a later incident", file: "sample-2017.json", want: "disjoint in time",
			write: func(g *hostileGen, p string) error {
				var s []string
				for i := 0; i < 50; i++ {
					s = append(s, span(fmt.Sprintf("%x", i+1), "1", "", 1485467191639875+int64(i)*1e6, 100, "p1"))
				}
				return writeText(p, jaegerFile(s))
			}},
		hostileCase{name: "prometheus points in years 1 and 9999", file: "prom-years.json", aloneFails: true, want: "before 1970 or after 2200",
			write: func(g *hostileGen, p string) error {
				return writeText(p, promFile(fmt.Sprintf(`{"metric":{"__name__":"x"},"values":[[-62135596800,"1"],[%d,"2"],[253402300799,"3"],[1e300,"4"]]}`, g.t0.Unix())))
			}},
		hostileCase{name: "prometheus NaN, Inf and garbage values", file: "prom-nan.json", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				var v []string
				for i, x := range []string{"NaN", "+Inf", "-Inf", "x", "1e999", "1"} {
					v = append(v, fmt.Sprintf(`[%d,"%s"]`, g.t0.Unix()+int64(i)*15, x))
				}
				return writeText(p, promFile(`{"metric":{"__name__":"weird"},"values":[`+strings.Join(v, ",")+`]}`))
			}},
		hostileCase{name: "prometheus unsorted duplicate timestamps", file: "prom-unsorted.json", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				t := g.t0.Unix()
				return writeText(p, promFile(fmt.Sprintf(`{"metric":{"__name__":"u"},"values":[[%d,"1"],[%d,"2"],[%d,"3"],[%d,"4"]]}`, t+30, t, t+30, t-15)))
			}},
		hostileCase{name: "prometheus error with a 10,000-character message", file: "prom-long-error.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"status":"error","errorType":"bad_data","error":"`+strings.Repeat("very long error ", 625)+`"}`)
			}},
		hostileCase{name: "prometheus error with terminal escapes", file: "prom-escape-error.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"status":"error","errorType":"x","error":"\u001b[2J\u001b[H\rpipeline-analyze: all good\n"}`)
			}},
		hostileCase{name: "Alertmanager times in years 1 and 9999", file: "alert-years.json", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"receiver":"x","status":"firing","alerts":[{"labels":{"alertname":"A","service":"hostile-a"},"startsAt":"0001-01-01T00:00:00Z"},{"labels":{"alertname":"B"},"startsAt":"9999-12-31T23:59:59Z"}]}`)
			}},
		hostileCase{name: "OTLP with overflowing nanoseconds", file: "otlp-overflow.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"hostile-a"}}]},"scopeSpans":[{"spans":[`+
					`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x","startTimeUnixNano":"18446744073709551615","endTimeUnixNano":"1"}]}]}]}`)
			}},
		hostileCase{name: "OTLP malformed", file: "otlp-bad.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":12}]}]}]}`)
			}},
		hostileCase{name: "NVML recording in year 9999", file: "nvml-9999.jsonl", aloneFails: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"pipeline_analyze_nvml":1,"host":"h1","devices":[]}`+"\n"+`{"t_ns":9223372036854775807,"gpu":0,"util_gpu_pct":50}`+"\n")
			}},
		hostileCase{name: "nvidia-smi CSV with a 100 MB line", file: "smi-long-line.csv", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, "timestamp, index, utilization.gpu [%]\n2024/05/01 10:00:00.000, 0, "+strings.Repeat("9", 100<<20)+" %\n")
			}},
	)

	// Names and escapes.
	cs = append(cs,
		hostileCase{name: "service names with terminal escapes", file: "escape-names.json",
			write: func(g *hostileGen, p string) error {
				s := strings.ReplaceAll(jaegerFile(g.manySpans(50, 5)), "hostile-a", `evil\u001b[31m\rpipeline-analyze: all good\n`)
				return writeText(p, s)
			}},
		hostileCase{name: "file name with ESC, CR and LF (bad content)", file: "bad\x1b[2J\rpipeline-analyze: all good\n.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, `{"traceID":"1","spans":[{"spanID":"1" "x":1}]}`)
			}},
		hostileCase{name: "file name with ESC (good content)", file: "name\x1b[31m.json",
			write: func(g *hostileGen, p string) error { return writeText(p, jaegerFile(g.manySpans(20, 2))) }},
		hostileCase{name: "bidi override in a file name (bad content)", file: "evil\u202egnp.json", reject: true,
			write: func(g *hostileGen, p string) error { return writeText(p, `[{"parent":"a"`) }},
		hostileCase{name: "empty file", file: "empty.json", reject: true,
			write: func(g *hostileGen, p string) error { return writeText(p, "") }},
		hostileCase{name: "only whitespace", file: "blank.json", reject: true,
			write: func(g *hostileGen, p string) error { return writeText(p, strings.Repeat(" \n", 1000)) }},
		hostileCase{name: "10 MB of binary garbage", file: "garbage.bin", reject: true,
			write: func(g *hostileGen, p string) error {
				b := make([]byte, 10<<20)
				for i := range b {
					b[i] = byte(i*7 + i>>8)
				}
				return os.WriteFile(p, b, 0o644)
			}},
		hostileCase{name: "UTF-16 JSON", file: "utf16.json", reject: true,
			write: func(g *hostileGen, p string) error {
				var b []byte
				for _, c := range "\ufeff" + promFile() {
					b = append(b, byte(c), byte(c>>8))
				}
				return os.WriteFile(p, b, 0o644)
			}},
		hostileCase{name: "byte-order mark before JSON", file: "bom.json",
			write: func(g *hostileGen, p string) error {
				return writeText(p, "\xef\xbb\xbf"+jaegerFile(g.manySpans(20, 2)))
			}},
		hostileCase{name: "invalid trace IDs", file: "bad-ids.json", reject: true,
			write: func(g *hostileGen, p string) error {
				return writeText(p, trace("zz", span("zz", "not-hex", "", g.us(0), 100, "p1")))
			}},
	)

	// Paths.
	cs = append(cs,
		hostileCase{name: "FIFO nobody writes to", file: "fifo.json", reject: true, want: "FIFO", flags: []string{"--stall-timeout", "1s"},
			write: func(g *hostileGen, p string) error { return syscall.Mkfifo(p, 0o644) }},
		hostileCase{name: "symlink to /dev/zero", file: "zero.json", reject: true, want: "character device",
			write: func(g *hostileGen, p string) error { return os.Symlink("/dev/zero", p) }},
		hostileCase{name: "dangling symlink", file: "dangling.json", reject: true, want: "dangling symlink",
			write: func(g *hostileGen, p string) error { return os.Symlink("nowhere-at-all.json", p) }},
		hostileCase{name: "symlinked directory", file: "linked-dir", want: "not followed",
			write: func(g *hostileGen, p string) error {
				real := p + ".real"
				if err := os.Mkdir(real, 0o755); err != nil {
					return err
				}
				if err := writeText(filepath.Join(real, "t.json"), jaegerFile(g.manySpans(20, 2))); err != nil {
					return err
				}
				return os.Symlink(filepath.Base(real), p)
			}},
		hostileCase{name: "directory of device symlinks and a loop", file: "devices", reject: true, want: "",
			write: func(g *hostileGen, p string) error {
				if err := os.Mkdir(p, 0o755); err != nil {
					return err
				}
				for _, l := range [][2]string{{"/dev/zero", "zero.json"}, {"/dev/null", "null.json"}, {"..", "up"}, {"missing", "gone.json"}} {
					if err := os.Symlink(l[0], filepath.Join(p, l[1])); err != nil {
						return err
					}
				}
				return nil
			}},
		hostileCase{name: "missing path", file: "does-not-exist.json", reject: true, want: "no such file",
			write: func(g *hostileGen, p string) error { return nil }},
	)
	cs = append(cs, boundsCases()...)     // issue 28: hostile_bounds_test.go
	cs = append(cs, hostileLogCases()...) // issue 28: hostile_logs_test.go
	return cs
}

var _ = io.EOF
