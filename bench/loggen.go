package bench

import (
	"bufio"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LogSize is a log benchmark input: Lines log lines of about 300 bytes (Java
// service logs with trace context, some stack traces) from 20 services × 2
// pods, written as Files Loki query_range responses (one per time slice,
// entries newest first as Loki returns them by default).
type LogSize struct {
	Name  string
	Lines int
	Files int
}

// LogSizes are the log benchmark inputs (issue 14: 1M lines, ~300 MB).
var LogSizes = []LogSize{
	{Name: "logs-100k", Lines: 100_000, Files: 2},
	{Name: "logs-1M", Lines: 1_000_000, Files: 8},
}

// logStatement is one log statement of a simulated service.
type logStatement struct {
	level  string
	logger string
	format func(r *rand.Rand) string
}

var logWords = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
	"shanghai", "beijing", "nanjing", "taiyuan", "suzhou", "wuxi", "hangzhou", "ningbo"}

// statements returns service s's log statements (8, deterministic).
func statements(s int) []logStatement {
	cls := fmt.Sprintf("c.s.Service%02dImpl", s)
	uuid := func(r *rand.Rand) string {
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
	}
	w := func(r *rand.Rand) string { return logWords[r.IntN(len(logWords))] }
	return []logStatement{
		{"INFO", cls + "#31", func(r *rand.Rand) string {
			return fmt.Sprintf("[queryOrders][Query orders for account][accountId: %s, count: %d, elapsed: %dms]", uuid(r), r.IntN(50), r.IntN(900))
		}},
		{"INFO", cls + "#44", func(r *rand.Rand) string {
			return fmt.Sprintf("[reserveSeat][Seat request][request: Seat(travelDate=2023-01-29, trainNumber=G%d, startStation=%s, destStation=%s, seatType=%d)]", 1000+r.IntN(9000), w(r), w(r), r.IntN(3))
		}},
		{"INFO", cls + "#58", func(r *rand.Rand) string {
			return fmt.Sprintf("[createOrder][Create order success][orderId: %s, price: %d.%02d, user: %s]", uuid(r), r.IntN(900), r.IntN(100), w(r))
		}},
		{"INFO", fmt.Sprintf("c.c.Controller%02d#83", s), func(r *rand.Rand) string {
			return fmt.Sprintf("[handle][Request received][path: /api/v1/orders/%d, client: 10.%d.%d.%d:%d]", r.IntN(100000), r.IntN(255), r.IntN(255), r.IntN(255), 1024+r.IntN(60000))
		}},
		{"INFO", fmt.Sprintf("c.c.Controller%02d#97", s), func(r *rand.Rand) string {
			return fmt.Sprintf("[handle][Response sent][status: 200, bytes: %d, duration: %d.%03ds]", r.IntN(20000), r.IntN(3), r.IntN(1000))
		}},
		{"WARN", cls + "#120", func(r *rand.Rand) string {
			return fmt.Sprintf("[callRemote][Retry remote call][target: ts-service-%02d, attempt: %d of 3, backoff: %dms]", r.IntN(20), 1+r.IntN(3), 50*(1+r.IntN(8)))
		}},
		{"INFO", cls + "#133", func(r *rand.Rand) string {
			return fmt.Sprintf("[cache][Cache refreshed][entries: %d, hit ratio: 0.%02d, key: route-%x]", r.IntN(10000), r.IntN(100), r.Uint32())
		}},
		{"ERROR", cls + "#150", func(r *rand.Rand) string {
			return fmt.Sprintf("[payOrder][Payment failed][orderId: %s, reason: Insufficient balance for user %s]", uuid(r), w(r))
		}},
	}
}

// GenerateLogs writes size sz into dir (created) and returns the files and
// the number of log records they hold (a stack trace's lines are one
// record). The output is a function of sz only.
func GenerateLogs(dir string, sz LogSize) ([]string, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	records := 0
	const services, pods = 20, 2
	r := rand.New(rand.NewPCG(14, uint64(sz.Lines)))
	stmts := make([][]logStatement, services)
	for s := range stmts {
		stmts[s] = statements(s)
	}
	start := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC).UnixNano()
	span := int64(45 * time.Minute)
	perFile := sz.Lines / sz.Files
	var files []string
	for f := 0; f < sz.Files; f++ {
		path := filepath.Join(dir, fmt.Sprintf("loki-%02d.json", f))
		out, err := os.Create(path)
		if err != nil {
			return nil, 0, err
		}
		w := bufio.NewWriterSize(out, 1<<20)
		// Lines of this file's time slice, per stream, newest first.
		n := perFile
		if f == sz.Files-1 {
			n = sz.Lines - perFile*(sz.Files-1)
		}
		t0 := start + span*int64(f)/int64(sz.Files)
		t1 := start + span*int64(f+1)/int64(sz.Files)
		streams := make([][][2]string, services*pods)
		for i := 0; i < n; {
			st := r.IntN(services * pods)
			svc := st / pods
			ts := t0 + r.Int64N(t1-t0)
			sm := stmts[svc][r.IntN(len(stmts[svc]))]
			if sm.level == "ERROR" && r.IntN(4) != 0 || sm.level == "WARN" && r.IntN(2) != 0 {
				sm = stmts[svc][r.IntN(5)] // errors are rarer
			}
			clock := time.Unix(0, ts).UTC().Format("15:04:05.000")
			line := fmt.Sprintf("%s %-5s [http-nio-8080-exec-%d] %s TraceID: %016x%016x SpanID: %016x %s [session: %016x, tenant: %s]",
				clock, sm.level, 1+r.IntN(200), sm.logger, r.Uint64(), r.Uint64(), r.Uint64(), sm.format(r), r.Uint64(), logWords[r.IntN(len(logWords))])
			streams[st] = append(streams[st], [2]string{strconv.FormatInt(ts, 10), line})
			i++
			records++
			if sm.level == "ERROR" && r.IntN(10) == 0 && i+6 < n { // a stack trace, one entry per line
				frames := []string{"java.lang.IllegalStateException: balance check failed",
					"\tat c.s.Payment.check(Payment.java:88)", "\tat c.s.Payment.pay(Payment.java:41)",
					"\tat c.c.PayController.pay(PayController.java:29)", "\tat sun.reflect.GeneratedMethodAccessor.invoke(Unknown Source)",
					"\t... 42 more"}
				for k, fr := range frames {
					streams[st] = append(streams[st], [2]string{strconv.FormatInt(ts+int64(k+1), 10), fr})
				}
				i += len(frames)
			}
		}
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"streams","result":[`)
		first := true
		for st, vals := range streams {
			if len(vals) == 0 {
				continue
			}
			// newest first, as Loki's default direction=backward returns them
			sortValuesDesc(vals)
			if !first {
				w.WriteByte(',')
			}
			first = false
			svc := st / pods
			fmt.Fprintf(w, `{"stream":{"namespace":"shop","service_name":"ts-service-%02d","pod":"ts-service-%02d-5b67c48447-%s","container":"server","node":"10.0.0.%d"},"values":[`,
				svc, svc, []string{"mv5hb", "x2kq9"}[st%pods], 10+svc%5)
			for k, v := range vals {
				if k > 0 {
					w.WriteByte(',')
				}
				w.WriteString(`["`)
				w.WriteString(v[0])
				w.WriteString(`",`)
				w.WriteString(strconv.Quote(v[1]))
				w.WriteByte(']')
			}
			w.WriteString("]}")
		}
		fmt.Fprint(w, `],"stats":{"summary":{"execTime":0.5}}}}`+"\n")
		if err := w.Flush(); err != nil {
			out.Close()
			return nil, 0, err
		}
		if err := out.Close(); err != nil {
			return nil, 0, err
		}
		files = append(files, path)
	}
	return files, records, nil
}

// sortValuesDesc sorts [ns, line] pairs newest first (ties keep their
// order), comparing the decimal nanoseconds as numbers.
func sortValuesDesc(v [][2]string) {
	slices.SortStableFunc(v, func(a, b [2]string) int {
		if len(a[0]) != len(b[0]) {
			return cmp.Compare(len(b[0]), len(a[0]))
		}
		return strings.Compare(b[0], a[0])
	})
}

// CachedLogs returns the files of sz under root, generating them once.
func CachedLogs(root string, sz LogSize) ([]string, error) {
	dir := filepath.Join(root, sz.Name)
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err != nil {
		tmp := dir + ".tmp"
		os.RemoveAll(tmp)
		if _, _, err := GenerateLogs(tmp, sz); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
			return nil, err
		}
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			return nil, err
		}
	}
	return filepath.Glob(filepath.Join(dir, "loki-*.json"))
}
