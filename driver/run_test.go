package driver

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// These tests drive the command through Run(args, stdin, stdout, stderr),
// exactly as main does. Every analysis costs seconds under -race, so the
// generated case is written once (smallCase) and analyses are shared where a
// test only reads their output.

// smallSpec is a short simulated incident: enough data for a baseline and an
// incident window, small enough to analyse in about a second.
var smallSpec = fixtures.Spec{Fault: "tool_api_slow", Seed: 7, Duration: 14 * time.Minute, SampleRate: 0.08}

var (
	smallOnce sync.Once
	smallDir  string
	smallErr  error
)

// TestMain removes the shared generated case after the tests.
func TestMain(m *testing.M) {
	maybeMeasureHelper() // the test binary re-executed to measure the real one (binary_test.go)
	code := m.Run()
	if smallDir != "" {
		os.RemoveAll(filepath.Dir(smallDir))
	}
	os.Exit(code)
}

// smallCase returns the directory of the shared generated incident. Tests
// must not write into it: copy it with copyCase first.
func smallCase(t *testing.T) string {
	t.Helper()
	smallOnce.Do(func() {
		root, err := os.MkdirTemp("", "pipeline-analyze-cmdtest-*")
		if err != nil {
			smallErr = err
			return
		}
		smallDir = filepath.Join(root, "incident")
		_, smallErr = fixtures.Write(smallDir, smallSpec)
	})
	if smallErr != nil {
		t.Fatalf("generate case: %v", smallErr)
	}
	return smallDir
}

