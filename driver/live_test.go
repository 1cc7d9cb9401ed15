package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// plantedToken is a secret that must never appear in any output or file.
const plantedToken = "tok-PLANTED-5ecret-9f3a"

func TestRerunArgs(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"--jaeger-url", "http://j", "--prometheus-url=http://p", "--save-bundle", "d"}, nil},
		{[]string{"--at", "now-5m", "-o", "json", "--query", "up", "--query=x", "--insecure-skip-verify", "--window", "10m"}, []string{"-o", "json", "--window", "10m"}},
		{[]string{"--list-queries", "--seed", "3", "f.json"}, []string{"--seed", "3", "f.json"}},
		{[]string{"--", "--at"}, []string{"--", "--at"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.in, " "), func(t *testing.T) {
			if got := cmdrun.RerunArgs(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rerunArgs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListQueries(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run([]string{"--list-queries", "--selector", `{namespace="llm"}`, "--query", "up"}, nil, &out, &errb)
	if code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	for _, want := range []string{"vllm:kv_cache_usage_perc{namespace=\"llm\"}", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "istio_requests_total", "traces_service_graph", "user          query1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list-queries lacks %q", want)
		}
	}
	if code := Run([]string{"--list-queries", "--selector", "{bad}"}, nil, &out, &errb); code != 2 {
		t.Errorf("bad selector: exit %d, want 2", code)
	}
}

// fakePrometheus serves a simulated incident's query_range files for the
// pack queries named like them; it demands the planted bearer token.
func fakePrometheus(t *testing.T, dir string, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	qs, err := live.Queries("all", "", 15*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	byExpr := map[string]string{}
	for _, q := range qs {
		byExpr[q.Expr] = q.Name
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+plantedToken {
			http.Error(w, `{"status":"error","errorType":"unauthorized","error":"no token"}`, 401)
			return
		}
		if err := r.ParseForm(); err != nil || r.URL.Path != "/api/v1/query_range" {
			http.Error(w, "bad", 400)
			return
		}
		if hits.Load() == 2 { // one transient failure, retried
			http.Error(w, "busy", 503)
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, "metrics_"+byExpr[r.Form.Get("query")]+".json"))
		if err != nil {
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
			return
		}
		w.Write(data)
	}))
}

// liveCase is a simulated GPU-throttling incident served by a fake
// Prometheus that demands the planted token, in token file tokenFile.
type liveCase struct {
	sim, work, tokenFile string
	label                fixtures.Label
	prom                 *httptest.Server
	hits                 *atomic.Int32
}

// newLiveCase writes the incident (d long) and starts its Prometheus,
// closed when the test ends.
func newLiveCase(t *testing.T, d time.Duration) *liveCase {
	t.Helper()
	c := &liveCase{sim: t.TempDir(), work: t.TempDir(), hits: new(atomic.Int32)}
	var err error
	if c.label, err = fixtures.Write(c.sim, fixtures.Spec{Fault: "gpu_throttling", Seed: 5, Duration: d}); err != nil {
		t.Fatal(err)
	}
	c.prom = fakePrometheus(t, c.sim, c.hits)
	t.Cleanup(c.prom.Close)
	c.tokenFile = filepath.Join(c.work, "token")
	if err := os.WriteFile(c.tokenFile, []byte(plantedToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLiveFakeServers(t *testing.T) {
	lc := newLiveCase(t, 12*time.Minute)
	label, prom, work, tokenFile, hits := lc.label, lc.prom, lc.work, lc.tokenFile, lc.hits
	bundle := filepath.Join(work, "bundle")
	at := label.AlertTime
	args := []string{"--jaeger-url", "http://127.0.0.1:1", "--prometheus-url", prom.URL, "--token-file", tokenFile,
		"--at", at, "--baseline", "6m", "--target", "vllm:gpu_util", "--retries", "1", "--timeout", "5s", "--save-bundle", bundle}
	var out, errb bytes.Buffer
	if code := Run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("live run: exit %d\n%s", code, errb.String())
	}
	if hits.Load() < 30 {
		t.Errorf("only %d requests reached the fake Prometheus", hits.Load())
	}
	card := out.String()
	for _, want := range []string{"live jaeger", "no traces", "--at " + at} {
		if !strings.Contains(card, want) {
			t.Errorf("scorecard lacks %q", want)
		}
	}
	if !strings.Contains(errb.String(), "prometheus: ") {
		t.Errorf("no progress on stderr:\n%s", errb.String())
	}
	// The secret is nowhere: not in stdout, stderr, or any saved file.
	assertNoSecret(t, map[string]string{"stdout": card, "stderr": errb.String()}, bundle)

	// The saved bundle reproduces the scorecard byte for byte.
	var again, errb2 bytes.Buffer
	// The card's rerun command is the analysis flags and the bundle.
	replay := []string{"--baseline", "6m", "--target", "vllm:gpu_util", bundle}
	if code := Run(replay, nil, &again, &errb2); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errb2.String())
	}
	if again.String() != card {
		t.Errorf("replay differs from the live scorecard:\n--- live\n%s\n--- replay\n%s", card, again.String())
	}
	// --quiet keeps stderr empty on a live run too.
	var q, qerr bytes.Buffer
	if code := Run(append([]string{"--quiet", "-o", "json"}, args[:len(args)-2]...), nil, &q, &qerr); code != 0 || qerr.Len() != 0 {
		t.Errorf("quiet live run: exit %d, stderr %q", code, qerr.String())
	}
	var js struct {
		Manifest struct{ Args []string }
	}
	if err := json.Unmarshal(q.Bytes(), &js); err != nil || strings.Contains(strings.Join(js.Manifest.Args, " "), "-url") ||
		len(js.Manifest.Args) != 9 || js.Manifest.Args[0] != "pipeline-analyze" || !strings.Contains(js.Manifest.Args[8], "pipeline-analyze-live-") {
		t.Errorf("json manifest args: %v %q", err, js.Manifest.Args)
	}
}

