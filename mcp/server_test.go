package mcp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

// TestMCPResolve checks the path rules of the tools in process: relative
// to a root or absolute inside one, ".." refused, symlinks resolved (out of
// the roots refused, also inside a directory), missing paths named.
func TestMCPResolve(t *testing.T) {
	root, other, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(root, "case", "t.json"), filepath.Join(other, "o.json"), filepath.Join(outside, "secret.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(root, "in.json"):          filepath.Join(root, "case", "t.json"),
		filepath.Join(root, "out.json"):         filepath.Join(outside, "secret.json"),
		filepath.Join(root, "outdir"):           outside,
		filepath.Join(root, "case", "sneak.js"): filepath.Join(outside, "secret.json"),
		filepath.Join(other, "back"):            filepath.Join(root, "case"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	s := &Server{}
	for _, r := range []string{root, other} {
		real, err := RealDir(r)
		if err != nil {
			t.Fatal(err)
		}
		s.Roots = append(s.Roots, real)
	}
	realRoot := s.Roots[0]
	for _, tc := range []struct {
		path, want, err string
	}{
		{"in.json", filepath.Join(realRoot, "case", "t.json"), ""},
		{"o.json", filepath.Join(s.Roots[1], "o.json"), ""},                             // the second root
		{filepath.Join(root, "in.json"), filepath.Join(realRoot, "case", "t.json"), ""}, // absolute inside
		{"back", filepath.Join(realRoot, "case"), "symlink out of the roots"},           // into the first root, whose case/ holds sneak.js
		{"case", "", "case/sneak.js is a symlink out of the roots"},
		{"case/t.json", filepath.Join(realRoot, "case", "t.json"), ""},
		{"out.json", "", "outside the roots"},
		{"outdir", "", "outside the roots"},
		{filepath.Join(outside, "secret.json"), "", "outside the roots"},
		{filepath.Join(outside, "missing.json"), "", "outside the roots"},
		{"/", "", "outside the roots"},
		{"../x", "", `".." is refused`},
		{"case/../in.json", "", `".." is refused`},
		{root + "/../x", "", `".." is refused`},
		{"", "", "empty path"},
		{"missing.json", "", "no such file or directory under the roots"},
		{"a\x00b", "", "NUL"},
	} {
		got, err := s.resolve(tc.path)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("resolve(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("resolve(%q) = %q, %v; want an error with %q", tc.path, got, err, tc.err)
		}
	}
	if _, err := (&Server{}).resolve("in.json"); err == nil || !strings.Contains(err.Error(), "no --root") {
		t.Errorf("no roots: %v", err)
	}
}

// TestMCPNoURLs checks that a URL in any string or list argument is refused.
func TestMCPNoURLs(t *testing.T) {
	for _, in := range []any{
		AnalyzeInput{Paths: []string{"ok", "https://x/y"}},
		AnalyzeInput{At: "http://x"},
		CompareInput{BaselineGroup: "file:///etc/passwd"},
		ListInput{Paths: []string{"gopher://x"}},
	} {
		if err := checkNoURLs(in); err == nil || !strings.Contains(err.Error(), "URL is refused") {
			t.Errorf("%+v: %v", in, err)
		}
	}
	if err := checkNoURLs(AnalyzeInput{Paths: []string{"case"}, Target: "api:latency:p99", At: "now-5m"}); err != nil {
		t.Errorf("no URL: %v", err)
	}
}

// TestMCPToolPanic checks that a panic in a tool is a tool error of one
// line, logged on stderr, and that the server keeps serving.
func TestMCPToolPanic(t *testing.T) {
	var stderr bytes.Buffer
	s := &Server{Redact: same, Clean: same, Stderr: &stderr}
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	calls := 0
	addTool(s, srv, &sdk.Tool{Name: "boom"}, func(context.Context, ListInput) (*ListOutput, string, error) {
		calls++
		if calls == 1 {
			var m map[string]int
			m["x"] = 1 // a nil map write: a runtime panic
		}
		return &ListOutput{Spans: 7}, "fine", nil
	})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("first call: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.HasPrefix(text, "internal error: assignment to entry in nil map") || strings.Contains(text, "\n") {
		t.Errorf("tool error %q", text)
	}
	if !strings.Contains(stderr.String(), "pipeline-analyze mcp: boom: internal error") {
		t.Errorf("stderr %q", stderr.String())
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "boom", Arguments: map[string]any{"paths": []string{"x"}}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "fine" {
		t.Fatalf("second call: %v %+v", err, res)
	}
}

// TestMCPGoroutinePanic: a panic on a goroutine the call started (a live
// fetch's search, a stage's parallel loop: anything internal/parallel
// runs) ends that call with a one-line tool error and the worker's stack
// on stderr; the server keeps serving.
func TestMCPGoroutinePanic(t *testing.T) {
	var stderr bytes.Buffer
	s := &Server{Redact: same, Clean: same, Stderr: &stderr}
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	calls := 0
	addTool(s, srv, &sdk.Tool{Name: "fetch"}, func(context.Context, ListInput) (*ListOutput, string, error) {
		calls++
		var g parallel.Group
		for i := range 4 {
			g.Go(func() {
				if calls == 1 && i == 2 {
					var m map[string]int
					m["x"] = 1 // a nil map write on a worker: a runtime panic
				}
			})
		}
		g.Wait()
		return &ListOutput{Spans: 7}, "fine", nil
	})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fetch", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("first call: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.HasPrefix(text, "internal error: assignment to entry in nil map") || strings.Contains(text, "\n") {
		t.Errorf("tool error %q", text)
	}
	if e := stderr.String(); !strings.Contains(e, "pipeline-analyze mcp: fetch: internal error") || !strings.Contains(e, "TestMCPGoroutinePanic.func1.1") {
		t.Errorf("stderr does not name the worker's frame: %q", e)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fetch", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "fine" {
		t.Fatalf("second call: %v %+v", err, res)
	}
}

// same is a redactor with no secrets.
func same(s string) string { return s }