// copyCase copies the shared case into a fresh directory, leaving out the
// named files, and returns the copy.
func copyCase(t *testing.T, skip ...string) string {
	t.Helper()
	src := smallCase(t)
	dst := filepath.Join(t.TempDir(), "incident")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
outer:
	for _, e := range ents {
		for _, s := range skip {
			if e.Name() == s {
				continue outer
			}
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout (%d bytes): %.2000s\nstderr: %s", r.code, len(r.stdout), r.stdout, r.stderr)
}

// runCmd runs the command with the given stdin (nil for none).
func runCmd(stdin io.Reader, args ...string) result {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var so, se bytes.Buffer
	code := Run(args, stdin, &so, &se)
	return result{code: code, stdout: so.String(), stderr: se.String()}
}

// card is the part of the JSON scorecard these tests look at.
type card struct {
	SchemaVersion string `json:"schema_version"`
	Verdict       struct {
		MinShare *float64 `json:"min_share"`
	} `json:"verdict"`
	Causes []struct {
		Rank      int    `json:"rank"`
		Service   string `json:"service"`
		Component string `json:"component"`
		Signal    string `json:"signal"`
		Severity  string `json:"severity"`
	} `json:"causes"`
	Inputs []struct {
		Path    string `json:"path"`
		Format  string `json:"format"`
		Spans   int    `json:"spans"`
		Series  int    `json:"series"`
		Alerts  int    `json:"alerts"`
		Skipped bool   `json:"skipped"`
		Error   string `json:"error"`
	} `json:"inputs"`
	Manifest struct {
		Args []string `json:"args"`
	} `json:"manifest"`
}

func decodeCard(t *testing.T, s string) card {
	t.Helper()
	var c card
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("output is not a JSON scorecard: %v\n%.500s", err, s)
	}
	return c
}

// ranking is the causes as "service|component|signal" in rank order.
func (c card) ranking() []string {
	var out []string
	for _, x := range c.Causes {
		out = append(out, x.Service+"|"+x.Component+"|"+x.Signal)
	}
	return out
}

// hasSeverity reports whether any cause is at least sev.
func (c card) hasSeverity(sev string) bool {
	for _, x := range c.Causes {
		if x.Severity == "critical" || sev == "warning" && x.Severity == "warning" {
			return true
		}
	}
	return false
}

// demoJSON is one shared run of the demo with -q -o json --fail-on critical.
var (
	demoOnce sync.Once
	demoRes  result
)

func demoJSON() result {
	demoOnce.Do(func() { demoRes = runCmd(nil, "-q", "-o", "json", "--fail-on", "critical") })
	return demoRes
}

// TestRunVerdictShare: the card states the least share of the target a
// first cause must explain, the one --param min_verdict_share set.
func TestRunVerdictShare(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want float64
	}{
		{nil, causal.DefaultParams().MinVerdictShare},
		{[]string{"--param", "min_verdict_share=0.2"}, 0.2},
	} {
		r := runCmd(nil, append([]string{"-q", "-o", "json", smallCase(t)}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("%v: %v", tc.args, r)
		}
		if got := decodeCard(t, r.stdout).Verdict.MinShare; got == nil || *got != tc.want {
			t.Errorf("%v: verdict.min_share %v, want %v", tc.args, got, tc.want)
		}
	}
}

// posRE matches the position an input error must carry: file:line:col,
// file:line, "byte N", "line N" or "offset N".
var posRE = regexp.MustCompile(`:\d+(:\d+)?: |byte \d+|line \d+|offset \d+`)

func TestRunUsageErrors(t *testing.T) {
	// A path that does not exist: if a usage check wrongly passed, the run
	// would fail with 1 (not 2) instead of analysing anything.
	const nothing = "/nonexistent/pipeline-analyze-input"
	for _, tc := range []struct {
		name string
		args []string
		want string // substring of stderr
	}{
		{"unknown flag", []string{"--frobnicate", nothing}, "unknown flag: --frobnicate"},
		{"flag without value", []string{nothing, "--window"}, "--window"},
		{"bad window", []string{"--window", "5 minutes", nothing}, "--window"},
		{"negative window", []string{"--window", "-5m", nothing}, "--window must be positive"},
		{"negative onset lookback", []string{"--onset-lookback", "-1m", nothing}, "--onset-lookback must not be negative"},
		{"bad at", []string{"--at", "yesterday", nothing}, `--at "yesterday"`},
		{"bad at relative", []string{"--at", "now*2", nothing}, `--at "now*2"`},
		{"bad target signal", []string{"--target", "api:vibes", nothing}, `unknown signal "vibes"`},
		{"bad target empty service", []string{"--target", ":latency", nothing}, "--target"},
		{"bad target too many parts", []string{"--target", "a:latency:p99:x", nothing}, "--target"},
		{"unknown output format", []string{"-o", "yaml", nothing}, `--output-format "yaml"`},
		{"unknown output format long", []string{"--output-format", "pdf", nothing}, `--output-format "pdf"`},
		{"bad fail-on", []string{"--fail-on", "sometimes", nothing}, `--fail-on "sometimes"`},
		{"bad method", []string{"--method", "astrology", nothing}, `--method "astrology"`},
		{"bad weights", []string{"--weights", "1,2", nothing}, "--weights"},
		{"bad slice", []string{"--slice", "0s", nothing}, "--slice"},
		{"eval unknown flag", []string{"eval", "--frobnicate"}, "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(nil, tc.args...)
			if r.code != 2 {
				t.Fatalf("want exit 2 (usage), got %v", r)
			}
			if r.stdout != "" {
				t.Errorf("usage error wrote to stdout: %q", r.stdout)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
			if !strings.HasPrefix(r.stderr, "pipeline-analyze") {
				t.Errorf("stderr %q does not start with the program name", r.stderr)
			}
		})
	}
}

func TestRunInputErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := make([]byte, 512)
	for i := range garbage { // deterministic binary noise, NULs and high bytes included
		garbage[i] = byte(i*131 + i*i*7)
	}
	real, err := os.ReadFile(filepath.Join(smallCase(t), "alert.json"))
	if err != nil {
		t.Fatal(err)
	}
	prom, err := os.ReadFile(filepath.Join(smallCase(t), "metrics_http_requests_rate.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty.json":           nil,
		"blank.json":           []byte("  \n\t\n"),
		"truncated.json":       prom[:len(prom)/2],
		"truncated-alert.json": real[:len(real)-10],
		"garbage.bin":          garbage,
		"wrongtype.json":       []byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1700000000,"1"],["x",2]]}]}}`),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		file    string
		wantPos bool
	}{
		{"missing file", "missing.json", false},
		{"empty file", "empty.json", true},
		{"whitespace only", "blank.json", true},
		{"truncated prometheus JSON", "truncated.json", true},
		{"truncated alert JSON", "truncated-alert.json", true},
		{"binary garbage", "garbage.bin", true},
		{"wrong JSON types", "wrongtype.json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(nil, "-q", filepath.Join(dir, tc.file))
			if r.code != 1 {
				t.Fatalf("want exit 1 (input error), got %v", r)
			}
			if r.stdout != "" {
				t.Errorf("input error wrote to stdout: %.300q", r.stdout)
			}
			msg := strings.TrimSuffix(r.stderr, "\n")
			if strings.Contains(msg, "\n") || msg == "" {
				t.Errorf("want a one-line error, got %q", r.stderr)
			}
			if !strings.Contains(msg, tc.file) {
				t.Errorf("error %q does not name the file %s", msg, tc.file)
			}
			if tc.wantPos && !posRE.MatchString(msg) {
				t.Errorf("error %q has no position (file:line:col, byte N, line N or offset N)", msg)
			}
		})
	}
}

func TestRunVersionAndHelp(t *testing.T) {
	r := runCmd(nil, "--version")
	if r.code != 0 || r.stderr != "" || !regexp.MustCompile(`^pipeline-analyze \S+\n$`).MatchString(r.stdout) {
		t.Errorf("--version: %v", r)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"eval", "--help"}, {"simulate", "--help"}, {"record-gpu", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runCmd(nil, args...)
			if r.code != 0 {
				t.Fatalf("want exit 0, got %v", r)
			}
			help := r.stdout + r.stderr
			for _, want := range []string{"Examples:", "Usage", "pipeline-analyze", "--"} {
				if !strings.Contains(help, want) {
					t.Errorf("help lacks %q:\n%s", want, help)
				}
			}
		})
	}
	r = runCmd(nil, "--help")
	for _, want := range []string{"Exit status", "--output-format", "--export", "--fail-on", "--at", "--window", "--target"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestRunDemo runs the embedded demo: the front door of the README.
func TestRunDemo(t *testing.T) {
	// The demo is the largest input these tests analyse (about 10 s under
	// -race): two runs, the second shared with TestRunSchemaKeys.
	t.Run("text", func(t *testing.T) {
		r := runCmd(nil)
		if r.code != 0 {
			t.Fatalf("demo: %v", r)
		}
		// The first screen; -v adds the details.
		for _, want := range []string{"DEMO:", "Verdict", "root cause", "What changed", "Ranked components, one row each", "details: -v", "demo/alert.json"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("demo scorecard lacks %q", want)
			}
		}
		v := runCmd(nil, "-v")
		if v.code != 0 || !strings.HasPrefix(v.stdout, r.stdout[:strings.Index(r.stdout, "\n")]) {
			t.Fatalf("demo -v: %v", v)
		}
		for _, want := range []string{"Ranked causes", "Heatmaps\n", "  Overview: every service by call depth", "Inputs", "Rerun"} {
			if !strings.Contains(v.stdout, want) {
				t.Errorf("demo -v scorecard lacks %q", want)
			}
		}
		if !strings.Contains(r.stderr, "embedded demo") {
			t.Errorf("without -q the demo should say on stderr that it is the demo; stderr: %q", r.stderr)
		}
		if strings.Contains(r.stdout, os.TempDir()+string(filepath.Separator)+"pipeline-analyze-demo") {
			t.Errorf("the demo's temporary directory leaks into the report")
		}
	})
	t.Run("json quiet fail-on critical", func(t *testing.T) {
		r := demoJSON()
		if r.stderr != "" {
			t.Errorf("-q must print nothing to stderr on success, got %q", r.stderr)
		}
		c := decodeCard(t, r.stdout)
		if len(c.Causes) == 0 {
			t.Fatalf("demo found no causes")
		}
		want := 0
		if c.hasSeverity("critical") {
			want = 3
		}
		if r.code != want {
			t.Errorf("--fail-on critical: exit %d, but the card's severities %v want %d", r.code, severities(c), want)
		}
		// The demo is a strong GPU fault; its top cause is expected to be critical.
		if c.Causes[0].Severity != "critical" {
			t.Logf("note: demo's top cause %s is %s, not critical", c.Causes[0].Component, c.Causes[0].Severity)
		}
		if !strings.Contains(r.stdout, `"demo/alert.json"`) {
			t.Errorf("inputs should be shown as demo/<file>")
		}
		if strings.Contains(r.stdout, "pipeline-analyze-demo-") {
			t.Errorf("the demo's temporary directory leaks into the JSON")
		}
	})
}

func severities(c card) []string {
	var s []string
	for _, x := range c.Causes {
		s = append(s, x.Severity)
	}
	return s
}

// TestRunDeterministic: same inputs, same flags → byte-identical JSON (issue 3).
func TestRunDeterministic(t *testing.T) {
	dir := smallCase(t)
	args := []string{"-q", "-o", "json", "--fail-on", "warning", dir}
	a := runCmd(nil, args...)
	b := runCmd(nil, args...)
	for _, r := range []result{a, b} {
		if r.code != 0 && r.code != 3 {
			t.Fatalf("%v", r)
		}
		if r.stderr != "" {
			t.Errorf("-q must print nothing to stderr, got %q", r.stderr)
		}
	}
	if a.stdout != b.stdout {
		t.Errorf("two runs with the same inputs and flags differ:\n%s", firstDiff(a.stdout, b.stdout))
	}
	c := decodeCard(t, a.stdout)
	want := 0
	if c.hasSeverity("warning") {
		want = 3
	}
	if a.code != want || b.code != want {
		t.Errorf("--fail-on warning: exits %d, %d; card severities %v want %d", a.code, b.code, severities(c), want)
	}
	if got, want := strings.Join(c.Manifest.Args, " "), "pipeline-analyze "+strings.Join(args, " "); got != want {
		t.Errorf("manifest args %q, want %q", got, want)
	}
}

// firstDiff shows where two strings first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n  %q\n  %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

// TestRunSchemaKeys checks the JSON against the documented schema's
// top-level keys (docs/scorecard.schema.json).
func TestRunSchemaKeys(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "scorecard.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	r := demoJSON()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("-o json output: %v", err)
	}
	for _, k := range schema.Required {
		if _, ok := doc[k]; !ok {
			t.Errorf("required key %q missing from the output", k)
		}
	}
	var extra []string
	for k := range doc {
		if _, ok := schema.Properties[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("output keys not in the schema: %v", extra)
	}
	if string(doc["schema_version"]) != `"2"` {
		t.Errorf("schema_version %s, want \"2\"", doc["schema_version"])
	}
	// Key order is fixed: the first key is schema_version.
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), `{`) || !strings.Contains(r.stdout[:min(len(r.stdout), 40)], `"schema_version"`) {
		t.Errorf("schema_version should be the first key: %.60q", r.stdout)
	}
}

// TestRunStdinGzipAndSkippedFile reads traces from stdin ("-", gzip-compressed),
// the alert as alert.json.gz, and a directory holding one broken file: the
// analysis goes on (exit 0), the broken file is listed as skipped, and the
// ranking equals the plain run's.
func TestRunStdinGzipAndSkippedFile(t *testing.T) {
	dir := copyCase(t, "traces.json.gz", "alert.json")
	alert, err := os.ReadFile(filepath.Join(smallCase(t), "alert.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(alert)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alert.json.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":`), 0o644); err != nil {
		t.Fatal(err)
	}
	traces, err := os.Open(filepath.Join(smallCase(t), "traces.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer traces.Close()

	r := runCmd(traces, "-q", "-o", "json", dir, "-")
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if r.stderr != "" {
		t.Errorf("-q must print nothing to stderr, got %q", r.stderr)
	}
	c := decodeCard(t, r.stdout)
	rows := map[string]int{}
	for i, in := range c.Inputs {
		rows[filepath.Base(in.Path)] = i
	}
	check := func(name, format string, skipped bool) {
		t.Helper()
		i, ok := rows[name]
		if !ok {
			t.Errorf("inputs lack %s: %+v", name, c.Inputs)
			return
		}
		in := c.Inputs[i]
		if format != "" && in.Format != format {
			t.Errorf("%s read as %q, want %q", name, in.Format, format)
		}
		if in.Skipped != skipped {
			t.Errorf("%s skipped=%v (error %q), want %v", name, in.Skipped, in.Error, skipped)
		}
		if skipped && in.Error == "" {
			t.Errorf("%s is skipped without a reason", name)
		}
	}
	check("<stdin>", "jaeger-json", false)
	check("alert.json.gz", "alertmanager", false)
	check("broken.json", "", true)
	if i, ok := rows["<stdin>"]; ok && c.Inputs[i].Spans == 0 {
		t.Errorf("no spans read from gzip on stdin")
	}

	plain := runCmd(nil, "-q", "-o", "json", smallCase(t))
	if plain.code != 0 && plain.code != 3 {
		t.Fatalf("plain run: %v", plain)
	}
	pc := decodeCard(t, plain.stdout)
	if got, want := strings.Join(c.ranking(), "\n"), strings.Join(pc.ranking(), "\n"); got != want {
		t.Errorf("ranking from stdin+gzip differs from the plain run:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunSeedCall runs the seed's call as written, in the current directory:
//
//	pipeline-analyze --window 5m --output-format html --export scorecard.html DIR
//
// and checks the export is complete, self-contained and atomically written.
func TestRunSeedCall(t *testing.T) {
	dir := smallCase(t)
	work := t.TempDir()
	t.Chdir(work)
	if err := os.WriteFile("scorecard.html", []byte("old report"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(nil, "--window", "5m", "--output-format", "html", "--export", "scorecard.html", dir)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	if r.stdout != "" {
		t.Errorf("--export should leave stdout empty, got %.200q", r.stdout)
	}
	if !strings.Contains(r.stderr, "wrote scorecard.html") {
		t.Errorf("stderr should say where the report went: %q", r.stderr)
	}
	html, err := os.ReadFile("scorecard.html")
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	if !strings.HasPrefix(strings.ToLower(s), "<!doctype html>") || !strings.Contains(s, "</html>") {
		t.Errorf("export is not a complete HTML document: %.100q … %.100q", s, s[max(0, len(s)-100):])
	}
	for _, bad := range []string{"<script src=", "<link rel=\"stylesheet\" href=\"http", "@import url(http"} {
		if strings.Contains(s, bad) {
			t.Errorf("HTML is not self-contained: has %q", bad)
		}
	}
	if !strings.Contains(s, "<svg") {
		t.Errorf("HTML has no inline SVG heatmaps")
	}
	assertOnly(t, work, "scorecard.html")
	if fi, err := os.Stat("scorecard.html"); err == nil && fi.Mode().Perm() != 0o644 {
		t.Errorf("export mode %v, want 0644", fi.Mode().Perm())
	}
}

// assertOnly fails unless dir holds exactly the named entries (no temp files).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	sort.Strings(names)
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want exactly %v (a temp file left behind?)", dir, got, names)
	}
}

// TestRunExportFailure: an export into a missing directory fails with exit 1
// and leaves nothing behind; the report is not half-written to stdout.
func TestRunExportFailure(t *testing.T) {
	work := t.TempDir()
	// A directory that does not exist is refused before anything is read,
	// naming the directory (not the temporary file beside the export).
	dir := filepath.Join(work, "no", "such", "dir")
	r := runCmd(nil, "-q", "-o", "markdown", "--export", filepath.Join(dir, "card.md"), smallCase(t))
	if r.code != 2 {
		t.Fatalf("want exit 2, got %v", r)
	}
	if r.stdout != "" {
		t.Errorf("stdout should be empty, got %.200q", r.stdout)
	}
	if !strings.Contains(r.stderr, "directory "+dir+" does not exist") || strings.Contains(r.stderr, ".tmp-") ||
		strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("want a one-line error naming the missing directory, got %q", r.stderr)
	}
	// A write that fails later (the directory is not writable) names the
	// export and its directory, never the temporary file.
	if err := cliio.WriteFileAtomic(filepath.Join(work, "missing", "card.md"), []byte("x")); err == nil ||
		strings.Contains(err.Error(), ".tmp-") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("writeFileAtomic into a missing directory: %v", err)
	}
	assertOnly(t, work)
}

// TestRunExportFormats exports every format and checks each file's shape and
// that the directory holds nothing else.
func TestRunExportFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("one analysis per format")
	}
	work := t.TempDir()
	for _, tc := range []struct {
		format, file, prefix string
	}{
		{"text", "card.txt", "pipeline-analyze "},
		{"markdown", "card.md", "#"},
		{"json", "card.json", "{"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			r := runCmd(nil, "-q", "-o", tc.format, "--export", filepath.Join(work, tc.file), smallCase(t))
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("want exit 0 and no output, got %v", r)
			}
			b, err := os.ReadFile(filepath.Join(work, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), tc.prefix) {
				t.Errorf("%s export starts %.60q, want %q", tc.format, b, tc.prefix)
			}
			if tc.format == "text" && bytes.Contains(b, []byte("\x1b[")) {
				t.Errorf("exported text has ANSI colour codes")
			}
		})
	}
	assertOnly(t, work, "card.json", "card.md", "card.txt")
}

// TestRunDeterministicDevelopment: on development cases with logs, GPUs
// and events, two runs in one process (maps iterate in a new order each
// time) give byte-identical JSON, with the default ranking and with a
// comparison method whose regressions amplify a float's last bit.
// Skipped where ../shared/data is absent.
func TestRunDeterministicDevelopment(t *testing.T) {
	for _, c := range []struct{ dir, method string }{
		{"nezha-tt-dev/tt-20230129-133154", "tcg"},
		{"nezha-tt-dev/tt-20230129-133154", "circa"},
		{"llm-dev/llm-005", "tcg"},
	} {
		dir := filepath.Join("..", "..", "shared", "data", c.dir)
		if _, err := os.Stat(dir); err != nil {
			t.Skip("development data not present:", err)
		}
		args := []string{"-q", "-o", "json", "--method", c.method, dir}
		a, b := runCmd(nil, args...), runCmd(nil, args...)
		if a.code != 0 && a.code != 3 {
			t.Fatalf("%s: %v", c.dir, a)
		}
		if a.stdout != b.stdout {
			t.Errorf("%s --method %s: two runs differ:\n%s", c.dir, c.method, firstDiff(a.stdout, b.stdout))
		}
	}
}
