package driver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

func TestRunSimulate(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		stdout    string // substring expected on stdout
		stderr    string // substring expected on stderr ("" = stderr must be empty)
		wantLabel string // file that must exist afterwards, relative to out
	}{
		{name: "list", args: []string{"--list"}, code: 0, stdout: "xid_restart"},
		{name: "help", args: []string{"--help"}, code: 0, stdout: "pipeline-analyze simulate --fault gpu_bandwidth_contention --seed 42"},
		{name: "missing out", args: []string{"--fault", "tool_api_slow"}, code: 2, stderr: "--fault and --out are required"},
		{name: "unknown fault", args: []string{"--fault", "cosmic_rays", "--out", filepath.Join(out, "x")}, code: 2, stderr: "unknown fault"},
		{name: "bad flag", args: []string{"--frobnicate"}, code: 2, stderr: "unknown flag"},
		{name: "stray argument", args: []string{"--list", "extra"}, code: 2, stderr: "unexpected arguments"},
		{name: "bad seeds", args: []string{"--catalog", out, "--seeds", "1,x"}, code: 2, stderr: "bad seed"},
		{name: "demo", args: []string{"--demo", "--out", filepath.Join(out, "demo")}, code: 0, stdout: "root cause: vllm / GPU-", wantLabel: "demo/label.json"},
		{name: "combined short", args: []string{"--fault", "tool_api_slow+gpu_throttling", "--seed", "7", "--duration", "6m", "--inject-after", "3m",
			"--out", filepath.Join(out, "combo")}, code: 0, stdout: "tool-api / tool-api", wantLabel: "combo/alert.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := Run(append([]string{"simulate"}, tc.args...), nil, &so, &se)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, so.String(), se.String())
			}
			if !strings.Contains(so.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", so.String(), tc.stdout)
			}
			if tc.stderr == "" && se.Len() > 0 || !strings.Contains(se.String(), tc.stderr) {
				t.Errorf("stderr %q, want %q", se.String(), tc.stderr)
			}
			if tc.wantLabel != "" {
				if _, err := os.Stat(filepath.Join(out, tc.wantLabel)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestRunSimulateList(t *testing.T) {
	var so, se bytes.Buffer
	if code := Run([]string{"simulate", "--list"}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	if !strings.HasPrefix(lines[0], "FAULT") {
		t.Errorf("no header:\n%s", so.String())
	}
	starts := 0
	for _, l := range lines[1:] {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("line of %d columns (> 100): %q", n, l)
		}
		if !strings.HasPrefix(l, " ") {
			starts++
		}
	}
	if want := len(fixtures.Faults()); starts != want {
		t.Errorf("%d fault rows, want %d:\n%s", starts, want, so.String())
	}
}

func TestRunSimulateCatalog(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	if code := Run([]string{"simulate", "--catalog", dir, "--seeds", "9"}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 13 || ents[0].Name() != "bad_config_rollout-s9" {
		t.Fatalf("%d case dirs, first %q; want 13 starting with bad_config_rollout-s9", len(ents), ents[0].Name())
	}
	if n := strings.Count(se.String(), "\n"); n != 14 || !strings.Contains(se.String(), "[13/13]") {
		t.Errorf("progress has %d lines, want 13 cases + summary:\n%s", n, se.String())
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "label.json"))
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Fault     string `json:"fault"`
			AlertTime string `json:"alert_time"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		if l.Fault+"-s9" != e.Name() || l.AlertTime == "" {
			t.Errorf("%s: fault %q alert %q", e.Name(), l.Fault, l.AlertTime)
		}
	}
}
