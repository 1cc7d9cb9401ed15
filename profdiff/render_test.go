package profdiff

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// goldenReport is the Nsight sample against a copy with its saxpy kernel
// ×1.5 and its host-to-device copies ×0.6, with the paths made stable.
func goldenReport(t *testing.T) *Report {
	t.Helper()
	src := sample(t, "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")
	cand := filepath.Join(t.TempDir(), "cand.sqlite")
	copyNsight(t, src, cand, nsightScaleKernels("saxpy", 1.5), nsightScaleMemcpy(1, 0.6))
	o := DefaultOptions()
	o.Version, o.Args = "0.1.0", []string{"pipeline-analyze", "compare", "--profile", "base.sqlite", "cand.sqlite"}
	r, err := Compare([]string{src}, []string{cand}, o)
	if err != nil {
		t.Fatal(err)
	}
	r.Base.Paths, r.Cand.Paths = []string{"base.sqlite"}, []string{"cand.sqlite"}
	for i := range r.BaseRanks {
		r.BaseRanks[i].File = "base.sqlite"
	}
	for i := range r.CandRanks {
		r.CandRanks[i].File = "cand.sqlite"
	}
	return r
}

func renderReport(t *testing.T, r *Report, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, r, format, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestGolden compares every format with testdata/nsight.<format>.golden
// (-update rewrites them).
func TestGolden(t *testing.T) {
	r := goldenReport(t)
	for _, f := range Formats() {
		t.Run(f, func(t *testing.T) {
			got := renderReport(t, r, f)
			if again := renderReport(t, goldenReport(t), f); again != got {
				t.Fatal("two runs render differently")
			}
			reporttest.Golden(t, filepath.Join("testdata", "nsight."+f+".golden"), got, *update)
		})
	}
}

// TestJSONSchema validates the report's JSON against
// docs/profdiff.schema.json, and the validator rejects a broken one.
func TestJSONSchema(t *testing.T) {
	schema := reporttest.LoadSchema(t, schemaPath)
	var doc map[string]any
	if err := json.Unmarshal([]byte(renderReport(t, goldenReport(t), "json")), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range reporttest.Validate(schema, doc) {
		t.Error(e)
	}
	doc["step"].(map[string]any)["verdict"] = "better"
	if errs := reporttest.Validate(schema, doc); !strings.Contains(strings.Join(errs, "\n"), "not in enum") {
		t.Errorf("a bad verdict validates: %v", errs)
	}
}

// TestRenderHostile: layer and kernel names are input; nothing of a
// hostile one escapes its context in Markdown or HTML, and text carries no
// control characters.
func TestRenderHostile(t *testing.T) {
	r := goldenReport(t)
	for i := range r.Layers {
		r.Layers[i].Name = reporttest.Hostile
	}
	for i := range r.Kernels {
		r.Kernels[i].Name = reporttest.Hostile
	}
	r.Regressions = append(r.Regressions, Ref{Kind: KindLayer, Name: reporttest.Hostile, Ratio: 2})
	r.Warnings = append(r.Warnings, reporttest.Hostile)
	r.Stragglers = append(r.Stragglers, Straggler{Side: "cand", Rank: 1, VsMedian: 1.3, Layers: []string{reporttest.Hostile}})
	reporttest.CheckMarkdown(t, renderReport(t, r, "markdown"), len(rowHeader))
	reporttest.CheckHTML(t, renderReport(t, r, "html"))
	if text := renderReport(t, r, "text"); strings.ContainsAny(text, "\x1b\u202e") {
		t.Error("text carries control or bidi characters")
	}
}
