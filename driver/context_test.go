package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
)

// TestWrongContextRefused is issue 17's table: what gets typed wrong at 3am
// is refused before the analysis (exit 2, one line, what the data holds),
// never answered with a confident verdict. The shared case spans
// 2026-11-30T02:01:45Z → about 02:15:50Z (14 minutes) with an alert at
// 02:12:45.
func TestWrongContextRefused(t *testing.T) {
	inc := smallCase(t)
	alertOnly := filepath.Join(t.TempDir(), "alert-only")
	if err := os.Mkdir(alertOnly, 0o755); err != nil {
		t.Fatal(err)
	}
	alert, err := os.ReadFile(filepath.Join(inc, "alert.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alertOnly, "alert.json"), alert, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of the one stderr line
	}{
		{"target typo", []string{"--target", "api-gatewy:latency:p99", inc}, 2,
			[]string{"no service api-gatewy", "did you mean api-gateway?", "known: api-gateway,"}},
		{"target absent", []string{"--target", "chat-api", inc}, 2, []string{"no service chat-api", "known: api-gateway"}},
		{"signal absent", []string{"--target", "api-gateway:kv_cache", inc}, 2, []string{"has no kv_cache signal", "it has: ", "latency"}},
		{"unknown stat", []string{"--target", "api-gateway:latency:p42", inc}, 2, []string{"no statistic p42", "p99"}},
		{"stat not a statistic", []string{"--target", "api-gateway:latency:fast", inc}, 2, []string{`unknown statistic "fast"`}},
		{"at before the data", []string{"--at", "now-15m", inc}, 2,
			[]string{"--at now-15m is 2026-11-30T02:00:5", "outside the data, which spans 2026-11-30T02:01:45.023Z → 2026-11-30T02:15:5", "(14m"}},
		{"at after the data", []string{"--at", "2026-11-30T03:12:00Z", inc}, 2, []string{"outside the data", "e.g. --at 2026-11-30T02:"}},
		{"at in epoch ms", []string{"--at", "1796008320000", inc}, 2, []string{"--at 1796008320000 (unix ms) is 2026-11-30T03:12:00.000Z"}},
		{"window longer than the data", []string{"--window", "24h", inc}, 2, []string{"--window 24h0m0s leaves 0s of baseline", "give --window"}},
		{"at leaving no baseline", []string{"--at", "2026-11-30T02:03:00Z", inc}, 2, []string{"leaves 0s of baseline", "give an --at after"}},
		{"no telemetry", []string{alertOnly}, 1, []string{"no traces, metrics or logs found in " + alertOnly, "alertmanager"}},
		{"mistyped command", []string{"evals"}, 2, []string{"unknown command evals", "did you mean eval?"}},
		{"mistyped flag", []string{"--methd", "baro", inc}, 2, []string{"unknown flag: --methd", "did you mean --method?"}},
		{"export into a missing directory", []string{"--export", "/nonexistent/dir/r.html", inc}, 2, []string{"directory /nonexistent/dir does not exist"}},
		{"eval method list", []string{"eval", "--method", "tcg,astrology", inc}, 2, []string{`unknown method "astrology"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(nil, append([]string{"-q"}, tc.args...)...)
			if tc.args[0] == "evals" || tc.args[0] == "eval" {
				r = runCmd(nil, tc.args...)
			}
			if r.code != tc.code {
				t.Fatalf("want exit %d, got %v", tc.code, r)
			}
			if r.stdout != "" {
				t.Errorf("stdout: %.300q", r.stdout)
			}
			msg := strings.TrimSuffix(r.stderr, "\n")
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
		})
	}
	// --method as a list is --methods in eval: it passes the flag checks
	// (and fails on the missing directory, exit 1).
	if r := runCmd(nil, "eval", "-q", "--method", "tcg,baro,nsigma", filepath.Join(t.TempDir(), "none")); r.code != 1 {
		t.Errorf("eval --method tcg,baro,nsigma: %v", r)
	}
}

// TestWindowAdjustedSaysSo: a --window shorter than four grid steps is
// widened, and the scorecard says so (a note on stderr, a footnote), and
// an epoch in milliseconds inside the data is read as milliseconds.
func TestWindowAdjustedSaysSo(t *testing.T) {
	inc := smallCase(t)
	at := time.Date(2026, 11, 30, 2, 12, 0, 0, time.UTC)
	// --onset-lookback 0: the window stays centred (the case's target is
	// already off at its start; TestWindowReachesBackToOnset tests that).
	r := runCmd(nil, "-o", "json", "--window", "10s", "--onset-lookback", "0", "--at", strconv.FormatInt(at.UnixMilli(), 10), inc)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if !strings.Contains(r.stderr, "note: --window 10s is shorter than 4 steps of the data (15s each): the window is 1m0s") {
		t.Errorf("stderr lacks the note:\n%s", r.stderr)
	}
	var c struct {
		Incident struct {
			At          string `json:"at"`
			AtChosenBy  string `json:"at_chosen_by"`
			WindowStart string `json:"window_start"`
			WindowEnd   string `json:"window_end"`
		} `json:"incident"`
		Warnings []struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.Incident.At != "2026-11-30T02:12:00Z" || !strings.Contains(c.Incident.AtChosenBy, "(unix ms)") {
		t.Errorf("at %s chosen by %q", c.Incident.At, c.Incident.AtChosenBy)
	}
	ws, _ := time.Parse(time.RFC3339, c.Incident.WindowStart)
	we, _ := time.Parse(time.RFC3339, c.Incident.WindowEnd)
	// 4 steps centred on --at, its end reaching tcg.MinStepsAfter steps
	// after it: 30 s before, 45 s after.
	if we.Sub(ws) != 75*time.Second {
		t.Errorf("window %s → %s, want 1m15s (30s before --at, 45s after)", c.Incident.WindowStart, c.Incident.WindowEnd)
	}
	found := false
	for _, w := range c.Warnings {
		found = found || w.Kind == "context" && strings.Contains(w.Message, "the window is 1m0s")
	}
	if !found {
		t.Errorf("no context footnote: %+v", c.Warnings)
	}
}

// TestComparisonMethodAbstains: a comparison baseline says what it is in the
// verdict, decides nothing (no confidence, never critical) and prints the
// ten series that matter, not fifty.
func TestComparisonMethodAbstains(t *testing.T) {
	r := runCmd(nil, "-q", "--method", "baro", smallCase(t))
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	out := r.stdout
	for _, want := range []string{"no confident root cause: --method baro is a comparison baseline that does not decide", "best guesses: ",
		"of 10 signals ("} {
		if !strings.Contains(out, want) {
			t.Errorf("baro card lacks %q", want)
		}
	}
	for _, bad := range []string{"confidence 0.00", "below score 0.00", "critical", "#11 "} {
		if strings.Contains(out, bad) {
			t.Errorf("baro card contains %q", bad)
		}
	}
	if n := strings.Count(out, "\n"); n > 300 {
		t.Errorf("baro card is %d lines", n)
	}
}

// TestAbstentionVerdict: when the ranking abstains, the verdict line says
// why and lists distinct best guesses, and no cause is critical.
func TestAbstentionVerdict(t *testing.T) {
	r := runCmd(nil, "-q", "-o", "json", "--min-confidence", "0.999", smallCase(t))
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	var c struct {
		Verdict struct {
			Confident bool   `json:"confident"`
			Text      string `json:"text"`
		} `json:"verdict"`
		Causes []struct {
			Severity string `json:"severity"`
		} `json:"causes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	v := c.Verdict.Text
	if c.Verdict.Confident || !strings.HasPrefix(v, "no confident root cause: ") || !strings.Contains(v, "below 1.00") && !strings.Contains(v, "is below") {
		t.Errorf("verdict %q", v)
	}
	_, guesses, ok := strings.Cut(v, "(best guesses: ")
	if !ok {
		t.Fatalf("no best guesses in %q", v)
	}
	seen := map[string]bool{}
	for _, g := range strings.Split(strings.TrimSuffix(guesses, ")"), ", ") {
		svc := strings.Fields(g)[0]
		if seen[svc] {
			t.Errorf("best guess %s twice in %q", svc, v)
		}
		seen[svc] = true
	}
	for _, cs := range c.Causes {
		if cs.Severity == "critical" {
			t.Errorf("a critical cause beside an abstention: %q", v)
		}
	}
}

// TestProgressLines: by default one summary line of what was read and
// nothing per file; -v adds every file and the phase timings.
func TestProgressLines(t *testing.T) {
	inc := smallCase(t)
	r := runCmd(nil, "-o", "json", inc)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if strings.Contains(r.stderr, "read "+inc+"/") || strings.Contains(r.stderr, "phases:") {
		t.Errorf("per-file lines without -v:\n%s", r.stderr)
	}
	if !regexp.MustCompile(`(?m)^read \d+ inputs in .* \(prometheus-query-range \d+, .*\): \d+ spans, \d+ series, \d+ log records, 2026-11-30T02:01:45.023Z → `).MatchString(r.stderr) {
		t.Errorf("no summary line:\n%s", r.stderr)
	}
	r = runCmd(nil, "-v", "-o", "json", inc)
	if !strings.Contains(r.stderr, "read "+filepath.Join(inc, "alert.json")+" (alertmanager") || !strings.Contains(r.stderr, "phases: read ") {
		t.Errorf("-v lacks per-file lines or phases:\n%s", r.stderr)
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		typed string
		from  []string
		want  string
	}{
		{"api-gatewy", []string{"api-gateway", "vllm", "router"}, "; did you mean api-gateway?"},
		{"evals", commandNames(), "; did you mean eval?"},
		{"simulte", commandNames(), "; did you mean simulate?"},
		{"zzz", commandNames(), ""},
		{"p42", []string{"p50", "p90", "p99", "mean"}, ""},
		{"methd", []string{"method", "methods", "at"}, "; did you mean method?"},
	} {
		if got := suggest.DidYouMean(tc.typed, tc.from, nil); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if d := suggest.EditDistance("kitten", "sitting"); d != 3 {
		t.Errorf("EditDistance(kitten, sitting) = %d", d)
	}
}
