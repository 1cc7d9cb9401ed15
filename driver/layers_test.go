package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
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
	"measure":           {},
	"internal/parallel": {},
	"internal/hugepage": {}, // huge-page advice for the readers' large span arrays (Linux madvise; advice only)
	"internal/radix":    {}, // the stable radix sort the readers' span sorts and the shape map's value sort share, and the float sorts of quantiles over many samples
	"logtemplate":       {},
	"live":              {"internal/boundedfile", "internal/parallel", "measure"},
	"fixtures":          {},
	"simulate":          {"fixtures", "internal/clihelp", "internal/reportfmt"}, // the simulate command's work over fixtures: the catalog table, --seeds, a catalog with its progress, a case's summary
	"gpurecord":         {},
	"ingest":            {"ingest/classify", "ingest/fastjson", "ingest/model", "internal/hugepage", "internal/parallel", "internal/radix", "logtemplate", "measure"},
	"ingest/model":      {},               // the data model: Bundle, Span, Series, Entity, Sym, Time, logs, warnings
	"ingest/classify":   {"ingest/model"}, // a series' signal, statistic, unit and entity from its name and labels
	"ingest/fastjson":   {},               // the fast paths' JSON scanner: a library
	"ingest/formats": {"ingest/alertmanager", "ingest/changes", "ingest/gpu/kineto", "ingest/gpu/nsight", "ingest/gpu/nvidiasmi", "ingest/gpu/nvml", "ingest/jaeger",
		"ingest/k8sevents", "ingest/k8sobjects", "ingest/logs", "ingest/logs/container", "ingest/logs/loki", "ingest/logs/otlplogs", "ingest/logs/victorialogs",
		"ingest/otlp", "ingest/prometheus"}, // registers every decoder package (and the log step of Finalize)

	// Decoder packages: each imports only the core (TestDecodersImportOnlyTheCore).
	"ingest/alertmanager":      {"ingest"},
	"ingest/changes":           {"ingest"}, // change records the user supplies (JSON, JSON Lines, CSV)
	"ingest/k8sevents":         {"ingest"},
	"ingest/k8sobjects":        {"ingest"}, // kubectl get deploy,rs,cm,sts,ds -o json: ReplicaSet revisions, ConfigMap updates
	"ingest/gpu":               {"ingest"}, // the GPU family's shared code: the GPU entity, series sets, the timeline Nsight and Kineto share
	"ingest/gpu/kineto":        {"ingest", "ingest/gpu"},
	"ingest/gpu/nsight":        {"ingest", "ingest/gpu"},
	"ingest/gpu/nvidiasmi":     {"ingest", "ingest/gpu"},
	"ingest/gpu/nvml":          {"ingest", "ingest/gpu"},
	"ingest/jaeger":            {"ingest", "ingest/fastjson"},
	"ingest/logs":              {"ingest", "ingest/model", "logtemplate"}, // the log family's shared code (sink, lines, labels, OTLP records, the log step of Finalize): the Drain miner
	"ingest/logs/container":    {"ingest", "ingest/logs"},
	"ingest/logs/loki":         {"ingest", "ingest/fastjson", "ingest/logs"},
	"ingest/logs/otlplogs":     {"ingest", "ingest/fastjson", "ingest/logs"},
	"ingest/logs/victorialogs": {"ingest", "ingest/logs"},
	"ingest/otlp":              {"ingest", "ingest/logs"}, // OTLP logs documents among span documents
	"ingest/prometheus":        {"ingest", "ingest/classify", "ingest/fastjson"},
	"features":                 {"ingest", "internal/radix", "measure"}, // between ingest and tcg: derived series, placement
	"peers":                    {"ingest", "measure"},
	"tcg":                      {"ingest", "internal/parallel", "internal/radix", "measure", "peers"},
	"causal":                   {"features", "ingest", "internal/parallel", "measure", "tcg"},
	"shape":                    {"ingest", "internal/radix", "measure"}, // the tail latency by request shape of LLM requests (spans' token counts, else histograms)
	"evidence":                 {"causal", "ingest", "measure", "shape", "tcg"},
	"scorecard":                {"causal", "evidence", "ingest", "internal/reportfmt", "internal/reportview", "measure", "peers", "shape", "tcg"},
	"profdiff":                 {"ingest", "ingest/fastjson", "ingest/gpu", "ingest/gpu/nsight", "internal/parallel", "internal/reportfmt", "measure", "scorecard"}, // compare --profile: two profiler captures (Kineto, Nsight) layer by layer
	// compare/model: the Report model both of compare's modes fill and every renderer reads.
	"compare/model": {"ingest", "internal/reportfmt", "internal/reportview"},
	// compare/internal/render: the presentation both modes share (values, durations, windows, the text and Markdown writers).
	"compare/internal/render": {"compare/model", "ingest", "internal/reportfmt"},
	// compare/internal/cstats: the statistics both modes use.
	"compare/internal/cstats": {},
	// compare/canary: canary mode, two groups of pods in one window (Run, the judge, FailOn, its renderers).
	"compare/canary": {"compare/internal/cstats", "compare/internal/render", "compare/model", "ingest", "internal/reportfmt", "measure", "peers", "tcg"},
	// compare: before/after mode, two windows (Run, the rollout items canary judges, Render: a canary report goes to compare/canary's renderers).
	"compare": {"causal", "compare/canary", "compare/internal/cstats", "compare/internal/render", "compare/model", "ingest", "internal/boundedfile", "internal/parallel", "internal/reportfmt", "internal/reportview", "measure", "shape", "tcg"},
	// analysis: the one in-process core the CLI, the MCP server, eval and compare call (Analyze → *Run; Compare, Canary, Profile → reports).
	"analysis": {"causal", "compare", "compare/canary", "compare/model", "evidence", "features", "fixtures", "ingest", "ingest/formats", "internal/parallel", "internal/suggest", "live", "measure", "profdiff", "scorecard", "shape", "tcg"},
	// mcp: the MCP server's tools over analysis.Run and the comparisons' reports, and their Runner over internal/cmdrun (the commands' runs with the server's flags).
	"mcp": {"analysis", "compare/model", "features", "ingest", "internal/cliio", "internal/cmdrun", "internal/parallel", "internal/progress", "internal/reportfmt", "profdiff", "scorecard"},
	// internal/cmdrun: each command's work below its flags (options as Go values, checks, run, report; failures as the lines the command says), which driver and the MCP runner call.
	"internal/cmdrun": {"analysis", "causal", "compare", "compare/canary", "compare/model", "eval", "ingest", "internal/boundedfile", "internal/cliio", "internal/progress", "internal/reportfmt", "internal/suggest", "live", "profdiff", "scorecard", "tcg"},
	// eval: the analysis scored against labelled cases (--split, --fit); the eval command is its flag wiring.
	"eval": {"analysis", "causal", "features", "ingest", "internal/boundedfile", "measure", "tcg"},
	"driver": {"analysis", "causal", "compare", "compare/canary", "compare/model", "eval", "evidence", "features", "fixtures", "gpurecord", "ingest", "ingest/formats", "internal/boundedfile", "internal/clihelp", "internal/cliio", "internal/cmdrun", "internal/parallel", "internal/progress", "internal/reportfmt", "internal/suggest", "live", "logtemplate", "mcp", "measure",
		"peers", "profdiff", "scorecard", "shape", "simulate", "tcg"},
	"cmd/pipeline-analyze": {"driver"},

	"internal/boundedfile": {},                                     // the one reader of files a flag names (issue 28)
	"internal/clihelp":     {"internal/cliio", "internal/suggest"}, // the commands' flag help (groups, wrapped descriptions, "did you mean") and shell completion scripts
	"internal/cliio":       {"ingest", "live"},                     // the command line's I/O: safe stderr (redacted, escaped), atomic output files, temporary files removed on a signal
	"internal/progress":    {"internal/cliio"},                     // the command's progress on stderr: stage lines, -v's details and phases, a long read's live line
	"internal/reportfmt":   {"ingest/model"},
	"internal/suggest":     {}, // "did you mean": the nearest known names to one typed
	// internal/reportview: the sections the scorecard and compare both show (the request-shape section, a series' PromQL and Grafana Explore link).
	"internal/reportview": {"ingest", "internal/reportfmt", "shape"},
}