func TestLiveTotalFailure(t *testing.T) {
	var out, errb bytes.Buffer
	t.Setenv("PIPELINE_ANALYZE_TOKEN", plantedToken)
	code := Run([]string{"--jaeger-url", "http://127.0.0.1:1", "--prometheus-url", "http://u:" + plantedToken + "@127.0.0.1:1", "--retries", "0", "--quiet"}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	msg := errb.String()
	if !strings.Contains(msg, "nothing fetched") || !strings.Contains(msg, "jaeger") || !strings.Contains(msg, "prometheus") {
		t.Errorf("unclear error: %s", msg)
	}
	assertNoSecret(t, map[string]string{"stdout": out.String(), "stderr": msg}, "")
}

// assertNoSecret fails when the planted token occurs in any output or any
// file under dir.
func assertNoSecret(t *testing.T, outputs map[string]string, dir string) {
	t.Helper()
	for name, s := range outputs {
		if strings.Contains(s, plantedToken) {
			t.Errorf("the token leaked into %s", name)
		}
	}
	if dir == "" {
		return
	}
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		}
		if bytes.Contains(data, []byte(plantedToken)) {
			t.Errorf("the token leaked into %s", p)
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no files saved under %s", dir)
	}
}

// TestLiveCompare: compare with live sources fetches one range holding
// both windows (and the earlier one's baseline), compares the two windows
// of it, and the saved bundle replays the same report offline.
func TestLiveCompare(t *testing.T) {
	lc := newLiveCase(t, 14*time.Minute)
	label, prom, work, tokenFile, hits, sim := lc.label, lc.prom, lc.work, lc.tokenFile, lc.hits, lc.sim
	start, err := time.Parse(time.RFC3339Nano, label.Start)
	if err != nil {
		t.Fatal(err)
	}
	beforeAt := start.Add(6 * time.Minute).Format(time.RFC3339)
	bundle := filepath.Join(work, "bundle")
	// BEFORE six minutes in, after a 4-minute baseline: the three 2-minute
	// windows a band needs (with fewer, compare says "insufficient
	// baseline", never a regression).
	flags := []string{"--target", "vllm:gpu_util", "--window", "2m", "--baseline", "4m", "--before-at", beforeAt, "--after-at", label.AlertTime, "-o", "json"}
	args := append([]string{"compare", "--prometheus-url", prom.URL, "--token-file", tokenFile, "--retries", "1", "--timeout", "5s",
		"--save-bundle", bundle}, flags...)
	var out, errb bytes.Buffer
	if code := Run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("live compare: exit %d\n%s", code, errb.String())
	}
	if hits.Load() < 30 {
		t.Errorf("only %d requests reached the fake Prometheus", hits.Load())
	}
	var rep struct {
		Verdict struct{ Text string }
		Items   []struct{ Verdict string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	regressed := 0
	for _, it := range rep.Items {
		if it.Verdict == "regressed" {
			regressed++
		}
	}
	if len(rep.Items) == 0 || regressed == 0 {
		t.Errorf("live compare of a healthy and a faulty window: %d items, %d regressed (%s)", len(rep.Items), regressed, rep.Verdict.Text)
	}
	assertNoSecret(t, map[string]string{"stdout": out.String(), "stderr": errb.String()}, bundle)
	var again, errb2 bytes.Buffer
	if code := Run(append(append([]string{"compare"}, flags...), bundle), nil, &again, &errb2); code != 0 {
		t.Fatalf("offline compare of the saved bundle: exit %d\n%s", code, errb2.String())
	}
	if again.String() != out.String() {
		a, b := strings.Split(out.String(), "\n"), strings.Split(again.String(), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Errorf("the saved bundle compares differently offline, line %d:\n live    %s\n offline %s", i+1, a[i], b[i])
				break
			}
		}
	}
	// Usage: live sources need both times and no inputs.
	for _, bad := range [][]string{
		{"compare", "--prometheus-url", prom.URL, "--after-at", label.AlertTime},
		{"compare", "--prometheus-url", prom.URL, "--before-at", beforeAt, "--after-at", label.AlertTime, sim},
	} {
		var o, e bytes.Buffer
		if code := Run(bad, nil, &o, &e); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, e.String())
		}
	}
}
