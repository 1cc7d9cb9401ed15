package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// lateAlertCase copies a development case into a temporary directory
// (symlinks) with its alert firing late more than it did: an alert whose
// rule must hold a while (`for:`) fires minutes after the onset.
func lateAlertCase(t *testing.T, src string, late time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(src, e.Name())
		if e.Name() != "alert.json" {
			if err := os.Symlink(p, filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		alerts, _ := doc["alerts"].([]any)
		for _, a := range alerts {
			m := a.(map[string]any)
			at, err := time.Parse(time.RFC3339, m["startsAt"].(string))
			if err != nil {
				t.Fatal(err)
			}
			m["startsAt"] = at.Add(late).Format(time.RFC3339Nano)
		}
		out, _ := json.Marshal(doc)
		if err := os.WriteFile(filepath.Join(dir, "alert.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWindowReachesBackToOnset: with the alert two minutes later than the
// development case's, the window centred on it starts inside the incident;
// it reaches back to the target's onset, says so, and the labelled service
// comes first again. With --onset-lookback 0 the window stays centred and
// the onset's minutes sit in the baseline.
func TestWindowReachesBackToOnset(t *testing.T) {
	src := filepath.Join(devCase(t, "nezha-ob", "ob-20220822-042703"), "ob-20220822-042703")
	truth := labelledService(t, src)
	dir := lateAlertCase(t, src, 2*time.Minute)
	type card struct {
		Incident struct {
			At             time.Time `json:"at"`
			WindowStart    time.Time `json:"window_start"`
			WindowChosenBy string    `json:"window_chosen_by"`
		} `json:"incident"`
		Causes []struct {
			Service string `json:"service"`
		} `json:"causes"`
	}
	run := func(args ...string) card {
		r := runCmd(nil, append([]string{"-q", "-o", "json"}, append(args, dir)...)...)
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		var c card
		if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Causes) == 0 {
			t.Fatal("no causes")
		}
		return c
	}
	centred := run("--onset-lookback", "0")
	if in := centred.Incident; in.WindowChosenBy != "" || !in.WindowStart.Equal(in.At.Add(-150*time.Second)) {
		t.Errorf("--onset-lookback 0: window from %v (at %v), %q: want centred", in.WindowStart, in.At, in.WindowChosenBy)
	}
	c := run()
	in := c.Incident
	if in.WindowChosenBy == "" || !in.WindowStart.Before(in.At.Add(-150*time.Second)) {
		t.Fatalf("window from %v (at %v), %q: want it to reach back to the onset", in.WindowStart, in.At, in.WindowChosenBy)
	}
	if c.Causes[0].Service != truth {
		t.Errorf("first cause %s, want the labelled %s", c.Causes[0].Service, truth)
	}
	if centred.Causes[0].Service == truth {
		t.Logf("the centred window also ranks %s first", truth)
	}
}
