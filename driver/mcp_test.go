package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/pipeline-analyze/pipeline-analyze/mcp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

// lockedBuffer is a bytes.Buffer safe to write from the command's copier
// and read from the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpClient is a client session with the real binary's MCP server.
type mcpClient struct {
	t      *testing.T
	cs     *mcp.ClientSession
	stderr *lockedBuffer
	tmp    string // the server's TMPDIR
	cmd    *exec.Cmd
}

// startMCP starts "pipeline-analyze mcp ARGS..." as a subprocess and
// connects the SDK's client to it over its stdin and stdout (the command
// transport); the session is closed when the test ends.
func startMCP(t *testing.T, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command(realBinary(t), append([]string{"mcp"}, args...)...)
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "pipeline-analyze-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: t, cs: cs, stderr: stderr, tmp: tmp, cmd: cmd}
}

// peakRSS is the server's peak resident set so far, in bytes (0 where
// /proc does not say).
func (c *mcpClient) peakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// analyzeJSON is an analyze result as a client decodes it: the card (with
// detail full) as the JSON it is.
type analyzeJSON struct {
	mcpserver.AnalyzeOutput
	Card json.RawMessage `json:"card"`
}

// compareJSON is a compare result as a client decodes it: the report (with
// detail full) as the JSON it is.
type compareJSON struct {
	mcpserver.CompareOutput
	Report json.RawMessage `json:"report"`
}

// call calls a tool; a protocol error (the server gone) fails the test.
// It returns the result's text and whether it is a tool error; out, when
// not nil, receives the structured result.
func (c *mcpClient) call(name string, args map[string]any, out any) (string, bool) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s %v: %v (the server's stderr: %.2000s)", name, args, err, c.stderr.String())
	}
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s: structured content: %v", name, err)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// refused asserts that a call is a tool error of one line containing want.
func (c *mcpClient) refused(name string, args map[string]any, want string) {
	c.t.Helper()
	text, isErr := c.call(name, args, nil)
	if !isErr {
		c.t.Errorf("%s %v: not refused: %.300s", name, args, text)
		return
	}
	if strings.Contains(text, "\n") || !strings.Contains(text, want) {
		c.t.Errorf("%s %v: error %q, want one line with %q", name, args, text, want)
	}
}

