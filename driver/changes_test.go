package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChangesBesideAnIncident runs the real binary on the shared incident
// with two more files beside it: change records (an 18 h old deploy, a
// configuration change on the router and a vendor change on the tool API
// minutes before the fault) and a snapshot of ReplicaSets (a router
// rollout minutes before, an old one of October). Both are read by
// content, their changes reach the causes' evidence as events, and the
// history does not stretch the incident's time range.
func TestChangesBesideAnIncident(t *testing.T) {
	dir := copyCase(t)
	raw, err := os.ReadFile(filepath.Join(dir, "label.json"))
	if err != nil {
		t.Fatal(err)
	}
	var label struct {
		InjectTime string `json:"inject_time"`
		Start      string `json:"start"`
	}
	if err := json.Unmarshal(raw, &label); err != nil {
		t.Fatal(err)
	}
	inject, err := time.Parse(time.RFC3339, label.InjectTime)
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) string { return inject.Add(d).UTC().Format(time.RFC3339) }
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("deploys.csv", "# deploys and config commits of the last 24 h\ntime,service,what,who,kind\n"+
		at(-18*time.Hour)+",api-gateway,deploy v3.1.0,ci-bot,deploy\n"+
		at(-2*time.Minute)+",llm-serving/router,config: tool timeout 5s → 30s,alice,config\n"+
		at(-90*time.Second)+",tool-api,vendor: search API moved to v2,vendor-notice,config\n")
	write("rollouts.json", `{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"router-5c8d7b9f64","namespace":"llm-serving","creationTimestamp":"2026-10-01T10:00:00Z",
  "annotations":{"deployment.kubernetes.io/revision":"3"},"labels":{"pod-template-hash":"5c8d7b9f64"},"ownerReferences":[{"kind":"Deployment","name":"router","controller":true}]},
  "spec":{"replicas":0,"template":{"spec":{"containers":[{"name":"router","image":"ghcr.io/acme-ai/llm-router:1.8.3"}]}}}},
 {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"router-q2qvt2vl7z","namespace":"llm-serving","creationTimestamp":"`+at(-5*time.Minute)+`",
  "annotations":{"deployment.kubernetes.io/revision":"4"},"labels":{"pod-template-hash":"q2qvt2vl7z"},"ownerReferences":[{"kind":"Deployment","name":"router","controller":true}]},
  "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"router","image":"ghcr.io/acme-ai/llm-router:1.9.0"}]}}}}]}`)

	r := runBinary(t, 2*time.Minute, nil, "-q", "-o", "json", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		Incident struct {
			BaselineStart string `json:"baseline_start"`
		} `json:"incident"`
		Inputs []struct {
			Path, Format string
			Events       int
			Skipped      bool
		} `json:"inputs"`
		Causes []struct {
			Service  string
			Evidence []struct{ Kind, Text, At string } `json:"evidence"`
		} `json:"causes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	read := map[string]string{}
	for _, in := range out.Inputs {
		if !in.Skipped {
			read[filepath.Base(in.Path)] = fmt.Sprintf("%s/%d", in.Format, in.Events)
		}
	}
	if read["deploys.csv"] != "change-records/3" || read["rollouts.json"] != "k8s-objects/2" {
		t.Errorf("inputs read: deploys.csv %q, rollouts.json %q; want change-records with 3 events, k8s-objects with 2", read["deploys.csv"], read["rollouts.json"])
	}
	start, err := time.Parse(time.RFC3339, label.Start)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := time.Parse(time.RFC3339Nano, out.Incident.BaselineStart); err != nil || b.Before(start.Add(-time.Minute)) {
		t.Errorf("the baseline starts at %s, the data at %s: the history stretched the time range", out.Incident.BaselineStart, label.Start)
	}
	var seen []string
	for _, c := range out.Causes {
		for _, e := range c.Evidence {
			if e.Kind == "event" && (strings.Contains(e.Text, "tool timeout 5s → 30s by alice") || strings.Contains(e.Text, "search API moved to v2") ||
				strings.Contains(e.Text, "ReplicaSetCreated") && strings.Contains(e.Text, "llm-router:1.8.3 → ghcr.io/acme-ai/llm-router:1.9.0")) {
				seen = append(seen, c.Service+": "+e.Text)
			}
		}
	}
	if len(seen) == 0 {
		t.Errorf("no change of the records or the snapshot among the causes' evidence:\n%.3000s", r.stdout)
	}
	t.Logf("changes in the evidence: %q", seen)
}