// harnesses are the module's packages outside the data flow — the
// benchmark harness and its generator, the renderers' test helpers — which
// may import any package; no stage may import them.
var harnesses = []string{"bench", "compare/internal/canarytest", "bench/cmd/benchgen", "scorecard/reporttest", "internal/testkit", "internal/llmgen", "internal/profgen", "ingest/internal/tracetest", "ingest/internal/nsighttest", "ingest/internal/bundletest"}

const module = "github.com/pipeline-analyze/pipeline-analyze/"

// TestLayersListEveryPackage fails for a package of the module that is in
// neither layers nor harnesses, so that the import rule cannot be skipped
// by adding a package.
func TestLayersListEveryPackage(t *testing.T) {
	root := filepath.Join("..")
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
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := layers[pkg]; !ok && !slices.Contains(harnesses, pkg) {
			t.Errorf("package %s (%s) is not in layers or harnesses: say where it sits (docs/architecture.md)", pkg, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

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
				if slices.Contains(harnesses, dep) {
					t.Errorf("%s/%s imports the harness %s: no stage may", pkg, name, dep)
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

// decoderDeps are what a decoder package (a package under ingest/ other
// than the core libraries) may import from the module: the core, the model
// and classification, the shared log machinery (records, sinks, lines: one
// package the log decoders and the OTLP trace decoder share), and two
// libraries that import nothing of the module: the fast paths' JSON
// scanner and the Drain miner. A format's package inside a family
// (ingest/gpu/nsight, ingest/logs/loki) may also import its family's
// package (ingest/gpu, ingest/logs), which holds what the family's formats
// share.
var decoderDeps = []string{"ingest", "ingest/classify", "ingest/fastjson", "ingest/logs", "ingest/model", "logtemplate"}

// coreLibraries are the packages under ingest/ that are not decoders: the
// all-formats package, and libraries of the core that import nothing of
// the module but the model (TestDecodersImportOnlyTheCore checks them
// against layers only).
var coreLibraries = []string{"ingest/formats", "ingest/fastjson", "ingest/model", "ingest/classify"}

// TestDecodersImportOnlyTheCore checks every package under ingest/ against
// decoderDeps, whatever its line in layers says: a decoder that needs
// another decoder's code asks the core for it (ingest.Decoder) or the code
// moves into the core, so that a format can be read, added or removed by
// reading only its own folder and the core.
func TestDecodersImportOnlyTheCore(t *testing.T) {
	n := 0
	for pkg := range layers {
		if !strings.HasPrefix(pkg, "ingest/") || slices.Contains(coreLibraries, pkg) {
			continue
		}
		n++
		family := path.Dir(pkg) // ingest/gpu for ingest/gpu/nsight
		for _, dep := range layers[pkg] {
			if !slices.Contains(decoderDeps, dep) && (family == "ingest" || dep != family) || dep == pkg {
				t.Errorf("layers lets the decoder package %s import %s: decoders import only %v", pkg, dep, decoderDeps)
			}
		}
	}
	if n < 15 {
		t.Errorf("%d decoder packages in layers, want at least the 15 (alertmanager, gpu and its 4 formats, jaeger, k8sevents, logs and its 4 formats, otlp, prometheus)", n)
	}
	// The model imports nothing of the module, classification only the
	// model: a decoder that imports them imports no more than the core.
	for pkg, want := range map[string][]string{"ingest/model": {}, "ingest/classify": {"ingest/model"}} {
		if got, ok := layers[pkg]; !ok || !slices.Equal(got, want) {
			t.Errorf("layers[%s] = %v, want %v", pkg, got, want)
		}
	}
	// Every decoder package is registered by ingest/formats, but for a
	// family's shared package (one that packages below it import).
	for pkg := range layers {
		if strings.HasPrefix(pkg, "ingest/") && !slices.Contains(coreLibraries, pkg) && !isFamily(pkg) && !slices.Contains(layers["ingest/formats"], pkg) {
			t.Errorf("ingest/formats does not import the decoder package %s: its formats would not be registered", pkg)
		}
	}
}

// isFamily reports whether pkg is a family's shared package: a package of
// layers lies below it and imports it.
func isFamily(pkg string) bool {
	for p, deps := range layers {
		if strings.HasPrefix(p, pkg+"/") && slices.Contains(deps, pkg) {
			return true
		}
	}
	return false
}
