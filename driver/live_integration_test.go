package driver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// The integration tests run a real Jaeger v2 (built from tools/go.mod) and a
// real Prometheus (Debian's package) on 127.0.0.1. scripts/live-services.sh
// install prints the variables they read; .ci/run sets them. Each server is
// started here on free ports and stopped by its PID.

func needBin(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		t.Skipf("%s not set: run `eval $(scripts/live-services.sh install)` to test against a real server", env)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s=%s: %v", env, p, err)
	}
	return p
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer starts a command, logs to dir/name.log, and stops it by PID at cleanup.
func startServer(t *testing.T, dir, name string, bin string, args ...string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logf.Name())
			t.Logf("%s log (tail):\n%s", name, tail(string(data), 3000))
		}
	})
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 60s", url)
}

// startJaeger runs Jaeger v2 with the loopback memory-storage config and
// returns its query and OTLP/HTTP base URLs.
func startJaeger(t *testing.T, bin, dir string) (query, otlp string) {
	t.Helper()
	p := startJaegerPorts(t, bin, dir)
	return p.query, p.otlp
}

// jaegerPorts are a started Jaeger's endpoints: the HTTP query API, the
// OTLP/HTTP receiver and the gRPC query API (host:port).
type jaegerPorts struct{ query, otlp, grpc string }

