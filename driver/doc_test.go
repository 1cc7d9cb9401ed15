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
//     file and must be read by ingest as format NAME without error;
//   - every flag that a --help prints is documented in the README.

// readme returns the README's text.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
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
	blocks := markedBlocks(readme(t), "format")
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
				t.Fatalf("README.md:%d: %v", b.line, err)
			}
			in := part.Inputs[0]
			if in.Format.String() != b.marker {
				t.Errorf("README.md:%d: read as %s, marked %s", b.line, in.Format, b.marker)
			}
			c := in.Counts
			if c.Spans+c.Series+c.Points+c.Events+c.Alerts+c.Dependencies+c.Samples+c.Logs == 0 {
				t.Errorf("README.md:%d: example yields no data: %+v", b.line, c)
			}
		})
	}
	// Every streamable format has an example (Nsight SQLite is binary).
	for _, f := range []string{"jaeger-json", "otlp-json", "jaeger-dependencies", "prometheus-query-range",
		"alertmanager", "k8s-events", "nvidia-smi-csv", "nvidia-smi-dmon", "nvml-recording", "kineto-trace",
		"loki-streams", "otlp-logs", "docker-json-log", "cri-log", "text-log", "victorialogs-jsonl"} {
		if !seen[f] {
			t.Errorf("README has no <!-- format: %s --> example", f)
		}
	}
}

// TestReadmeFlags checks that every flag the command and its subcommands
// print in --help appears in the README.
func TestReadmeFlags(t *testing.T) {
	text := readme(t)
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
				t.Errorf("README does not document %s --%s", strings.TrimSpace("pipeline-analyze "+sub), m[1])
			}
		}
	}
	for _, want := range []string{"## Accuracy", "## Performance", "## Reliability", "bash .ci/run", "go run ./cmd/pipeline-analyze", "docs/sample-scorecard.html", "docs/scorecard.schema.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("README lacks %q", want)
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
