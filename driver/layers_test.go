package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the import rule of docs/architecture.md: each package of the
// module may import only the module's packages listed for it (their own
// tests aside). A new package needs a line here, which is the point: it
// must say where it sits.
var layers = map[string][]string{
	"measure":     {},
	"logtemplate": {},
	"live":        {"measure"},
	"fixtures":    {},
	"gpurecord":   {},
	"ingest":      {"logtemplate", "measure"},
	"tcg":         {"ingest", "measure"},
	"causal":      {"ingest", "measure", "tcg"},
	"evidence":    {"causal", "ingest", "measure", "tcg"},
	"scorecard":   {"causal", "evidence", "ingest", "measure", "tcg"},
	"compare":     {"causal", "ingest", "measure", "scorecard", "tcg"},
	"driver": {"causal", "compare", "evidence", "fixtures", "gpurecord", "ingest", "live", "logtemplate", "measure",
		"scorecard", "tcg"},
	"cmd/pipeline-analyze": {"driver"},
}

const module = "github.com/pipeline-analyze/pipeline-analyze/"

// TestLayers checks every non-test file of the stage packages against
// layers, and that scorecard never takes the raw bundle (it renders the
// analysis and its evidence; package evidence reads the bundle).
func TestLayers(t *testing.T) {
	root := filepath.Join("..")
	for pkg, allowed := range layers {
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				dep, ok := strings.CutPrefix(path, module)
				if !ok {
					continue
				}
				if !slices.Contains(allowed, dep) {
					t.Errorf("%s/%s imports %s: %s may import only %v (docs/architecture.md)", pkg, name, dep, pkg, allowed)
				}
			}
		}
	}
	// scorecard: no *ingest.Bundle in any signature or field.
	dir := filepath.Join(root, "scorecard")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Bundle" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "ingest" {
					t.Errorf("%s: scorecard/%s uses ingest.Bundle: evidence the card needs is gathered by package evidence",
						fset.Position(sel.Pos()), name)
				}
			}
			return true
		})
	}
}
