package driver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// Hostile cases of issue 28 (items 2, 3 and 5): timelines and the common
// grid from sane ranges only, bounded reads of every file a flag names, and
// live sources that degrade alone. The file cases run in TestHostileFiles
// (registered by hostileCases); the flag and live cases run here, through
// the real binary.

// nsightRows is an Nsight export of 200 kernels over 2 s on device 0 at t0,
// with memsets and cudaDeviceSynchronize calls, plus the extra statements.
func nsightRows(g *hostileGen, extra ...string) []string {
	return append([]string{
		`CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER)`,
		fmt.Sprintf(`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%d)`, g.t0.UnixNano()),
		`CREATE TABLE StringIds (id INTEGER, value TEXT)`,
		`INSERT INTO StringIds VALUES (1, 'saxpy'), (2, 'cudaDeviceSynchronize_v3020')`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, shortName INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 199) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000000000+i*10000000, 1000000000+i*10000000+4000000, 0, 1 FROM n`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 19) INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT 1005000000+i*100000000, 1006000000+i*100000000, 0 FROM n`,
		`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, nameId INTEGER)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 19) INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT 1007000000+i*100000000, 1009000000+i*100000000, 2 FROM n`,
	}, extra...)
}

// boundsCases are the hostile files of issue 28's timeline class: Nsight
// rows spanning almost the whole int64 range (a makeslice panic, out of
// memory or 24 GB before), and records dated 1970 or shifted by a zone of
// +99:99 among good ones (they stretched the common grid).
func boundsCases() []hostileCase {
	var cs []hostileCase
	far := "far outside the rest of the trace"
	for _, x := range []struct{ name, row, want string }{
		{"kernel from 1970 to 2262", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-%[1]d, 9223372036854775807-%[1]d, 0, 1)`, far},
		{"kernel ending in 2262", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1500000000, 9223372036854775806-%[1]d, 0, 1)`, far},
		{"kernel starting in 1970", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1-%[1]d, 1500000000, 0, 1)`, far},
		{"cudaDeviceSynchronize over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-%[1]d, 9223372036854775807-%[1]d, 2)`, far},
		{"MEMSET over centuries", `INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (100-%[1]d, 9000000000000000000-%[1]d, 0)`, far},
		{"kernel over the whole int64 range", `INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-9223372036854775807-1, 9223372036854775807, 0, 1)`, "before 1970, beyond 2262"},
	} {
		file := "nsys-" + strings.ReplaceAll(strings.ToLower(x.name), " ", "-") + ".sqlite"
		cs = append(cs, hostileCase{name: "Nsight: " + x.name, file: file, aloneFails: true, want: x.want,
			write: func(g *hostileGen, p string) error {
				row := x.row
				if strings.Contains(row, "%[1]d") {
					row = fmt.Sprintf(row, g.t0.UnixNano())
				}
				return sqlite(p, nsightRows(g, row)...)
			}})
	}
	for _, x := range []struct {
		name string
		off  func(g *hostileGen) int64 // the stray span's start, Unix µs
	}{
		{"one span dated 1970", func(*hostileGen) int64 { return 1 }},
		{"one span shifted by a zone of +99:99", func(g *hostileGen) int64 { return g.us(99*time.Hour + 99*time.Minute) }},
		{"one span in 2199", func(*hostileGen) int64 { return time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro() }},
	} {
		cs = append(cs, hostileCase{name: "grid: " + x.name + " among 2000", file: "stray-" + strings.ReplaceAll(x.name, " ", "-") + ".json",
			want: "timed far outside the data's range",
			write: func(g *hostileGen, p string) error {
				var spans []string
				for i := range 2000 {
					spans = append(spans, span(fmt.Sprintf("%x", i+1), "1", "", g.us(time.Duration(i)*100*time.Millisecond), 100, "p1"))
				}
				spans = append(spans, span("ffff", "1", "", x.off(g), 100, "p2"))
				return os.WriteFile(p, []byte(jaegerFile(spans)), 0o644)
			}})
	}
	return cs
}

