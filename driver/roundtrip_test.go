package driver

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The process never talks to itself through argv or JSON (issue 45): a
// tool, a harness or a command calls the Go API (analysis.Analyze, the
// stages' functions) with Go values and reads the typed results. These
// are the patterns of such a round trip in non-test sources:
var roundTrips = []struct {
	name string
	re   *regexp.Regexp
	// allowed are the files (slash paths from the module root) where the
	// pattern is the legitimate thing: the flag wiring of the commands.
	allowed []string
	// in, when not nil, limits the rule to the files it accepts.
	in func(rel string) bool
}{
	{"a flag parser (pflag) outside the commands' flag wiring", regexp.MustCompile(`"github.com/spf13/pflag"`), nil, func(rel string) bool {
		// internal/clihelp is part of the wiring: it prints the commands'
		// flag sets (help, completion) and never parses one (parseFlags does).
		return !strings.HasPrefix(rel, "driver/") && !strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "internal/clihelp/")
	}},
	{"a FlagSet parsed outside parseFlags", regexp.MustCompile(`\bfs\.Parse\(|\bflags\.Parse\(|FlagSet\)\.Parse\(`), []string{"driver/help.go"}, nil},
	{"a command run in-process with argv (runCompare, runAnalyze, ...)", regexp.MustCompile(`\brun(Compare|Analyze|AnalyzeRow|Canary|Profile|Eval|Simulate)\(\s*(args|append|\[\]string)`), nil, func(rel string) bool {
		// The commands' dispatch passes the user's own argv on; anything
		// else (the MCP server, a harness) calls the Go API.
		return strings.HasPrefix(rel, "driver/mcp") || !strings.HasPrefix(rel, "driver/") && !strings.HasPrefix(rel, "cmd/")
	}},
	{"--name=value argv built for a parser", regexp.MustCompile(`"--"\s*\+\s*\w+\s*\+\s*"="`), []string{"internal/cmdrun/compare.go"}, nil}, // the rerun line the live compare's report records
	{"our own rendered JSON unmarshalled back", regexp.MustCompile(`json\.Unmarshal\(\[\]byte\((sb|buf|out|stdout)\.String\(\)\)|json\.Unmarshal\((stdout|out|rendered)\.Bytes\(\)`), nil, nil},
	// The MCP server's arguments arrive decoded by the SDK and its results
	// are Go values: it has no JSON of its own to read, nor has analysis.
	{"JSON decoded in the MCP server or the analysis core", regexp.MustCompile(`json\.(Unmarshal|NewDecoder)\(`), nil, func(rel string) bool {
		return strings.HasPrefix(rel, "driver/mcp") || strings.HasPrefix(rel, "mcp/") || strings.HasPrefix(rel, "analysis/")
	}},
	// The MCP tools call the commands' runs (internal/cmdrun) with Go
	// values and read their failures as values (cmdrun.ToolText): no
	// runner in the command's package, no stderr captured and read back.
	{"an MCP runner in the command's flag wiring", regexp.MustCompile(`func \(\w+ \*\w+\) (Analyze|Compare|Profile|Read)\(`), nil, func(rel string) bool {
		return strings.HasPrefix(rel, "driver/")
	}},
	{"a command's stderr captured to be read back", regexp.MustCompile(`NewSafeWriter\(&|\brunError\(|errors\.New\(\w*[sS]tderr\w*\.String\(\)`), nil, nil},
}

// knownRoundTrips are round trips yet to be removed, by file: none. The
// list may only shrink.
var knownRoundTrips = map[string][]string{}

// TestNoInProcessRoundTrips greps the module's non-test Go sources for the
// patterns of an in-process argv or JSON round trip.
func TestNoInProcessRoundTrips(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "tools" || n == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(data)
		for _, k := range knownRoundTrips[rel] {
			if !strings.Contains(src, k) {
				t.Errorf("%s: %q is gone: take it off knownRoundTrips", rel, k)
			}
			src = strings.ReplaceAll(src, k, "")
		}
		for _, rt := range roundTrips {
			if slices.Contains(rt.allowed, rel) || rt.in != nil && !rt.in(rel) {
				continue
			}
			if loc := rt.re.FindStringIndex(src); loc != nil {
				line := strings.Count(src[:loc[0]], "\n") + 1
				t.Errorf("%s:%d: %s: call the Go API with Go values instead (issue 45)", rel, line, rt.name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
