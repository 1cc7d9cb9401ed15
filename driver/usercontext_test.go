package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// simulatedIncident writes the quick start's simulated incident (an
// alert on api-gateway's time to first token) into a temporary directory.
func simulatedIncident(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "incident")
	if r := runCmd(nil, "simulate", "--fault", "tool_api_slow", "--seed", "7", "--duration", "14m", "--out", dir); r.code != 0 {
		t.Fatal(r)
	}
	return dir
}

// editAlert rewrites the first alert of dir/alert.json with edit.
func editAlert(t *testing.T, dir string, edit func(a map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "alert.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	edit(p["alerts"].([]any)[0].(map[string]any))
	if data, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUserContext runs the real binary on each of issue 42's tired-human
// mistakes: each is said, in one line, or refused with what to do.
func TestUserContext(t *testing.T) {
	inc := simulatedIncident(t)
	const limit = 2 * time.Minute
	t.Run("empty input lists what is read", func(t *testing.T) {
		r := runBinary(t, limit, nil, "-q", t.TempDir())
		if r.code != 1 || !strings.Contains(r.stderr, "no input files in") || !strings.Contains(r.stderr, "query_range") ||
			!strings.Contains(r.stderr, "--prometheus-url") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("--at far from the firing alert is a note on the first screen", func(t *testing.T) {
		r := runBinary(t, limit, nil, "-q", "--at", "2026-11-30T02:06:00Z", inc)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		head := strings.Join(strings.Split(r.stdout, "\n")[:min(25, strings.Count(r.stdout, "\n"))], "\n")
		if !strings.Contains(head, "before the firing alert TTFTSLOBreach") || !strings.Contains(head, "drop --at to follow the alert") {
			t.Errorf("no note on the first screen:\n%s", head)
		}
		near := runBinary(t, limit, nil, "-q", "--at", "2026-11-30T02:13:00Z", inc)
		if strings.Contains(near.stdout, "the firing alert TTFTSLOBreach (startsAt") {
			t.Error("a note for an --at within a window of the alert")
		}
	})
	t.Run("a stale alert is said on the first screen", func(t *testing.T) {
		dir := simulatedIncident(t)
		editAlert(t, dir, func(a map[string]any) { a["startsAt"] = "2026-12-02T02:12:45Z" })
		r := runBinary(t, limit, nil, "-q", dir)
		head := strings.Join(strings.Split(r.stdout, "\n")[:min(25, strings.Count(r.stdout, "\n"))], "\n")
		if r.code != 0 || !strings.Contains(head, "was left out") || !strings.Contains(head, "a stale alert, or another incident's") {
			t.Errorf("exit %d, stderr %q\n%s", r.code, r.stderr, head)
		}
	})
	t.Run("an alert of another incident is a note", func(t *testing.T) {
		dir := simulatedIncident(t)
		editAlert(t, dir, func(a map[string]any) { a["labels"].(map[string]any)["service"] = "checkout" })
		r := runBinary(t, limit, nil, "-q", "--target", "api-gateway", dir)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		r = runBinary(t, limit, nil, "-q", dir)
		if !strings.Contains(r.stdout+r.stderr, "names service checkout, which the data does not hold") {
			t.Errorf("exit %d, no note:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("resolved alerts only are a note", func(t *testing.T) {
		dir := simulatedIncident(t)
		editAlert(t, dir, func(a map[string]any) { a["status"] = "resolved" })
		r := runBinary(t, limit, nil, "-q", dir)
		if r.code != 0 || !strings.Contains(r.stdout, "none is firing") {
			t.Errorf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
		}
	})
	t.Run("export extension", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "x.html")
		r := runBinary(t, limit, nil, "-q", "--export", out, inc)
		data, _ := os.ReadFile(out)
		if r.code != 0 || !strings.HasPrefix(string(data), "<!DOCTYPE html>") {
			t.Errorf("--export x.html without -o: exit %d, file starts %.40q", r.code, data)
		}
		r = runBinary(t, limit, nil, "-q", "-o", "text", "--export", filepath.Join(t.TempDir(), "y.html"), inc)
		if r.code != 2 || !strings.Contains(r.stderr, "give -o html") {
			t.Errorf("-o text --export y.html: exit %d, stderr %q", r.code, r.stderr)
		}
		md := filepath.Join(t.TempDir(), "t.md")
		if r := runBinary(t, limit, nil, "-q", "--export", md, inc); r.code != 0 {
			t.Fatal(r.stderr)
		}
		if data, _ := os.ReadFile(md); !strings.HasPrefix(string(data), "## Root-cause scorecard") {
			t.Errorf("--export t.md is not Markdown: %.60q", data)
		}
	})
	t.Run("--fail-on abstain", func(t *testing.T) {
		// A confidence bar no cause reaches: the card abstains.
		crit := runBinary(t, limit, nil, "-q", "--min-confidence", "0.999", "--fail-on", "critical", inc)
		abst := runBinary(t, limit, nil, "-q", "--min-confidence", "0.999", "--fail-on", "abstain", inc)
		if !strings.Contains(abst.stdout, "no confident root cause") {
			t.Fatalf("the card does not abstain:\n%s", abst.stdout)
		}
		if crit.code != 0 || abst.code != 3 {
			t.Errorf("abstaining card: --fail-on critical exit %d (want 0), --fail-on abstain exit %d (want 3)", crit.code, abst.code)
		}
		if r := runBinary(t, limit, nil, "-q", "--fail-on", "bogus", inc); r.code != 2 || !strings.Contains(r.stderr, "abstain") {
			t.Errorf("--fail-on bogus: exit %d, %q", r.code, r.stderr)
		}
	})
	t.Run("explain N", func(t *testing.T) {
		r := runBinary(t, limit, nil, "explain", "1", "-q", inc)
		if r.code != 0 || !strings.Contains(r.stdout, "Row #1 of") || !strings.Contains(r.stdout, "evidence") {
			t.Errorf("explain 1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := runBinary(t, limit, nil, "explain", "99", "-q", inc); r.code != 2 || !strings.Contains(r.stderr, "the card has") {
			t.Errorf("explain 99: exit %d, %q", r.code, r.stderr)
		}
		if r := runBinary(t, limit, nil, "explain", "x", inc); r.code != 2 || !strings.Contains(r.stderr, "want a row number") {
			t.Errorf("explain x: exit %d, %q", r.code, r.stderr)
		}
	})
	t.Run("--target honoured exactly or refused", func(t *testing.T) {
		r := runBinary(t, limit, nil, "-q", "-o", "json", "--target", "api-gateway:ttft:p99", inc)
		var c struct {
			Incident struct {
				Paged struct{ Series string } `json:"paged"`
			} `json:"incident"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
			t.Fatalf("exit %d: %v: %s", r.code, err, r.stderr)
		}
		if !strings.Contains(c.Incident.Paged.Series, "time_to_first_token") {
			t.Errorf("--target api-gateway:ttft:p99 explains %q", c.Incident.Paged.Series)
		}
		r = runBinary(t, limit, nil, "-q", "--target", "api-gateway:tpot:p99", inc)
		if r.code != 2 || !strings.Contains(r.stderr, `no api-gateway latency series named like "tpot"`) {
			t.Errorf("--target api-gateway:tpot:p99: exit %d, %q", r.code, r.stderr)
		}
	})
}
