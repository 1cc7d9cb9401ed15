package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bareGoroutines are the `go` statements of the module's non-test code that
// do not go through internal/parallel (For, ForWith, Both, Group), each with
// why a panic on it cannot be lost or cannot happen. Everything else a
// stage, a reader or a live fetch runs concurrently goes through
// internal/parallel, which carries a panic to the goroutine that waits for
// the work: so an MCP call's recover (addTool) and an eval case's
// (evalCaseSafe) cover every goroutine the call started, and a panic ends
// the call with an error, never the server (issue 44).
var bareGoroutines = map[string]string{
	"internal/parallel/parallel.go": "the carriers themselves",
	"ingest/read.go readAll":        "each worker's file is read by readSorted, whose recoverInput turns a panic into that file's error; the feeder only sends indices",
	"ingest/read.go mergeParts":     "runtime.GC: no code of ours",
	"internal/cliio/cleanup.go":     "the signal handler: removes temporary files and exits",
	"internal/progress/progress.go": "the live progress line: formats numbers; never started with -q, so never in an MCP call",
	"eval/eval.go Run":              "each eval case runs under evalCaseSafe, which recovers its panic into the case's failure",
}

// TestGoroutinesCarryPanics fails for a `go` statement outside
// internal/parallel that is not listed in bareGoroutines, and for a
// sync.WaitGroup's Go: a panic on such a goroutine would end the process
// whatever its caller recovers (the MCP server would die with the call).
// (parallel.Group has the same Go and Wait.)
func TestGoroutinesCarryPanics(t *testing.T) {
	root := filepath.Join("..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "tmp") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own (tools)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if first, _, _ := strings.Cut(rel, "/"); first == "bench" {
			return nil // the benchmark harness: never in a run
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			waitGroups := map[string]bool{} // variables of type sync.WaitGroup
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok {
					if sel, ok := vs.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "WaitGroup" {
						if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "sync" {
							for _, id := range vs.Names {
								waitGroups[id.Name] = true
							}
						}
					}
				}
				if call, ok := n.(*ast.CallExpr); ok && !strings.HasPrefix(rel, "internal/parallel/") {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
						if id, ok := sel.X.(*ast.Ident); ok && waitGroups[id.Name] {
							t.Errorf("%s: %s.Go of a sync.WaitGroup in %s: use a parallel.Group (same Go and Wait), whose Wait carries a panic to the caller", fset.Position(n.Pos()), id.Name, fn.Name.Name)
						}
					}
				}
				if _, ok := n.(*ast.GoStmt); !ok {
					return true
				}
				key := rel + " " + fn.Name.Name
				switch {
				case bareGoroutines[rel] != "":
					seen[rel] = true
				case bareGoroutines[key] != "":
					seen[key] = true
				default:
					t.Errorf("%s: a bare go statement in %s: start it with internal/parallel (Group.Go, Both, For) so a panic reaches the caller, or list it in bareGoroutines with why it cannot be lost", fset.Position(n.Pos()), fn.Name.Name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range bareGoroutines {
		if !seen[k] {
			t.Errorf("bareGoroutines lists %q, which starts no goroutine any more: remove the line", k)
		}
	}
}
