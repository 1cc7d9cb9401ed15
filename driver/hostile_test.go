package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// TestHostileFiles is the hostile-file suite of issue 15: every case of
// hostileCases runs through the real binary twice, alone and inside a copy
// of a real (simulated) incident, with default flags plus the case's own.
// Every run: no panic, peak RSS <= 1 GiB, wall time <= 60 s, nothing left
// in TMPDIR, stderr lines <= 300 characters with no raw control
// character. Alone, a rejected file exits 1 with one line naming it
// (escaped); beside the incident the run exits 0, the incident is still
// analysed and the hostile input is named in the report (a skipped input
// when rejected). Set HOSTILE_CASE to a substring of a name to run some.
func TestHostileFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile-file suite runs the real binary on large generated inputs")
	}
	t.Parallel() // the server suite mostly waits: it overlaps the file suite
	realBinary(t)
	root := t.TempDir()
	caseDir := filepath.Join(root, "incident")
	label, err := fixtures.Write(caseDir, smallSpec)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, label.AlertTime)
	if err != nil {
		t.Fatal(err)
	}
	g := &hostileGen{t0: at.Add(-3 * time.Minute)}
	clean := runBinary(t, 2*maxRunWall, nil, "-q", "-o", "json", caseDir)
	if clean.code != 0 {
		t.Fatalf("the incident alone: %d %s", clean.code, clean.stderr)
	}
	cases := hostileCases()
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	only := os.Getenv("HOSTILE_CASE")
	var mu sync.Mutex
	var worst struct {
		rss           int64
		wall          time.Duration
		rssBy, wallBy string
	}
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	t.Cleanup(func() {
		t.Logf("largest peak RSS %d MiB (%s); longest run %v (%s)", worst.rss>>20, worst.rssBy, worst.wall.Round(time.Millisecond), worst.wallBy)
	})
	for _, hc := range cases {
		if only != "" && !strings.Contains(hc.name, only) {
			continue
		}
		t.Run(hc.name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			record := func(r binResult, mode string) {
				t.Logf("%s: exit %d, %d MiB peak RSS, %v", mode, r.code, r.rss>>20, r.wall.Round(10*time.Millisecond))
				reportRun("files", hc.name, mode, r)
				mu.Lock()
				defer mu.Unlock()
				if r.rss > worst.rss {
					worst.rss, worst.rssBy = r.rss, hc.name+", "+mode
				}
				if r.wall > worst.wall {
					worst.wall, worst.wallBy = r.wall, hc.name+", "+mode
				}
			}
			// Alone.
			dir := t.TempDir()
			path := filepath.Join(dir, hc.file)
			if err := hc.write(g, path); err != nil {
				t.Fatalf("generate: %v", err)
			}
			args := append(append([]string{"-q", "-o", "json"}, hc.flags...), path)
			r := runBinary(t, 2*maxRunWall, nil, args...)
			record(r, "alone")
			checkRun(t, "alone", r)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			switch {
			case hc.reject || hc.aloneFails:
				if r.code != 1 || len(lines) != 1 || lines[0] == "" {
					t.Errorf("alone: exit %d, stderr %q; want exit 1 and one line", r.code, r.stderr)
				}
				if hc.reject && !strings.Contains(r.stderr, cliio.EscapeText(hc.file, 0)) {
					t.Errorf("alone: the error does not name %q: %q", cliio.EscapeText(hc.file, 0), r.stderr)
				}
			case r.code != 0:
				t.Errorf("alone: exit %d, stderr %q; want 0", r.code, r.stderr)
			}

			// Beside the incident.
			inc := copyDir(t, caseDir)
			hp := filepath.Join(inc, hc.file)
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || os.Link(path, hp) != nil {
				if err := hc.write(g, hp); err != nil { // FIFOs, symlinks, directories: made again
					t.Fatalf("generate: %v", err)
				}
			}
			extra := []string{inc}
			if hc.file == "does-not-exist.json" {
				extra = append(extra, hp) // a missing path given beside good ones
			}
			r = runBinary(t, 2*maxRunWall, nil, append(append([]string{"-q", "-o", "json"}, hc.flags...), extra...)...)
			record(r, "beside the incident")
			checkRun(t, "beside the incident", r)
			if r.code != 0 {
				t.Fatalf("beside the incident: exit %d, stderr %q", r.code, r.stderr)
			}
			var c struct {
				card
				Warnings []struct {
					Source, Message string
				} `json:"warnings"`
				Incident struct {
					TargetChosenBy string `json:"target_chosen_by"`
					AtChosenBy     string `json:"at_chosen_by"`
				} `json:"incident"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
				t.Fatalf("not a JSON scorecard: %v", err)
			}
			if len(c.Causes) == 0 {
				t.Errorf("the incident was not analysed: no causes")
			}
			named, skipped, good := false, false, 0
			why := []string{c.Incident.TargetChosenBy, c.Incident.AtChosenBy}
			for _, in := range c.Inputs {
				if strings.HasPrefix(in.Path, hp) {
					named = true
					skipped = skipped || in.Skipped
					why = append(why, in.Error)
				} else if !in.Skipped {
					good++
				}
			}
			for _, w := range c.Warnings {
				if strings.Contains(w.Source, hc.file) || strings.Contains(w.Message, hc.file) {
					why = append(why, w.Message)
				} else if hc.want != "" && strings.Contains(w.Message, hc.want) {
					why = append(why, w.Message)
				}
			}
			if !named {
				t.Errorf("the report does not name %q among its inputs", hc.file)
			}
			if hc.reject && !skipped {
				t.Errorf("the rejected input is not a skipped input of the report")
			}
			if good < 5 {
				t.Errorf("only %d good inputs analysed beside it", good)
			}
			if hc.want != "" && !strings.Contains(strings.Join(why, "\n"), hc.want) {
				t.Errorf("no %q in what the report says about it: %q", hc.want, why)
			}
		})
	}
}

// checkRun asserts what every run of a hostile suite must satisfy.
func checkRun(t *testing.T, mode string, r binResult) {
	t.Helper()
	if r.code < 0 {
		t.Fatalf("%s: killed after %v", mode, r.wall)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("%s: panic:\n%.3000s", mode, r.stderr)
	}
	if r.rss > maxRunRSS {
		t.Errorf("%s: peak RSS %d MiB > %d MiB", mode, r.rss>>20, maxRunRSS>>20)
	}
	if r.wall > maxRunWall {
		t.Errorf("%s: took %v > %v", mode, r.wall, maxRunWall)
	}
	for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > cliio.MaxErrLine {
			t.Errorf("%s: a stderr line of %d characters", mode, n)
		}
		for _, c := range []byte(l) {
			if c < 0x20 || c == 0x7f {
				t.Errorf("%s: raw control character %#x on stderr: %q", mode, c, l)
				break
			}
		}
	}
	if left := leftovers(r.tmp); len(left) > 0 {
		t.Errorf("%s: left in TMPDIR: %q", mode, left)
	}
}

// copyDir copies the regular files of src into a fresh directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "incident")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
