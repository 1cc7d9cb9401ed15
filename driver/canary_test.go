package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// rolloutCase is a simulated bad_config_rollout incident: the vllm
// Deployment rolled one replica at a time to a version that serves slowly
// (written once beside smallCase's).
var rolloutCase struct {
	once sync.Once
	dir  string
	err  error
}

func rolloutDir(t *testing.T) string {
	t.Helper()
	c := &rolloutCase
	c.once.Do(func() {
		c.dir = filepath.Join(filepath.Dir(smallCase(t)), "rollout")
		_, c.err = fixtures.Write(c.dir, fixtures.Spec{Fault: "bad_config_rollout", Seed: 7, SampleRate: 0.08})
	})
	if c.err != nil {
		t.Fatalf("simulate: %v", c.err)
	}
	return c.dir
}

// canaryJSON is the part of a canary report these tests read.
type canaryJSON struct {
	Mode   string `json:"mode"`
	Canary struct {
		Verdict   string `json:"verdict"`
		Workloads []struct {
			Workload string  `json:"workload"`
			Service  string  `json:"service"`
			Verdict  string  `json:"verdict"`
			Score    float64 `json:"score"`
			Metrics  []struct {
				Signal string `json:"signal"`
				Bad    bool   `json:"bad"`
			} `json:"metrics"`
		} `json:"workloads"`
	} `json:"canary"`
}

// TestCompareCanary is `compare --canary auto` end to end, in process:
// the simulated bad rollout's new vllm pods fail against the old ones,
// the gate trips, and the JSON lists the workload.
func TestCompareCanary(t *testing.T) {
	dir := rolloutDir(t)
	r := runCmd(nil, "compare", "-q", "--canary", "auto", "--fail-on", "fail", "-o", "json", dir)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (the gate): %v", r.code, r)
	}
	var c canaryJSON
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.Mode != "canary" || c.Canary.Verdict != "fail" || len(c.Canary.Workloads) != 1 {
		t.Fatalf("report %+v", c)
	}
	w := c.Canary.Workloads[0]
	if w.Service != "vllm" || w.Verdict != "fail" || !strings.HasPrefix(w.Workload, "vllm-") {
		t.Errorf("workload %+v, want vllm's new ReplicaSet failing", w)
	}
	badLatency := false
	for _, m := range w.Metrics {
		badLatency = badLatency || m.Bad && m.Signal == "latency"
	}
	if !badLatency {
		t.Errorf("no bad latency metric in %+v", w.Metrics)
	}
	// The same without a gate exits 0; Markdown for the pull request.
	r = runCmd(nil, "compare", "-q", "--canary", "auto", "-o", "markdown", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "## Canary analysis") || !strings.Contains(r.stdout, "**fail**") {
		t.Errorf("markdown: %v", r)
	}
}

// TestCompareCanaryUsage checks canary mode's usage errors and messages.
func TestCompareCanaryUsage(t *testing.T) {
	dir := rolloutDir(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"before-at", []string{"compare", "--canary", "auto", "--before-at", "now", dir}, 2, "not for canary mode"},
		{"gate", []string{"compare", "--canary", "auto", "--fail-on", "regressed", dir}, 2, "fail, marginal or never"},
		{"no canary", []string{"compare", "--baseline-group", "v1", dir, dir}, 2, "add --canary"},
		{"empty selector", []string{"compare", "--canary", "", dir}, 2, "--canary"},
		{"bad selector", []string{"compare", "--canary", "version=", dir}, 1, "KEY=VALUE"},
		{"unmatched", []string{"compare", "-q", "--canary", "version=v9", dir}, 1, "matches no group"},
		{"no input", []string{"compare", "--canary", "auto"}, 2, "want DATA"},
		{"scores", []string{"compare", "--canary", "auto", "--pass-score", "40", dir}, 2, "marginal ≤ pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestCompareCanaryBinary runs canary mode through the real binary, as a
// CI job would: HTML exported, the gate's exit status, nothing left in
// TMPDIR.
func TestCompareCanaryBinary(t *testing.T) {
	dir := rolloutDir(t)
	out := filepath.Join(t.TempDir(), "canary.html")
	r := runBinary(t, 2*time.Minute, nil, "compare", "--canary", "auto", "--fail-on", "fail", "-o", "html", "--export", out, dir)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "judged 1 canary") {
		t.Errorf("no progress line on stderr: %q", r.stderr)
	}
	if left := leftovers(r.tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{"<h1>Canary analysis</h1>", "v-fail", "vllm"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// TestLiveCanary is the CI job after a rollout: --canary auto over what a
// (fake) Prometheus returns, with the cluster's events from a local
// `kubectl get events -o json` file; the gate trips on the bad rollout.
func TestLiveCanary(t *testing.T) {
	sim, work := t.TempDir(), t.TempDir()
	if _, err := fixtures.Write(sim, fixtures.Spec{Fault: "bad_config_rollout", Seed: 7, SampleRate: 0.08}); err != nil {
		t.Fatal(err)
	}
	hits := new(atomic.Int32)
	prom := fakePrometheus(t, sim, hits)
	defer prom.Close()
	tokenFile := filepath.Join(work, "token")
	if err := os.WriteFile(tokenFile, []byte(plantedToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(work, "bundle")
	r := runCmd(nil, "compare", "--canary", "auto", "--prometheus-url", prom.URL, "--token-file", tokenFile, "--retries", "1",
		"--timeout", "5s", "--save-bundle", bundle, "--fail-on", "fail", "-o", "markdown", filepath.Join(sim, "events.json"))
	if r.code != 3 {
		t.Fatalf("exit %d, want 3: %v", r.code, r)
	}
	if hits.Load() < 10 {
		t.Errorf("only %d requests reached the fake Prometheus", hits.Load())
	}
	if !strings.Contains(r.stdout, "## Canary analysis") || !strings.Contains(r.stdout, "**fail**") {
		t.Errorf("markdown:\n%s", r.stdout)
	}
	assertNoSecret(t, map[string]string{"stdout": r.stdout, "stderr": r.stderr}, bundle)
}
