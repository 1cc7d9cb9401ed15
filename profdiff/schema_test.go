package profdiff

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/profdiff.schema.json and testdata/*.golden")

// schemaPath is the Report's JSON Schema, generated from the Go types by
// TestSchemaUpToDate (-update rewrites it).
var schemaPath = filepath.Join("..", "docs", "profdiff.schema.json")

// descriptions document the schema's fields: "Type.Field" (Go names).
var descriptions = map[string]string{
	"Report":              "pipeline-analyze compare --profile: two profiler captures (Kineto, Nsight) compared step, layer and kernel.",
	"Report.Step":         "the GPU time of one step (PyTorch's ProfilerStep, else the whole capture of a rank)",
	"Report.StepWall":     "the step ranges' own duration; an empty name when the captures have no step annotations",
	"Report.Layers":       "every layer, the most baseline GPU time first",
	"Report.Kernels":      "every kernel, the most baseline GPU time first",
	"Report.Stragglers":   "ranks whose median step takes at least 1+min_ratio times the median rank's",
	"Report.Args":         "the command line, for a rerun",
	"Summary.Step":        "the step's verdict",
	"SideInfo.Format":     "kineto, nsight, or both joined by +",
	"SideInfo.Steps":      "step instances over every rank; 0: no step annotations (a rank's capture is one step)",
	"Settings.Tests":      "p-values in the Benjamini–Hochberg family",
	"Stats.Share":         "the row's GPU time over the steps' (nested layers' shares add up past 1)",
	"Stats.SlowestRank":   "the rank whose median instance is the longest; -1 when none",
	"Stats.Spread":        "the slowest rank's median over the median of the ranks' medians; null with one rank",
	"Row.Source":          "annotation (NVTX, record_function, nn.Module), gpu annotation, launch stack, ProfilerStep or capture",
	"Row.Ratio":           "the candidate's median over the baseline's",
	"Row.Lo":              "the ratio's bootstrap percentile interval, low end",
	"Row.Hi":              "the ratio's bootstrap percentile interval, high end",
	"Row.P":               "Welch's t-test on log instance times (a capture's step: the z-test of the totals)",
	"Row.Q":               "Benjamini–Hochberg adjusted p-value",
	"Row.TotalRatio":      "the candidate's GPU time per step over the baseline's",
	"Ref.PerStep":         "GPU time added (negative: saved) per step, seconds",
	"RankStat.VsMedian":   "the rank's median step over the median rank's",
	"Straggler.Layers":    "the layers it is the slowest rank of, the largest spread first (at most five)",
	"Row.Verdict":         "slower, faster, unchanged, insufficient data (too few instances), new or gone",
	"Summary.Text":        "the one-line answer",
	"SideInfo.GPUSeconds": "GPU time of every activity over all ranks",
}

// generateSchema is the Report's schema: named structs under $defs,
// every member required, floats nullable (NaN is null).
func generateSchema() map[string]any {
	defs := map[string]any{}
	var of func(t reflect.Type, owner, field string) map[string]any
	object := func(t reflect.Type) map[string]any {
		props := map[string]any{}
		var req []any
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			props[name] = of(f.Type, t.Name(), f.Name)
			req = append(req, name)
		}
		o := map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
		if d, ok := descriptions[t.Name()]; ok && t.Name() != "Report" {
			o["description"] = d
		}
		return o
	}
	of = func(t reflect.Type, owner, field string) map[string]any {
		var s map[string]any
		switch t.Kind() {
		case reflect.Struct:
			name := strings.ToLower(t.Name()[:1]) + t.Name()[1:]
			if _, ok := defs[name]; !ok {
				defs[name] = nil
				defs[name] = object(t)
			}
			s = map[string]any{"$ref": "#/$defs/" + name}
		case reflect.Slice:
			s = map[string]any{"type": "array", "items": of(t.Elem(), owner, "")}
		case reflect.Float64:
			s = map[string]any{"type": []any{"number", "null"}}
		case reflect.String:
			s = map[string]any{"type": "string"}
			if field == "Verdict" || owner == "Summary" && field == "Step" {
				s["enum"] = []any{Slower, Faster, Unchanged, Insufficient, New, Gone, ""}
			}
			if field == "Kind" && (owner == "Row" || owner == "Ref") {
				s["enum"] = []any{KindStep, KindLayer, KindKernel, ""}
			}
		case reflect.Bool:
			s = map[string]any{"type": "boolean"}
		case reflect.Int, reflect.Int64:
			s = map[string]any{"type": "integer"}
		case reflect.Uint64:
			s = map[string]any{"type": "integer", "minimum": 0}
		default:
			panic("schema: unsupported kind " + t.Kind().String())
		}
		if d, ok := descriptions[owner+"."+field]; ok && field != "" {
			s["description"] = d
		}
		return s
	}
	root := object(reflect.TypeFor[Report]())
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/pipeline-analyze/pipeline-analyze/docs/profdiff.schema.json",
		"title":       "profdiff.Report",
		"description": descriptions["Report"],
		"$defs":       defs,
	}
	for k, v := range root {
		doc[k] = v
	}
	return doc
}

// TestSchemaUpToDate regenerates docs/profdiff.schema.json from the types
// and fails when the file differs (go test -run TestSchemaUpToDate -update).
func TestSchemaUpToDate(t *testing.T) {
	b, err := json.MarshalIndent(generateSchema(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(schemaPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSchemaUpToDate -update)", err)
	}
	if string(have) != string(b) {
		t.Errorf("%s is out of date with the Report types; rerun with -update", schemaPath)
	}
}
