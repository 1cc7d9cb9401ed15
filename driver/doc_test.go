package driver

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The README's examples are executed here, as golang/perf's cmd/benchstat
// doc_test.go does, so they cannot rot:
//
//   - a ```sh block right after a "<!-- test -->" line is run line by line in
//     a fresh directory: every line that starts with "pipeline-analyze" or
//     "go run ./cmd/pipeline-analyze" goes through run(); "# comments" and
//     anything from a "|" on are dropped; the exit must be 0, or 3 when the
//     line has --fail-on;
//   - a ```json (or ```csv, ```text) block right after a
//     "<!-- format: NAME -->" line is an input example: it is written to a
//     file and must be read by ingest as format NAME without error (these
//     live in docs/formats.md);
//   - every flag that a --help prints is documented in the README or the
//     pages under docs/ (docs/cli.md has them all, generated; docs/flags.md
//     and docs/commands.md explain them).

// readme returns the README's text.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docPage returns the text of a page under docs/.
func docPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// block is one fenced block after a marker comment.
type block struct {
	marker string // the marker's argument: "" for test, the format name for format
	lang   string
	line   int // 1-based line of the opening fence
	body   string
}

// markedBlocks returns the fenced blocks that directly follow a
// "<!-- KIND ... -->" comment (blank lines between are allowed).
func markedBlocks(text, kind string) []block {
	var out []block
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	pending := false
	marker := ""
	var cur *block
	var body strings.Builder
	re := regexp.MustCompile(`^<!--\s*` + regexp.QuoteMeta(kind) + `\b:?\s*(.*?)\s*-->\s*$`)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil:
			if strings.HasPrefix(line, "```") {
				cur.body = body.String()
				out = append(out, *cur)
				cur = nil
				body.Reset()
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
		case re.MatchString(line):
			pending, marker = true, re.FindStringSubmatch(line)[1]
		case pending && strings.HasPrefix(line, "```"):
			cur = &block{marker: marker, lang: strings.TrimPrefix(line, "```"), line: n}
			pending = false
		case pending && strings.TrimSpace(line) != "":
			pending = false
		}
	}
	return out
}

// shellWords splits a command line into words, honouring '...' and "..."
// quoting (no expansions: README examples are plain commands).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// commandArgs turns one README line into run()'s arguments; ok is false for
// lines that are not a pipeline-analyze command.
func commandArgs(line string) (args []string, ok bool) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, "|"); i >= 0 {
		line = line[:i]
	}
	for _, prefix := range []string{"go run ./cmd/pipeline-analyze", "pipeline-analyze"} {
		if line == prefix || strings.HasPrefix(line, prefix+" ") {
			return shellWords(strings.TrimPrefix(line, prefix)), true
		}
	}
	return nil, false
}

// TestReadmeExamples runs every command of the README's "<!-- test -->"
// blocks, in order, in a fresh directory.
func TestReadmeExamples(t *testing.T) {
	blocks := markedBlocks(readme(t), "test")
	if len(blocks) == 0 {
		t.Fatal(`README has no "<!-- test -->" sh block`)
	}
	ran := 0
	for _, b := range blocks {
		work := t.TempDir()
		if err := os.Mkdir(filepath.Join(work, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(work)
		for i, line := range strings.Split(b.body, "\n") {
			args, ok := commandArgs(line)
			if !ok {
				continue
			}
			ran++
			name := strings.TrimSpace(line)
			t.Run(name, func(t *testing.T) {
				var so, se bytes.Buffer
				code := Run(args, strings.NewReader(""), &so, &se)
				want := map[int]bool{0: true}
				if strings.Contains(line, "--fail-on") {
					want[3] = true
				}
				if !want[code] {
					t.Fatalf("README.md:%d: %s\nexit %d\nstderr: %s", b.line+1+i, name, code, se.String())
				}
				for _, a := range args {
					if a == "-q" || a == "--quiet" {
						if se.Len() > 0 {
							t.Errorf("README.md:%d: -q printed to stderr: %s", b.line+1+i, se.String())
						}
					}
				}
			})
		}
	}
	if ran == 0 {
		t.Fatal("no pipeline-analyze commands in the README's test blocks")
	}
}

// TestReadmeFormats reads every "<!-- format: NAME -->" example.
func TestReadmeFormats(t *testing.T) {
	blocks := markedBlocks(docPage(t, "formats.md"), "format")
	seen := map[string]bool{}
	for _, b := range blocks {
		seen[b.marker] = true
		t.Run(b.marker+"@"+strconv.Itoa(b.line), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "example."+b.lang)
			if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
			part, err := ingest.ReadFile(path, nil, ingest.Limits{})
			if err != nil {
				t.Fatalf("docs/formats.md:%d: %v", b.line, err)
			}
			in := part.Inputs[0]
			if in.Format.String() != b.marker {
				t.Errorf("docs/formats.md:%d: read as %s, marked %s", b.line, in.Format, b.marker)
			}
			c := in.Counts
			if c.Spans+c.Series+c.Points+c.Events+c.Alerts+c.Dependencies+c.Samples+c.Logs == 0 {
				t.Errorf("docs/formats.md:%d: example yields no data: %+v", b.line, c)
			}
		})
	}
	// Every streamable format has an example (Nsight SQLite is binary).
	for _, f := range []string{"jaeger-json", "otlp-json", "jaeger-dependencies", "prometheus-query-range",
		"alertmanager", "k8s-events", "nvidia-smi-csv", "nvidia-smi-dmon", "nvml-recording", "kineto-trace",
		"loki-streams", "otlp-logs", "docker-json-log", "cri-log", "text-log", "victorialogs-jsonl", "k8s-objects", "change-records"} {
		if !seen[f] {
			t.Errorf("docs/formats.md has no <!-- format: %s --> example", f)
		}
	}
}

