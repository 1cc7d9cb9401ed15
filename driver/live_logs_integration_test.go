package driver

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestLiveVictoriaLogs loads a real incident's logs into a real
// VictoriaLogs (built from tools/victorialogs/go.mod by
// scripts/live-services.sh, run on a free 127.0.0.1 port and stopped by its
// PID) through its Loki push endpoint, as promtail would, fetches them back
// with --victorialogs-url (paged), analyses them with the incident's traces
// and metrics, and replays the saved bundle byte for byte.
func TestLiveVictoriaLogs(t *testing.T) {
	bin := needBin(t, "PIPELINE_ANALYZE_VICTORIALOGS_BIN")
	caseDir := filepath.Join("..", "..", "shared", "data", "nezha-tt-dev", "tt-20230129-085206")
	if _, err := os.Stat(caseDir); err != nil {
		t.Skipf("shared incident not present: %v", err)
	}
	work := t.TempDir()
	port := freePort(t)
	startServer(t, work, "victorialogs", bin, fmt.Sprintf("-httpListenAddr=127.0.0.1:%d", port),
		"-storageDataPath="+filepath.Join(work, "vl-data"), "-retentionPeriod=100y", "-loggerLevel=WARN")
	vl := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, vl+"/health")

	// The case's Loki query result, pushed stream by stream in batches.
	pushed := pushLokiFile(t, vl, filepath.Join(caseDir, "logs.json.gz"))
	resp, err := http.Get(vl + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	var inputs []string // everything of the case but its logs
	entries, _ := os.ReadDir(caseDir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "logs") && e.Name() != "label.json" {
			inputs = append(inputs, filepath.Join(caseDir, e.Name()))
		}
	}
	sort.Strings(inputs)
	bundle := filepath.Join(work, "bundle")
	t.Setenv("PIPELINE_ANALYZE_TOKEN", plantedToken)
	args := append([]string{"--victorialogs-url", vl, "--log-selector", `{namespace="train-ticket"}`, "--log-page", "2000",
		"--at", "2023-01-29T08:52:06Z", "--baseline", "30m", "--save-bundle", bundle, "-o", "json"}, inputs...)
	var out, errb bytes.Buffer
	t0 := time.Now()
	if code := Run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("live run: exit %d\n%s", code, tail(errb.String(), 4000))
	}
	t.Logf("pushed %d entries; live fetch + analysis in %v", pushed, time.Since(t0).Round(time.Millisecond))
	assertNoSecret(t, map[string]string{"stdout": out.String(), "stderr": errb.String()}, bundle)

	// The bundle holds every record of the fetched range, in several pages.
	pages, _ := filepath.Glob(filepath.Join(bundle, "logs", "victorialogs_*.jsonl"))
	b, err := features.Read([]string{filepath.Join(bundle, "logs")}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := countLokiEntries(t, filepath.Join(caseDir, "logs.json.gz"), time.Date(2023, 1, 29, 8, 19, 36, 0, time.UTC), time.Date(2023, 1, 29, 8, 54, 36, 0, time.UTC))
	if len(pages) < 2 || len(b.Logs) != want {
		t.Errorf("%d pages, %d records; want several pages and the %d entries of the range", len(pages), len(b.Logs), want)
	}
	services := map[string]bool{}
	for _, s := range b.LogStreams {
		services[s.Service] = true
	}
	if !services["ts-contacts-service"] || len(services) < 20 {
		t.Errorf("services %v: want the case's streams placed by their labels", services)
	}

	// The saved bundle reproduces the scorecard byte for byte.
	var again, errb2 bytes.Buffer
	if code := Run(append([]string{"--baseline", "30m", "-o", "json"}, append(inputs, bundle)...), nil, &again, &errb2); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errb2.String())
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		os.WriteFile(filepath.Join(os.TempDir(), "vl-live.json"), out.Bytes(), 0o644)
		os.WriteFile(filepath.Join(os.TempDir(), "vl-replay.json"), again.Bytes(), 0o644)
		t.Errorf("replay of %s differs from the live scorecard (both written to %s)", bundle, os.TempDir())
	}
}