// TestHostileBoundedFlagFiles: a file a flag names that is a device, a FIFO
// or a directory, or too big, is refused at once with one line naming it;
// a time far outside what data can have is a one-line usage error.
func TestHostileBoundedFlagFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	t.Parallel()
	realBinary(t)
	dir := t.TempDir()
	inc := filepath.Join(dir, "incident")
	label, err := fixtures.Write(inc, smallSpec)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"schema_version":"1","causes":[]}`+strings.Repeat(" ", 4096)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmp := []string{"compare", "-q", "--before-at", label.AlertTime, "--after-at", "now"}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"compare --scorecard /dev/zero", append(cmp, "--scorecard", "/dev/zero", inc), 1, "/dev/zero: not a regular file: a character device"},
		{"compare --scorecard FIFO", append(cmp, "--scorecard", fifo, inc), 1, "a named pipe (FIFO)"},
		{"compare --scorecard DIR", append(cmp, "--scorecard", dir, inc), 1, "a directory"},
		{"compare --scorecard over --max-document-size", append(cmp, "--max-document-size", "1024", "--scorecard", big, inc), 1, "--max-document-size"},
		{"--runbooks /dev/zero", []string{"-q", "--runbooks", "/dev/zero", inc}, 1, "--runbooks: /dev/zero: not a regular file"},
		{"--runbooks FIFO", []string{"-q", "--runbooks", fifo, inc}, 1, "a named pipe (FIFO)"},
		{"--token-file /dev/zero", []string{"-q", "--prometheus-url", "http://127.0.0.1:1", "--token-file", "/dev/zero", inc}, 1, "--token-file: /dev/zero: not a regular file"},
		{"compare --before-at 9999", []string{"compare", "-q", "--before-at", "9999-12-31T00:00:00Z", "--after-at", "now", inc}, 2, "outside the times incident data can have"},
		{"--at 1e30", []string{"-q", "--at", "1e30", inc}, 2, "outside the times incident data can have"},
		{"--at now-1000000h", []string{"-q", "--at", "now-1000000h", inc}, 2, "over a century"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runBinary(t, 30*time.Second, nil, tc.args...)
			checkRun(t, tc.name, r)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != tc.code || len(lines) != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.stderr, tc.code, tc.want)
			}
			if r.wall > 20*time.Second {
				t.Errorf("took %v", r.wall)
			}
		})
	}
}

// TestHostileLiveDegradesAlone: a hung Loki beside a healthy VictoriaLogs
// and local files: VictoriaLogs is asked and delivers, the local files are
// analysed, and the card names Loki's failure; with every live source hung,
// the local files are still analysed (exit 0), the failures warnings.
func TestHostileLiveDegradesAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for fetch deadlines")
	}
	t.Parallel()
	realBinary(t)
	inc := filepath.Join(t.TempDir(), "incident")
	label, err := fixtures.Write(inc, smallSpec)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, label.AlertTime)
	if err != nil {
		t.Fatal(err)
	}
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm() // read the body, so the server sees the client hang up
		<-r.Context().Done()
	}))
	defer hung.Close()
	vasked := make(chan struct{}, 1000)
	vl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		vasked <- struct{}{}
		for i := range 5 {
			fmt.Fprintf(w, `{"_time":%q,"_msg":"upstream timeout after 30s","_stream":"{service_name=\"tool-api\"}","service_name":"tool-api"}`+"\n",
				at.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano))
		}
	}))
	defer vl.Close()
	tests := []struct {
		name     string
		live     []string
		vlogs    bool     // VictoriaLogs must have been asked
		warnings []string // in the card's warnings
	}{
		{"hung Loki, healthy VictoriaLogs", []string{"--loki-url", hung.URL, "--victorialogs-url", vl.URL}, true, []string{"live loki", "deadline"}},
		{"hung Loki and Prometheus, healthy VictoriaLogs", []string{"--loki-url", hung.URL, "--prometheus-url", hung.URL, "--victorialogs-url", vl.URL},
			true, []string{"live loki", "live prometheus"}},
		{"every live source hung", []string{"--loki-url", hung.URL, "--jaeger-url", hung.URL}, false, []string{"nothing fetched", "the local inputs were analysed alone"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for len(vasked) > 0 {
				<-vasked
			}
			args := append([]string{"-q", "-o", "json", "--at", label.AlertTime, "--baseline", "6m", "--fetch-timeout", "4s", "--log-selector", `{service_name="tool-api"}`}, tc.live...)
			r := runBinary(t, maxServerRun, nil, append(args, inc)...)
			checkRun(t, tc.name, r)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if r.wall > 30*time.Second {
				t.Errorf("took %v with a 4s fetch deadline", r.wall)
			}
			var c struct {
				card
				Warnings []struct{ Source, Message string } `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
				t.Fatalf("not a JSON scorecard: %v", err)
			}
			if len(c.Causes) == 0 {
				t.Error("the local incident was not analysed")
			}
			local := 0
			for _, in := range c.Inputs {
				if strings.HasPrefix(in.Path, inc) && !in.Skipped {
					local++
				}
			}
			if local < 5 {
				t.Errorf("%d local inputs analysed", local)
			}
			if tc.vlogs && len(vasked) == 0 {
				t.Error("VictoriaLogs was never asked")
			}
			var ws []string
			for _, w := range c.Warnings {
				ws = append(ws, w.Source+": "+w.Message)
			}
			all := strings.Join(ws, "\n")
			for _, want := range tc.warnings {
				if !strings.Contains(all, want) {
					t.Errorf("no %q in the warnings:\n%s", want, all)
				}
			}
		})
	}
}