// startJaegerPorts is startJaeger, returning the gRPC query port as well.
func startJaegerPorts(t *testing.T, bin, dir string) jaegerPorts {
	t.Helper()
	qp, qg, og, oh := freePort(t), freePort(t), freePort(t), freePort(t)
	cfg := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    enable_tracing: false
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`, qp, qg, og, oh)
	path := filepath.Join(dir, "jaeger.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	startServer(t, dir, "jaeger", bin, "--config", "file:"+path)
	p := jaegerPorts{query: fmt.Sprintf("http://127.0.0.1:%d", qp), otlp: fmt.Sprintf("http://127.0.0.1:%d", oh), grpc: fmt.Sprintf("127.0.0.1:%d", qg)}
	waitHTTP(t, p.query+"/api/v3/services")
	return p
}

// sendOTLP posts an OTLP JSON TracesData file to Jaeger in chunks and waits
// until every service is visible.
func sendOTLP(t *testing.T, otlp, query, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var td struct {
		ResourceSpans []json.RawMessage `json:"resourceSpans"`
	}
	if err := json.Unmarshal(data, &td); err != nil {
		t.Fatal(err)
	}
	services := map[string]bool{}
	for _, rs := range td.ResourceSpans {
		var r struct {
			Resource struct {
				Attributes []struct {
					Key   string
					Value struct{ StringValue string }
				}
			}
		}
		json.Unmarshal(rs, &r)
		for _, a := range r.Resource.Attributes {
			if a.Key == "service.name" {
				services[a.Value.StringValue] = true
			}
		}
	}
	const chunk = 400
	for i := 0; i < len(td.ResourceSpans); i += chunk {
		body, _ := json.Marshal(map[string]any{"resourceSpans": td.ResourceSpans[i:min(i+chunk, len(td.ResourceSpans))]})
		resp, err := http.Post(otlp+"/v1/traces", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("POST /v1/traces: HTTP %d", resp.StatusCode)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(query + "/api/v3/services")
		if err == nil {
			var s struct{ Services []string }
			json.NewDecoder(resp.Body).Decode(&s)
			resp.Body.Close()
			if len(s.Services) >= len(services) {
				time.Sleep(time.Second) // let the batch processor flush the rest
				return len(td.ResourceSpans)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("jaeger did not list the %d services within 30s", len(services))
	return 0
}

// writeOpenMetrics converts the simulator's query_range files into one
// OpenMetrics text file for promtool's backfill. Series without __name__
// take the file's metric name.
func writeOpenMetrics(t *testing.T, simDir, out string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(simDir, "metrics_*.json"))
	sort.Strings(files)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var qr struct {
			Data struct {
				Result []struct {
					Metric map[string]string
					Values [][2]any
				}
			}
		}
		if err := json.Unmarshal(data, &qr); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "metrics_"), ".json")
		typed := map[string]bool{}
		for _, s := range qr.Data.Result {
			name := s.Metric["__name__"]
			if name == "" {
				name = base
			}
			if !typed[name] {
				fmt.Fprintf(w, "# TYPE %s gauge\n", name)
				typed[name] = true
			}
			keys := make([]string, 0, len(s.Metric))
			for k := range s.Metric {
				if k != "__name__" {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			var lb []string
			for _, k := range keys {
				lb = append(lb, k+"="+strconv.Quote(s.Metric[k]))
			}
			for _, v := range s.Values {
				ts := v[0].(float64)
				fmt.Fprintf(w, "%s{%s} %s %s\n", name, strings.Join(lb, ","), v[1].(string), strconv.FormatFloat(ts, 'f', -1, 64))
			}
		}
	}
	w.WriteString("# EOF\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// startPrometheus backfills the simulated metrics and serves them.
func startPrometheus(t *testing.T, bin, promtool, simDir, dir string) string {
	t.Helper()
	om := filepath.Join(dir, "metrics.om")
	writeOpenMetrics(t, simDir, om)
	data := filepath.Join(dir, "prom-data")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool backfill: %v\n%s", err, tail(string(out), 2000))
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte("global:\n  scrape_interval: 15s\nscrape_configs: []\n"), 0o644)
	port := freePort(t)
	startServer(t, dir, "prometheus", bin, "--config.file", cfg, "--storage.tsdb.path", data,
		"--storage.tsdb.retention.time", "100y", "--web.listen-address", fmt.Sprintf("127.0.0.1:%d", port))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, url+"/-/ready")
	return url
}

// TestLiveRealServers sends a simulated incident to a real Jaeger and a real
// Prometheus, analyses it live, and replays the saved bundle.
func TestLiveRealServers(t *testing.T) {
	jbin := needBin(t, "PIPELINE_ANALYZE_JAEGER_BIN")
	pbin := needBin(t, "PROMETHEUS_BIN")
	ptool := needBin(t, "PROMTOOL_BIN")
	work := t.TempDir()
	sim := filepath.Join(work, "sim")
	label, err := fixtures.Write(sim, fixtures.Spec{Fault: "tool_api_slow", Seed: 3, OTLP: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	query, otlp := startJaeger(t, jbin, work)
	n := sendOTLP(t, otlp, query, filepath.Join(sim, "traces.otlp.json"))
	prom := startPrometheus(t, pbin, ptool, sim, work)
	t.Logf("servers up and loaded (%d OTLP resource spans) in %v", n, time.Since(t0).Round(time.Millisecond))

	bundle := filepath.Join(work, "bundle")
	t.Setenv("PIPELINE_ANALYZE_TOKEN", plantedToken) // sent as a bearer token; must leak nowhere
	args := []string{"--jaeger-url", query, "--prometheus-url", prom, "--at", label.AlertTime,
		"--packs", "dcgm", "--query", `{__name__=~".+",__name__!~"DCGM_.+"}`, "--save-bundle", bundle, "-o", "json"}
	var out, errb bytes.Buffer
	t1 := time.Now()
	if code := Run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("live run: exit %d\n%s", code, tail(errb.String(), 4000))
	}
	t.Logf("live fetch + analysis in %v", time.Since(t1).Round(time.Millisecond))
	for _, l := range strings.Split(errb.String(), "\n") {
		if strings.HasPrefix(l, "jaeger:") || strings.HasPrefix(l, "live:") {
			t.Log(l)
		}
	}
	assertNoSecret(t, map[string]string{"stdout": out.String(), "stderr": errb.String()}, bundle)

	var card struct {
		Causes []struct {
			Service, Component string
		}
		Warnings []struct{ Message string }
		Sampling string
	}
	if err := json.Unmarshal(out.Bytes(), &card); err != nil {
		t.Fatal(err)
	}
	rank := -1
	for i, c := range card.Causes {
		if c.Service == label.RootCause.Service && rank < 0 {
			rank = i + 1
		}
	}
	var top []string
	for _, c := range card.Causes[:min(5, len(card.Causes))] {
		top = append(top, c.Service+" "+c.Component)
	}
	t.Logf("injected %s; live ranking: %s", label.RootCause.Service, strings.Join(top, " | "))
	if rank < 1 || rank > 3 {
		t.Errorf("injected cause %s ranked %d, want top-3", label.RootCause.Service, rank)
	}
	t.Logf("sampling: %s", card.Sampling)
	if !strings.Contains(card.Sampling, "jaeger api v3 sampling") {
		t.Errorf("sampling not stated: %q", card.Sampling)
	}

	// The saved bundle reproduces the scorecard byte for byte.
	var again, errb2 bytes.Buffer
	if code := Run([]string{"-o", "json", bundle}, nil, &again, &errb2); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errb2.String())
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("replay of %s differs from the live scorecard", bundle)
	}
}