// lokiResult is the part of a Loki query_range file the test re-sends.
type lokiResult struct {
	Data struct {
		Result []struct {
			Stream map[string]string `json:"stream"`
			Values [][]string        `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

func readLokiFile(t *testing.T, path string) lokiResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var lr lokiResult
	if err := json.Unmarshal(data, &lr); err != nil {
		t.Fatal(err)
	}
	return lr
}

// pushLokiFile posts a Loki query result to a Loki push endpoint
// (/insert/loki/api/v1/push), 1,000 entries a request, and returns the
// number of entries sent.
func pushLokiFile(t *testing.T, base, path string) int {
	t.Helper()
	lr := readLokiFile(t, path)
	n := 0
	for _, s := range lr.Data.Result {
		for i := 0; i < len(s.Values); i += 1000 {
			vals := s.Values[i:min(i+1000, len(s.Values))]
			body, _ := json.Marshal(map[string]any{"streams": []any{map[string]any{"stream": s.Stream, "values": vals}}})
			resp, err := http.Post(base+"/insert/loki/api/v1/push", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				t.Fatalf("push: HTTP %d: %s", resp.StatusCode, msg)
			}
			n += len(vals)
		}
	}
	return n
}

// countLokiEntries counts the entries of a Loki file with a time in [from, to).
func countLokiEntries(t *testing.T, path string, from, to time.Time) int {
	t.Helper()
	lr := readLokiFile(t, path)
	n := 0
	for _, s := range lr.Data.Result {
		for _, v := range s.Values {
			var ns int64
			fmt.Sscan(v[0], &ns)
			if ns >= from.UnixNano() && ns < to.UnixNano() {
				n++
			}
		}
	}
	return n
}

// TestLiveLokiRecorded serves a real Loki query_range response (the case's
// logs.json.gz, as Loki returned it) from a local test server, fetches it
// with --loki-url (the bearer token checked), analyses it with the case's
// traces and metrics, and replays the saved bundle byte for byte.
func TestLiveLokiRecorded(t *testing.T) {
	caseDir := filepath.Join("..", "..", "shared", "data", "nezha-tt-dev", "tt-20230129-085206")
	if _, err := os.Stat(caseDir); err != nil {
		t.Skipf("shared incident not present: %v", err)
	}
	f, err := os.Open(filepath.Join(caseDir, "logs.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/loki/api/v1/query_range" || r.Header.Get("Authorization") != "Bearer "+plantedToken {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		queries = append(queries, r.URL.Query().Get("query"))
		if len(queries) == 1 {
			w.Write(recorded)
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"streams","result":[]}}`))
	}))
	defer srv.Close()
	var inputs []string
	entries, _ := os.ReadDir(caseDir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "logs") && e.Name() != "label.json" {
			inputs = append(inputs, filepath.Join(caseDir, e.Name()))
		}
	}
	sort.Strings(inputs)
	bundle := filepath.Join(t.TempDir(), "bundle")
	t.Setenv("PIPELINE_ANALYZE_TOKEN", plantedToken)
	args := append([]string{"--loki-url", srv.URL, "--log-selector", `{namespace="train-ticket"}`, "--log-page", "5000",
		"--at", "2023-01-29T08:52:06Z", "--save-bundle", bundle, "-q", "-o", "json"}, inputs...)
	var out, errb bytes.Buffer
	if code := Run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("live run: exit %d\n%s", code, tail(errb.String(), 4000))
	}
	assertNoSecret(t, map[string]string{"stdout": out.String(), "stderr": errb.String()}, bundle)
	if len(queries) != 2 || queries[0] != `{namespace="train-ticket"}` {
		t.Errorf("queries %q: want the selector, and a second page after the first (full) one", queries)
	}
	saved, err := os.ReadFile(filepath.Join(bundle, "logs", "loki_001.json"))
	if err != nil || !bytes.Equal(saved, recorded) {
		t.Errorf("the saved page must be the response byte for byte (%v)", err)
	}
	var card struct {
		Inputs []struct {
			Path   string
			Format string
		}
	}
	json.Unmarshal(out.Bytes(), &card)
	found := false
	for _, in := range card.Inputs {
		found = found || in.Format == "loki-streams" && strings.HasSuffix(in.Path, "loki_001.json")
	}
	if !found {
		t.Errorf("inputs %+v: want the saved Loki page read as loki-streams", card.Inputs)
	}
	var again, errb2 bytes.Buffer
	if code := Run(append([]string{"-q", "-o", "json"}, append(inputs, bundle)...), nil, &again, &errb2); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errb2.String())
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("replay of %s differs from the live scorecard", bundle)
	}
}
