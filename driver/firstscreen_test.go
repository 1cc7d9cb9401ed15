package driver

import (
	"context"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/internal/progress"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// devSets are the development sets under ../shared/data.
var devSets = []string{"nezha-ob", "nezha-tt-dev", "petshop-train", "petshop-dev", "changerca-dev", "llm-dev"}

// devCases lists every development case directory (one with a
// label.json), skipping the test where the data is absent.
func devCases(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, set := range devSets {
		matches, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", set, "*", "label.json"))
		for _, m := range matches {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	if len(dirs) == 0 {
		t.Skip("development data not present under ../shared/data")
	}
	sort.Strings(dirs)
	return dirs
}

// analyseCard runs the analysis command's steps on args and returns the
// card (as the command builds it before rendering).
func analyseCard(t *testing.T, args ...string) *scorecard.Card {
	t.Helper()
	red := &cliio.Redactor{}
	env := cmdEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, explain: io.Discard, red: red}
	fs, o := newAnalyzeFlags()
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	r, err := cmdrun.NewAnalyzeRun(env.command(), o, fs.Changed, fs.Args(), &progress.Reporter{Out: io.Discard, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Run(context.Background(), args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return run.Card
}

// pasteable holds what a card offers to copy: shell commands and PromQL
// queries, each with where it came from.
type pasteable struct {
	commands, queries []string
}

var (
	textCommandRE = regexp.MustCompile(`(?m)^\s+\$ (.+)$`)
	// a query stands alone on the line after a step ending "— PromQL:"
	textQueryRE = regexp.MustCompile(`(?m)— PromQL:\n\s+(.+)$`)
	mdStepRE    = regexp.MustCompile("(?m)^\\s*- \\*(confirm|mitigate[^*]*)\\*: .*?: (`+)(.+?)`+")
	htmlCodeRE  = regexp.MustCompile(`<strong>(confirm|mitigate)</strong> (PromQL )?<code>(.*?)</code>`)
)

// extractText finds the commands and queries of a text card.
func extractText(s string) (p pasteable) {
	for _, m := range textCommandRE.FindAllStringSubmatch(s, -1) {
		p.commands = append(p.commands, m[1])
	}
	for _, m := range textQueryRE.FindAllStringSubmatch(s, -1) {
		p.queries = append(p.queries, m[1])
	}
	return p
}

// extractMarkdown finds the code spans of a Markdown card's steps: a
// query when the step says it is one (PromQL), else a command.
func extractMarkdown(s string) (p pasteable) {
	for _, m := range mdStepRE.FindAllStringSubmatch(s, -1) {
		code := strings.TrimSpace(m[3])
		if strings.Contains(m[0], "the series that moved") || strings.Contains(m[0], "PromQL") {
			p.queries = append(p.queries, code)
			continue
		}
		p.commands = append(p.commands, code)
	}
	return p
}

// extractHTML finds the <code> of an HTML card's steps.
func extractHTML(s string) (p pasteable) {
	for _, m := range htmlCodeRE.FindAllStringSubmatch(s, -1) {
		code := html.UnescapeString(m[3])
		if m[2] != "" {
			p.queries = append(p.queries, code)
			continue
		}
		p.commands = append(p.commands, code)
	}
	return p
}

// checkPasteable runs every command through bash -n and parses every
// query with Prometheus' own PromQL parser (promtool's, from Debian's
// prometheus package that .ci/run installs: PROMTOOL_BIN or promtool on
// the PATH; without it the queries are not checked, and the test says so).
func checkPasteable(t *testing.T, where string, p pasteable) {
	t.Helper()
	if err := promqlErrors(t, p.queries); err != nil {
		t.Errorf("%s: %v", where, err)
	}
	if len(p.commands) == 0 {
		return
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := strings.Join(p.commands, "\n") + "\n"
	out, err := exec.Command(bash, "-n", "-c", script).CombinedOutput()
	if err != nil {
		t.Errorf("%s: bash -n: %v: %s\n%s", where, err, out, script)
	}
	for _, c := range p.commands {
		if !strings.HasPrefix(c, "kubectl ") && !strings.HasPrefix(c, "nvidia-smi ") && !strings.HasPrefix(c, "dcgmi ") && !strings.HasPrefix(c, "pipeline-analyze ") {
			t.Errorf("%s: unexpected command %q (a step's command starts with its tool)", where, c)
		}
	}
}

// TestFirstScreenDevelopment checks the card on every development case,
// as issue 42 asks: the default text card within 70 lines at 100 columns,
// no two of its first five rows the same component, every command and
// query pasteable as extracted from the text, the Markdown and the HTML,
// and the Markdown within 30,000 characters; and (issue 41) no row or
// cause names a call edge as its component. Skipped where ../shared/data
// is absent; -short checks one case of each set.
func TestFirstScreenDevelopment(t *testing.T) {
	cases := devCases(t)
	// Every development case takes about 50 s without the race detector and
	// over 200 s with it, which alone nearly filled the driver package's
	// 10-minute test budget on CI's two cores. Under -race (and -short) it
	// checks the first case of each set; .ci/run runs every case in its step
	// without -race.
	if testing.Short() || raceEnabled {
		seen := map[string]bool{}
		var few []string
		for _, d := range cases {
			set := filepath.Base(filepath.Dir(d))
			if !seen[set] {
				seen[set] = true
				few = append(few, d)
			}
		}
		cases = few
	}
	maxLines, maxMD := 0, 0
	for _, dir := range cases {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			c := analyseCard(t, "-q", dir)
			var text, md, page strings.Builder
			if err := scorecard.Render(&text, c, "text", scorecard.RenderOptions{Width: 100}); err != nil {
				t.Fatal(err)
			}
			if err := scorecard.Render(&md, c, "markdown", scorecard.RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := scorecard.Render(&page, c, "html", scorecard.RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(text.String(), "\n")
			maxLines = max(maxLines, lines)
			if lines > 70 {
				t.Errorf("the text card has %d lines (at most 70):\n%s", lines, text.String())
			}
			// issue 41: the part one acts on, never a call edge
			for _, r := range c.Rows {
				if r.ComponentKind == "edge" {
					t.Errorf("row #%d names the call edge %s", r.Rank, r.Component)
				}
			}
			for _, cs := range c.Causes {
				if cs.ComponentKind == "edge" {
					t.Errorf("cause #%d names the call edge %s", cs.Rank, cs.Component)
				}
			}
			seen := map[string]int{}
			for _, r := range c.Rows[:min(5, len(c.Rows))] {
				k := r.ComponentKind + "/" + r.Component
				if seen[k] > 0 {
					t.Errorf("rows #%d and #%d are both %s", seen[k], r.Rank, k)
				}
				seen[k] = r.Rank
			}
			n := len([]rune(md.String()))
			maxMD = max(maxMD, n)
			if n > scorecard.DefaultMaxChars {
				t.Errorf("the Markdown has %d characters (at most %d)", n, scorecard.DefaultMaxChars)
			}
			checkPasteable(t, "text", extractText(text.String()))
			checkPasteable(t, "markdown", extractMarkdown(md.String()))
			checkPasteable(t, "html", extractHTML(page.String()))
		})
	}
	t.Logf("%d cases: at most %d text lines, %d Markdown characters", len(cases), maxLines, maxMD)
}

// TestPasteableExtraction: the extraction finds what the renderers write
// (so that TestFirstScreenDevelopment cannot pass by finding nothing).
func TestPasteableExtraction(t *testing.T) {
	dir := t.TempDir()
	if r := runCmd(nil, "simulate", "--fault", "gpu_throttling", "--seed", "3", "--out", filepath.Join(dir, "inc")); r.code != 0 {
		t.Fatal(r)
	}
	c := analyseCard(t, "-q", filepath.Join(dir, "inc"))
	var text, md, page strings.Builder
	for _, f := range []struct {
		w      *strings.Builder
		format string
	}{{&text, "text"}, {&md, "markdown"}, {&page, "html"}} {
		if err := scorecard.Render(f.w, c, f.format, scorecard.RenderOptions{Verbose: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range []struct {
		name string
		p    pasteable
	}{{"text", extractText(text.String())}, {"markdown", extractMarkdown(md.String())}, {"html", extractHTML(page.String())}} {
		if len(x.p.commands) == 0 || len(x.p.queries) == 0 {
			t.Errorf("%s: found %d commands and %d queries; want some of each", x.name, len(x.p.commands), len(x.p.queries))
		}
		checkPasteable(t, x.name, x.p)
	}
	// A broken query or command is caught.
	bad := pasteable{queries: []string{`up{job="a"`}}
	if promtoolBin() != "" && promqlErrors(t, bad.queries) == nil {
		t.Error("the parser accepts a broken query")
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		if err := exec.Command("bash", "-n", "-c", "kubectl logs 'a").Run(); err == nil {
			t.Error("bash -n accepts an unterminated quote")
		}
	}
}

// promtoolBin is promtool's path: PROMTOOL_BIN (set by .ci/run), else on
// the PATH; "" when there is none.
func promtoolBin() string {
	if p := os.Getenv("PROMTOOL_BIN"); p != "" {
		return p
	}
	p, _ := exec.LookPath("promtool")
	return p
}

// promqlErrors parses queries with Prometheus' own parser, through
// `promtool check rules` on a rules file holding each query as a
// recording rule; it names the queries that do not parse. Without promtool
// it checks nothing and logs that it did not.
func promqlErrors(t *testing.T, queries []string) error {
	t.Helper()
	if len(queries) == 0 {
		return nil
	}
	bin := promtoolBin()
	if bin == "" {
		t.Logf("promtool not found (set PROMTOOL_BIN): %d PromQL queries not parsed", len(queries))
		return nil
	}
	check := func(qs []string) (string, bool) {
		var sb strings.Builder
		sb.WriteString("groups:\n- name: pasted\n  rules:\n")
		for i, q := range qs {
			fmt.Fprintf(&sb, "  - record: pasted:query%d\n    expr: |\n", i)
			for _, line := range strings.Split(q, "\n") {
				sb.WriteString("      " + line + "\n")
			}
		}
		f := filepath.Join(t.TempDir(), "rules.yml")
		if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "check", "rules", f).CombinedOutput()
		return string(out), err == nil
	}
	if _, ok := check(queries); ok {
		return nil
	}
	var bad []string
	for _, q := range queries {
		if out, ok := check([]string{q}); !ok {
			bad = append(bad, fmt.Sprintf("%q: %s", q, strings.TrimSpace(out)))
		}
	}
	return fmt.Errorf("queries that do not parse:\n%s", strings.Join(bad, "\n"))
}
