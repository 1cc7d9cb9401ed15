package driver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// stepVerbs are the fixed words a built-in step may use; every other word
// of a command must be a name from the case's own data.
var stepVerbs = map[string]bool{"kubectl": true, "nvidia-smi": true, "dcgmi": true, "describe": true, "pod": true, "node": true,
	"logs": true, "rollout": true, "history": true, "undo": true, "restart": true, "delete": true, "get": true, "pods": true,
	"cordon": true, "drain": true, "scale": true, "pmon": true, "diag": true, "wide": true, "PERFORMANCE,CLOCK,ECC": true, "5": true, "1": true}

// TestNextStepsOnDevelopmentCases walks the development cases (two of each
// set, every kind of top cause they produce): every command parses with
// bash, and each of its words is a fixed word, a flag, or a name that the
// case's own data holds (an entity, a label value, a workload of its pods).
func TestNextStepsOnDevelopmentCases(t *testing.T) {
	if testing.Short() {
		t.Skip("development data test skipped in -short mode")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	labels, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "*", "*", "label.json"))
	if len(labels) == 0 {
		t.Skip("no development cases")
	}
	sort.Strings(labels)
	perSet := map[string]int{}
	kinds := map[string]bool{}
	for _, l := range labels {
		dir := filepath.Dir(l)
		set := filepath.Base(filepath.Dir(dir))
		if perSet[set] >= 2 {
			continue
		}
		perSet[set]++
		b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, e := range b.Entities {
			for _, n := range []string{e.Name, e.Service, e.Node, e.GPU} {
				names[n] = true
				names["deployment/"+ingest.WorkloadOf(n)] = true
				names["statefulset/"+ingest.WorkloadOf(n)] = true
			}
		}
		for _, s := range b.Series {
			for _, lb := range s.Labels {
				names[lb.Value] = true
			}
		}
		r := runCmd(nil, "-q", "-o", "json", dir)
		if r.code != 0 {
			t.Fatalf("%s: %v", dir, r)
		}
		var card struct {
			Causes []struct {
				ComponentKind string `json:"component_kind"`
				NextSteps     []struct {
					Kind, Command string
				} `json:"next_steps"`
			} `json:"causes"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
			t.Fatal(err)
		}
		for _, c := range card.Causes {
			if len(c.NextSteps) > 0 {
				kinds[c.ComponentKind] = true
			}
			for _, st := range c.NextSteps {
				if st.Command == "" {
					continue
				}
				out, err := exec.Command(bash, "-c", "printf '%s\\0' "+st.Command).Output()
				if err != nil {
					t.Errorf("%s: bash rejects %q: %v", dir, st.Command, err)
					continue
				}
				for _, w := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
					if stepVerbs[w] || strings.HasPrefix(w, "-") || names[w] {
						continue
					}
					t.Errorf("%s: %q: word %q is not in the case's data", filepath.Base(dir), st.Command, w)
				}
			}
		}
	}
	t.Logf("cause kinds with steps: %v", kinds)
	if len(kinds) < 3 {
		t.Errorf("steps for only %d kinds of cause: %v", len(kinds), kinds)
	}
}

// TestRunbooksFlag: --runbooks puts the team's steps first on the demo's
// card; a bad file is a one-line error naming it.
func TestRunbooksFlag(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "runbooks.yaml")
	if err := os.WriteFile(good, []byte("runbooks:\n  - kind: gpu\n    url: https://wiki.example/gpu\n    steps: [{text: health, command: \"dcgmi health -c -g {gpu}\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(nil, "-q", "-o", "json", "--runbooks", good)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	var card struct {
		Causes []struct {
			NextSteps []struct{ Command, URL, Source string } `json:"next_steps"`
		} `json:"causes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
		t.Fatal(err)
	}
	st := card.Causes[0].NextSteps
	if len(st) < 3 || st[0].URL != "https://wiki.example/gpu" || !strings.HasPrefix(st[1].Command, "dcgmi health -c -g GPU-") || st[1].Source != "runbook" {
		t.Errorf("steps %+v", st)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("runbooks: [{kind: gpu}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCmd(nil, "-q", "--runbooks", bad); r.code == 0 || !strings.Contains(r.stderr, "bad.yaml") {
		t.Errorf("bad runbooks: %v", r)
	}
	// Read before the data: with an input that does not exist, the
	// runbooks' error is the one said.
	if r := runCmd(nil, "-q", "--runbooks", bad, filepath.Join(dir, "no-such-incident")); r.code != 1 ||
		!strings.Contains(r.stderr, "--runbooks") || strings.Contains(r.stderr, "no-such-incident") {
		t.Errorf("bad runbooks beside a missing input: %v", r)
	}
}