// devCase is a development case directory, relative to the package.
func devCase(t *testing.T, set, name string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "data", set)
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Skipf("no development data: %v", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestMCPServer is issue 30's acceptance test: the real binary's MCP
// server lists its tools, analyzes a development case with the CLI's top
// cause, explains it, compares before/after and a canary, lists inputs,
// and refuses paths outside its roots, "..", a symlink out of a root and
// URL arguments with one-line tool errors while it keeps serving.
func TestMCPServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, simulates three incidents and analyses them")
	}
	dev := devCase(t, "llm-dev", "llm-002")
	work := t.TempDir()
	if _, err := fixtures.Write(filepath.Join(work, "incident"), smallSpec); err != nil {
		t.Fatal(err)
	}
	fixed := smallSpec
	fixed.Fixed = true
	if _, err := fixtures.Write(filepath.Join(work, "fixed"), fixed); err != nil {
		t.Fatal(err)
	}
	if _, err := fixtures.Write(filepath.Join(work, "rollout"), fixtures.Spec{Fault: "bad_config_rollout", Seed: 7, SampleRate: 0.08}); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"token":"hunter2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(work, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "linkdir")); err != nil {
		t.Fatal(err)
	}
	sneaky := filepath.Join(work, "sneaky")
	if err := os.Mkdir(sneaky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(sneaky, "metrics.json")); err != nil {
		t.Fatal(err)
	}
	copyProfiles(t, work)
	c := startMCP(t, "--root", dev, "--root", work)

	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil || tl.Description == "" {
			t.Errorf("tool %s: no input or output schema, or no description", tl.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"analyze", "compare", "explain_cause", "list_inputs"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	// analyze: the CLI's top cause, with its next steps.
	cli := runBinary(t, 2*maxRunWall, nil, "-q", "-o", "json", filepath.Join(dev, "llm-002"))
	if cli.code != 0 {
		t.Fatalf("the CLI: exit %d: %s", cli.code, cli.stderr)
	}
	var want struct {
		Verdict struct {
			Text string `json:"text"`
		} `json:"verdict"`
		Causes []mcpserver.CauseSummary `json:"causes"`
	}
	if err := json.Unmarshal([]byte(cli.stdout), &want); err != nil || len(want.Causes) == 0 {
		t.Fatalf("the CLI's JSON: %v (%d causes)", err, len(want.Causes))
	}
	var an analyzeJSON
	t0 := time.Now()
	text, isErr := c.call("analyze", map[string]any{"paths": []string{"llm-002"}}, &an)
	t.Logf("llm-002: the CLI %v (peak RSS %d MiB), the analyze tool %v", cli.wall.Round(10*time.Millisecond), cli.rss>>20,
		time.Since(t0).Round(10*time.Millisecond))
	if isErr {
		t.Fatalf("analyze: %s", text)
	}
	if len(an.Causes) == 0 {
		t.Fatalf("analyze: no causes: %+v", an)
	}
	got, top := an.Causes[0], want.Causes[0]
	if got.Service != top.Service || got.Component != top.Component || got.Signal != top.Signal {
		t.Errorf("top cause %s/%s/%s, the CLI's %s/%s/%s", got.Service, got.Component, got.Signal, top.Service, top.Component, top.Signal)
	}
	if an.Verdict != want.Verdict.Text || !strings.HasPrefix(text, want.Verdict.Text+"\n") {
		t.Errorf("verdict %q (text %.100q), the CLI's %q", an.Verdict, text, want.Verdict.Text)
	}
	if len(top.NextSteps) > 0 && !slices.Equal(got.NextSteps, top.NextSteps) {
		t.Errorf("next steps %+v, the CLI's %+v", got.NextSteps, top.NextSteps)
	}
	if an.Card != nil || an.Markdown != "" || len(an.Causes) > 3 { // a summary: the top three
		t.Errorf("summary detail carries the full card or %d causes", len(an.Causes))
	}
	var again analyzeJSON
	if text2, _ := c.call("analyze", map[string]any{"paths": []string{"llm-002"}}, &again); text2 != text {
		t.Errorf("analyze is not deterministic:\n%.500s\n%.500s", text, text2)
	}
	var anFull analyzeJSON
	textFull, isErr := c.call("analyze", map[string]any{"paths": []string{filepath.Join(dev, "llm-002")}, "detail": "full"}, &anFull)
	if isErr {
		t.Fatalf("analyze, full: %s", textFull)
	}
	t.Logf("analyze result text: %d bytes (summary), %d bytes (full)", len(text), len(textFull))
	if anFull.Card == nil || !strings.Contains(anFull.Markdown, top.Service) {
		t.Errorf("full detail lacks the JSON card or the Markdown")
	}

	// explain_cause: the last analysis's top cause in depth.
	var ex mcpserver.ExplainOutput
	if text, isErr := c.call("explain_cause", map[string]any{"rank": 1}, &ex); isErr {
		t.Fatalf("explain_cause: %s", text)
	}
	if ex.Rank != 1 || ex.Service != top.Service || ex.Component != top.Component || len(ex.Path) == 0 || len(ex.Evidence) == 0 {
		t.Errorf("explain_cause: %+v", ex)
	}
	c.refused("explain_cause", map[string]any{"rank": 99}, "rank 99")

	// compare: before/after (the CLI's verdict), then canary mode.
	cliCmp := runBinary(t, 2*maxRunWall, nil, "compare", "-q", "-o", "json", filepath.Join(work, "incident"), filepath.Join(work, "fixed"))
	if cliCmp.code != 0 {
		t.Fatalf("the CLI's compare: exit %d: %s", cliCmp.code, cliCmp.stderr)
	}
	var wantCmp struct {
		Verdict struct {
			Text string `json:"text"`
		} `json:"verdict"`
		Watch []any `json:"watch"`
	}
	if err := json.Unmarshal([]byte(cliCmp.stdout), &wantCmp); err != nil {
		t.Fatal(err)
	}
	var cmp compareJSON
	if text, isErr := c.call("compare", map[string]any{"paths": []string{"incident", "fixed"}}, &cmp); isErr {
		t.Fatalf("compare: %s", text)
	}
	if cmp.Mode != "before-after" || cmp.Verdict == "" || cmp.Verdict != wantCmp.Verdict.Text || cmp.Target == nil {
		t.Errorf("compare: %+v, the CLI's verdict %q", cmp, wantCmp.Verdict.Text)
	}
	if len(cmp.Watch) == 0 || len(cmp.Watch) != len(wantCmp.Watch) || cmp.Watch[0].Text == "" {
		t.Errorf("compare: watch %+v, the CLI's %+v: want what to watch after the fix", cmp.Watch, wantCmp.Watch)
	}
	var one compareJSON
	if text, isErr := c.call("compare", map[string]any{"paths": []string{"incident"}, "window": "2m", "before_at": "now-2m", "after_at": "now-9m"}, &one); isErr ||
		one.Mode != "before-after" || one.Verdict == "" {
		t.Errorf("compare, two windows of one input: %.300s %+v", text, one)
	}
	var can compareJSON
	if text, isErr := c.call("compare", map[string]any{"paths": []string{"rollout"}, "canary": "auto"}, &can); isErr {
		t.Fatalf("compare, canary: %s", text)
	}
	if can.Mode != "canary" || len(can.Workloads) == 0 || can.Workloads[0].Verdict != "fail" {
		t.Errorf("compare, canary: %+v", can)
	}
	// compare, profile: two profiler captures (a capture against itself).
	var prof compareJSON
	if text, isErr := c.call("compare", map[string]any{"paths": []string{"base.json.gz", "cand.json.gz"}, "profile": true}, &prof); isErr ||
		prof.Mode != "profile" || prof.Target == nil || prof.Target.Verdict != "unchanged" || !strings.HasPrefix(prof.Verdict, "step unchanged") {
		t.Errorf("compare, profile: %.300s %+v", text, prof)
	}
	c.refused("compare", map[string]any{"paths": []string{"base.json.gz"}, "profile": true}, "want paths BASE CAND")
	c.refused("compare", map[string]any{"paths": []string{"base.json.gz", "cand.json.gz"}, "profile": true, "window": "5m"}, "do not apply")

	// list_inputs: the roots, then what a case holds.
	var roots mcpserver.ListOutput
	if text, isErr := c.call("list_inputs", nil, &roots); isErr || len(roots.Roots) != 2 || !slices.Contains(roots.Roots[1].Entries, "incident/") {
		t.Errorf("list_inputs without paths: %s %+v", text, roots)
	}
	var li mcpserver.ListOutput
	if text, isErr := c.call("list_inputs", map[string]any{"paths": []string{"llm-002"}}, &li); isErr || li.Spans == 0 || li.Formats["jaeger-json"] == 0 {
		t.Errorf("list_inputs llm-002: %s %+v", text, li)
	}

	// Refusals, each one line; the server keeps serving after each.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"analyze", map[string]any{"paths": []string{outside}}, "outside the roots"},
		{"analyze", map[string]any{"paths": []string{secret}}, "outside the roots"},
		{"analyze", map[string]any{"paths": []string{"/etc/passwd"}}, "outside the roots"},
		{"analyze", map[string]any{"paths": []string{"../llm-dev/llm-002"}}, `".." is refused`},
		{"analyze", map[string]any{"paths": []string{"llm-002/../llm-004"}}, `".." is refused`},
		{"list_inputs", map[string]any{"paths": []string{work + "/../x"}}, `".." is refused`},
		{"analyze", map[string]any{"paths": []string{"link.json"}}, "outside the roots"},
		{"list_inputs", map[string]any{"paths": []string{"linkdir"}}, "outside the roots"},
		{"analyze", map[string]any{"paths": []string{"sneaky"}}, "symlink out of the roots"},
		{"compare", map[string]any{"paths": []string{"incident", "link.json"}}, "outside the roots"},
		{"analyze", map[string]any{"paths": []string{"http://169.254.169.254/latest/meta-data"}}, "URL is refused"},
		{"analyze", map[string]any{"paths": []string{"llm-002"}, "target": "http://evil.example/x"}, "URL is refused"},
		{"compare", map[string]any{"paths": []string{"rollout"}, "canary": "file:///etc/passwd"}, "URL is refused"},
		{"analyze", map[string]any{"paths": []string{"llm-002"}, "jaeger_url": "http://jaeger:16686"}, "jaeger_url"},
		{"analyze", map[string]any{}, "no live sources"},
		{"analyze", map[string]any{"paths": []string{"no-such-case"}}, "no such file or directory under the roots"},
		{"analyze", map[string]any{"paths": []string{"llm-002"}, "target": "no-such-service"}, "no-such-service"},
		{"analyze", map[string]any{"paths": []string{"llm-002"}, "detail": "everything"}, "want summary or full"},
	} {
		c.refused(tc.tool, tc.args, tc.want)
	}
	if text, isErr := c.call("explain_cause", nil, nil); !isErr || !strings.Contains(text, "call analyze first") {
		t.Errorf("explain_cause after a failed analyze: %q", text)
	}
	if text, isErr := c.call("list_inputs", nil, nil); isErr {
		t.Errorf("the server stopped serving: %s", text)
	}
	if strings.Contains(c.stderr.String(), "hunter2") {
		t.Error("the secret outside the roots reached the server's stderr")
	}
}

