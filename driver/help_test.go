package driver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"github.com/spf13/pflag"
)

// TestHelpTexts checks every command's help: the same from "help CMD" and
// "CMD --help", on stdout, within 100 columns, flags in their groups, no
// pflag "[=true|false]" noise, and every visible flag listed.
func TestHelpTexts(t *testing.T) {
	for _, c := range commands() {
		name := c.name
		if name == "" {
			name = "analysis"
		}
		t.Run(name, func(t *testing.T) {
			helpArgs := []string{"help"}
			flagArgs := []string{"--help"}
			if c.name != "" {
				helpArgs = append(helpArgs, c.name)
				flagArgs = []string{c.name, "--help"}
			}
			a, b := runCmd(nil, helpArgs...), runCmd(nil, flagArgs...)
			if a.code != 0 || b.code != 0 || a.stderr != "" || b.stderr != "" {
				t.Fatalf("help: %v\n--help: %v", a, b)
			}
			if a.stdout != b.stdout {
				t.Errorf("help %s and %s --help differ", c.name, c.name)
			}
			for i, l := range strings.Split(a.stdout, "\n") {
				if n := utf8.RuneCountInString(l); n > clihelp.Width {
					t.Errorf("line %d is %d columns: %q", i+1, n, l)
				}
			}
			for _, bad := range []string{"[=true|false]", "stringArray", " string ", "(default \"", "%!"} {
				if strings.Contains(a.stdout, bad) {
					t.Errorf("help contains %q", bad)
				}
			}
			if !strings.Contains(a.stdout, "Examples") {
				t.Error("help has no examples")
			}
			if c.flags == nil {
				return
			}
			fs := c.flags()
			fs.VisitAll(func(f *pflag.Flag) {
				if !f.Hidden && !strings.Contains(a.stdout, "--"+f.Name+" ") && !strings.Contains(a.stdout, "--"+f.Name+"\n") {
					t.Errorf("help does not list --%s", f.Name)
				}
			})
			if c.name == "" {
				for _, g := range []string{"Analysis flags:", "Inputs and limits flags:", "Live sources flags:", "Output flags:"} {
					if !strings.Contains(a.stdout, g) {
						t.Errorf("help lacks the group %q", g)
					}
				}
				if strings.Contains(a.stdout, "Other flags:") {
					t.Error("a flag of the analysis has no group")
				}
			}
		})
	}
}

// exampleLines are the "  pipeline-analyze ..." lines after the line
// starting "Examples" of a help text.
func exampleLines(usage string) []string {
	i := strings.Index(usage, "\nExamples")
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(usage[i:], "\n") {
		if strings.HasPrefix(l, "  pipeline-analyze ") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// exampleStep is one command of an example line: its arguments and the
// file its stdout is redirected to ("" for none).
type exampleStep struct {
	args     []string
	redirect string
}

// exampleSteps splits an example line at "&&" and drops comments and pipes
// ("| jq ...", "|| page-someone": what follows is not ours to run).
func exampleSteps(line string) []exampleStep {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var out []exampleStep
	for _, part := range strings.Split(line, "&&") {
		part = strings.TrimSpace(part)
		if i := strings.Index(part, "|"); i >= 0 {
			part = part[:i]
		}
		redirect := ""
		if i := strings.Index(part, " > "); i >= 0 {
			redirect = strings.TrimSpace(part[i+3:])
			part = part[:i]
		}
		args, ok := commandArgs(part)
		if !ok {
			continue
		}
		out = append(out, exampleStep{args: args, redirect: redirect})
	}
	return out
}

// TestHelpExamples runs every example of every help text, in order, in a
// fresh directory holding incident/ and fixed/ (the simulated case the
// help texts name). Each must exit 0 (3 is also fine with --fail-on;
// record-gpu may exit 1 on a machine without NVIDIA's driver, saying so).
func TestHelpExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every help example (about 15 s)")
	}
	if raceEnabled {
		// About 15 s without the race detector, minutes with it: .ci/run runs
		// it in its step without -race, beside the hostile-input suites.
		t.Skip("under -race; .ci/run runs it without -race")
	}
	for _, c := range commands() {
		lines := exampleLines(c.usage)
		name := c.name
		if name == "" {
			name = "analysis"
		}
		if len(lines) == 0 {
			t.Errorf("%s: no examples", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			inc := copyCase(t)
			if err := os.Rename(inc, filepath.Join(work, "incident")); err != nil {
				t.Fatal(err)
			}
			fixed := smallSpec
			fixed.Fixed = true
			if _, err := fixtures.Write(filepath.Join(work, "fixed"), fixed); err != nil {
				t.Fatal(err)
			}
			copyProfiles(t, work)
			t.Chdir(work)
			for _, line := range lines {
				for _, st := range exampleSteps(line) {
					r := runCmd(nil, st.args...)
					ok := r.code == 0 || r.code == 3 && strings.Contains(line, "--fail-on")
					if c.name == "record-gpu" && r.code == 1 && strings.Contains(r.stderr, "no NVIDIA driver/NVML") {
						ok = true
					}
					if !ok {
						t.Errorf("%s\n%v", line, r)
						continue
					}
					if st.redirect != "" {
						if err := os.WriteFile(filepath.Base(st.redirect), []byte(r.stdout), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestCompletionScripts checks the three shells' scripts: bash parses it
// and completes commands, a subcommand's flags and -o's values.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := runCmd(nil, "completion", sh)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "pipeline-analyze") {
			t.Fatalf("completion %s: %v", sh, r)
		}
		if !strings.Contains(r.stdout, "methods") || !strings.Contains(r.stdout, "output-format") {
			t.Errorf("completion %s lacks eval's --methods or -o", sh)
		}
	}
	if r := runCmd(nil, "completion", "tcsh"); r.code != 2 || !strings.Contains(r.stderr, "bash, zsh or fish") {
		t.Errorf("completion tcsh: %v", r)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := runCmd(nil, "completion", "bash").stdout
	for _, tc := range []struct {
		words string // the command line, the last word being completed
		want  string
	}{
		{"pipeline-analyze ev", "eval"},
		{"pipeline-analyze eval --meth", "--methods"},
		{"pipeline-analyze -o ma", "markdown"},
		{"pipeline-analyze --method ba", "baro"},
		{"pipeline-analyze compare --fail-on reg", "regressed"},
		{"pipeline-analyze completion fi", "fish"},
	} {
		words := strings.Fields(tc.words)
		var sb bytes.Buffer
		sb.WriteString(script)
		sb.WriteString("\nCOMP_WORDS=(")
		for _, w := range words {
			sb.WriteString("'" + w + "' ")
		}
		sb.WriteString(")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_pipeline_analyze\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
		out, err := exec.Command(bash, "-c", sb.String()).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.words, err, out)
		}
		if !strings.Contains("\n"+string(out), "\n"+tc.want+"\n") {
			t.Errorf("%q completes to %q, want %q among them", tc.words, out, tc.want)
		}
	}
}

// copyProfiles puts the two profiler captures compare --profile's examples
// name into dir: base.json.gz and cand.json.gz, both a real Kineto trace
// of the shared samples.
func copyProfiles(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.SharedDir(t), "samples", "hta", "benchmark_result_493459_1694039959_trace.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"base.json.gz", "cand.json.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