// TestReadmeFlags checks that every flag the command and its subcommands
// print in --help is explained in the README, docs/flags.md or
// docs/commands.md (docs/cli.md has them all by construction), and that
// the README is a front page: at most 250 lines, the two set-up commands,
// and links to the measured results.
func TestReadmeFlags(t *testing.T) {
	front := readme(t)
	text := front + docPage(t, "flags.md") + docPage(t, "commands.md") + docPage(t, "live.md") + docPage(t, "formats.md") + docPage(t, "reliability.md") + docPage(t, "mcp.md")
	flagRE := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z0-9-]*)`)
	for _, sub := range []string{"", "eval", "simulate", "record-gpu", "compare", "mcp"} {
		args := []string{"--help"}
		if sub != "" {
			args = []string{sub, "--help"}
		}
		r := runCmd(nil, args...)
		flags := flagRE.FindAllStringSubmatch(r.stdout+r.stderr, -1)
		if len(flags) == 0 {
			t.Errorf("%q --help lists no flags", sub)
		}
		for _, m := range flags {
			if !strings.Contains(text, "--"+m[1]) {
				t.Errorf("neither the README nor docs/{flags,commands,live,formats,reliability,mcp}.md explains %s --%s",
					strings.TrimSpace("pipeline-analyze "+sub), m[1])
			}
		}
	}
	if n := strings.Count(front, "\n"); n > 250 {
		t.Errorf("README.md has %d lines: a front page has at most 250 (the rest belongs under docs/)", n)
	}
	for _, want := range []string{"bash .ci/run", "go run ./cmd/pipeline-analyze", "docs/sample-scorecard.html", "docs/scorecard.schema.json",
		"docs/accuracy.md", "docs/performance.md", "docs/reliability.md", "docs/cli.md", "docs/formats.md"} {
		if !strings.Contains(front, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, page := range []string{"accuracy.md", "performance.md", "reliability.md", "formats.md", "live.md", "flags.md", "commands.md", "cli.md", "testing.md"} {
		if _, err := os.Stat(filepath.Join("..", "docs", page)); err != nil {
			t.Errorf("docs/%s: %v", page, err)
		}
	}
}

// TestSampleScorecardsCurrent checks that the README's sample reports,
// docs/sample-scorecard.{html,md}, are what the demo renders today (they
// are made with the commands the README gives next to them).
func TestSampleScorecardsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the demo twice")
	}
	docs, err := filepath.Abs(filepath.Join("..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the same arguments as the README's commands, so the same rerun line
	if err := os.Mkdir("docs", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{{"markdown", "sample-scorecard.md"}, {"html", "sample-scorecard.html"}} {
		want, err := os.ReadFile(filepath.Join(docs, f.file))
		if err != nil {
			t.Fatal(err)
		}
		r := runCmd(nil, "-q", "-o", f.format, "--export", "docs/"+f.file)
		if r.code != 0 {
			t.Fatalf("%v", r)
		}
		got, err := os.ReadFile(filepath.Join("docs", f.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("docs/%s is not the demo's %s report: regenerate it with go run ./cmd/pipeline-analyze -q -o %s --export docs/%s",
				f.file, f.format, f.format, f.file)
		}
	}
}

// TestSampleCompareCurrent regenerates docs/sample-compare.md and .html
// with docs/commands.md's commands (a simulated incident and its fixed
// follow-up, compared) and fails when the files differ: a change to
// compare's report must regenerate them (they had gone stale once, missing
// the request-shape section).
func TestSampleCompareCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates two inputs and compares them twice")
	}
	docs, err := filepath.Abs(filepath.Join("..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.Mkdir("docs", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate", "--fault", "tool_api_slow", "--seed", "7", "--out", "incident"},
		{"simulate", "--fault", "tool_api_slow", "--seed", "7", "--fixed", "--out", "fixed"},
	} {
		if r := runCmd(nil, args...); r.code != 0 {
			t.Fatalf("%v", r)
		}
	}
	for _, f := range []struct{ format, file string }{{"markdown", "sample-compare.md"}, {"html", "sample-compare.html"}} {
		want, err := os.ReadFile(filepath.Join(docs, f.file))
		if err != nil {
			t.Fatal(err)
		}
		if r := runCmd(nil, "compare", "-q", "-o", f.format, "--export", "docs/"+f.file, "incident/", "fixed/"); r.code != 0 {
			t.Fatalf("%v", r)
		}
		got, err := os.ReadFile(filepath.Join("docs", f.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("docs/%s is not the simulated pair's %s report: regenerate it in a directory holding incident/ and fixed/ (docs/commands.md) with "+
				"pipeline-analyze compare -q -o %s --export docs/%s incident/ fixed/", f.file, f.format, f.format, f.file)
		}
	}
}

// TestDocLinks checks that every relative link of the README and the pages
// under docs/ names a file that exists (after the README's split into
// pages, a link left pointing at the old place would otherwise rot).
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"))
	linkRE := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if i := strings.IndexByte(target, '#'); i >= 0 {
				target = target[:i]
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", p, m[1])
			}
		}
	}
}