// TestMCPUsage checks the mcp command's own usage errors and that it ends
// cleanly when its client closes stdin at once.
func TestMCPUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "want --root DIR"},
		{[]string{"--root", filepath.Join(dir, "missing")}, 2, "--root"},
		{[]string{"--root", dir, "extra"}, 2, "takes no arguments"},
		{[]string{"--root", dir, "--save-bundle", dir}, 2, "writes no files"},
		{[]string{"--root", dir}, 0, ""},
	} {
		r := runCmd(nil, append([]string{"mcp"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("mcp %q: %v; want exit %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
}

// TestMCPLive serves the live sources of the server's own flags: analyze
// without paths fetches from a fake Prometheus with the token of the
// server's --token-file, the token never reaches a result, and paths are
// refused when the server has no root.
func TestMCPLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and simulates an incident")
	}
	lc := newLiveCase(t, 12*time.Minute)
	c := startMCP(t, "--prometheus-url", lc.prom.URL, "--token-file", lc.tokenFile, "--retries", "1", "--timeout", "5s")
	var an analyzeJSON
	text, isErr := c.call("analyze", map[string]any{"at": lc.label.AlertTime, "baseline": "6m", "target": "vllm:gpu_util", "detail": "full"}, &an)
	if isErr {
		t.Fatalf("analyze from the live source: %s", text)
	}
	if lc.hits.Load() < 30 || an.Verdict == "" || !strings.HasPrefix(an.Target, "vllm:gpu_util") {
		t.Errorf("%d requests; verdict %q, target %q", lc.hits.Load(), an.Verdict, an.Target)
	}
	if strings.Contains(text, plantedToken) || strings.Contains(c.stderr.String(), plantedToken) {
		t.Error("the token reached a result or the server's stderr")
	}
	if !strings.Contains(text, "live/") {
		t.Error("the full card does not name the fetched inputs")
	}
	var roots mcpserver.ListOutput
	if text, isErr := c.call("list_inputs", nil, &roots); isErr || !slices.Equal(roots.Live, []string{"prometheus"}) || strings.Contains(text, lc.prom.URL) {
		t.Errorf("list_inputs without paths: %s", text)
	}
	c.refused("analyze", map[string]any{"paths": []string{"incident"}}, "no --root")
}
