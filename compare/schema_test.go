package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// schemaPath is the Report's JSON Schema, generated from the Go types by
// TestSchemaUpToDate (-update rewrites it) so that the two cannot drift.
var schemaPath = filepath.Join("..", "docs", "compare.schema.json")

// descriptions document the schema's fields: "type.field" (Go names).
var descriptions = map[string]string{
	"Report":                "pipeline-analyze compare: did the fix work? BEFORE and AFTER compared entity by entity and signal by signal.",
	"Report.Verdict":        "the one-line answer: the incident target's verdict",
	"Report.Causes":         "the BEFORE side's top causes, in rank order, each with its verdict",
	"Report.CausesFrom":     "where the causes came from (\"\" when none)",
	"Report.Regressions":    "the worst regressed item of each entity, largest effect first (the target's own measurements excluded)",
	"Report.Improvements":   "the largest fixed or improved item of each entity, largest effect first",
	"Report.Traffic":        "traffic of every service, busiest first",
	"Report.Counts":         "items per verdict",
	"Report.Items":          "every compared item, sorted by id",
	"Report.Plots":          "before/after distributions (ECDF points) of the top items",
	"Report.Heatmap":        "latency change by call depth × time",
	"Report.Mode":           "before-after (two windows) or canary (two groups of pods in one window: compare --canary)",
	"Report.RequestShape":   "the target's LLM requests shape by shape (input × output tokens), AFTER's window against BEFORE's: present only when both windows hold LLM request shapes (docs/scorecard.schema.json, request_shape)",
	"Report.Canary":         "canary mode: each canary group judged against its baseline pods in the same minutes (empty in before-after mode)",
	"Canary.Verdict":        "the worst workload verdict: fail, marginal, insufficient data or pass (\"\" in before-after mode)",
	"CanaryWorkload.Score":  "0–100: the mean over signals of the share of decided metrics not worse than the baseline; null when none was decided",
	"Metric.Effect":         "the canary's median difference from the baseline, in scales (how far one baseline pod strays from the others)",
	"Metric.Ratio":          "canary / baseline (of the shortfall from 1 for a ratio that should stay near 1)",
	"Metric.Bad":            "high or low in the metric's bad direction",
	"Summary.Regressions":   "items that regressed, the target included",
	"SideInfo.ChosenBy":     "how the window was chosen",
	"SideInfo.Covered":      "seconds of the window the side's data covers",
	"SideInfo.Requests":     "entry requests of the target service in the window",
	"Settings.Tests":        "p-values in the Benjamini–Hochberg family",
	"Settings.FalseAlarm":   "upper bound of the chance that two quiet windows report any change (Benjamini–Hochberg at alpha bounds the family-wise error under the global null; the minimum effect and the band only lower it)",
	"Finding.Rank":          "1-based position in its list (a cause: its rank in the scorecard); 0 for the target",
	"Finding.Item":          "the id of the item shown (\"\" when nothing matched)",
	"Item.ID":               "stable key: entity:signal[/facet], or series/entity:signal[/facet] name{labels}",
	"Item.Depth":            "call-graph hops from the target's service, -1 when unknown",
	"Item.Direction":        "+1 up is worse, -1 down is worse, 0 neither",
	"Item.Effect":           "how far apart the sides are, 0..1: |Cliff's δ| (errors: the difference of the error ratios; traffic: |r−1|/(r+1) of the rate ratio r)",
	"Item.LogRatio":         "|log2(after/before)| of the statistic that moved (the median when none did), capped at 10 (10: from or to zero)",
	"Band.Known":            "false without enough baseline: nothing can then be fixed, and a series cannot be decided",
	"Band.Level":            "series: 1st–99th percentile of the baseline points",
	"Test.Q":                "Benjamini–Hochberg adjusted p-value",
	"Test.Deff":             "variance inflation for dependence in time (design effect)",
	"Test.CliffDelta":       "P(after > before) − P(after < before)",
	"Test.HodgesLehmann":    "median of all after − before differences",
	"Test.Shift":            "series: (median after − median before) / robust σ",
	"QuantileChange.Usable": "both sides have at least 10 samples beyond the quantile",
	"Plot.Before":           "[value, share ≤ value] points of BEFORE",
	"Plot.After":            "[value, share ≤ value] points of AFTER",
	"Heatmap.Cells":         "log2(after/before) of each slice's median latency / 2, clipped to [-1, 1]; null without data",
}

var (
	timeT     = reflect.TypeFor[ingest.Time]()
	durationT = reflect.TypeFor[time.Duration]()
	verdictT  = reflect.TypeFor[model.Verdict]()
)

// schemaGen builds the JSON Schema of the Report's encoding (see
// reportfmt.MarshalJSONValue): named structs under $defs.
type schemaGen struct{ defs map[string]any }

func snake(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				sb.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func (g *schemaGen) of(t reflect.Type, owner, field string) map[string]any {
	var s map[string]any
	switch {
	case t == timeT:
		s = map[string]any{"type": []any{"string", "null"}, "format": "date-time"}
	case t == durationT:
		s = map[string]any{"type": "number", "description": "seconds"}
	case t == verdictT:
		var enum []any
		for _, v := range model.Verdicts() {
			enum = append(enum, string(v))
		}
		s = map[string]any{"type": "string", "enum": enum}
	case t.Kind() == reflect.Pointer:
		s = g.of(t.Elem(), owner, field) // an optional member (omitempty): absent, not null
	case t.Kind() == reflect.Struct:
		name := snake(t.Name())
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // recursion guard
			g.defs[name] = g.object(t)
		}
		s = map[string]any{"$ref": "#/$defs/" + name}
	case t.Kind() == reflect.Slice:
		s = map[string]any{"type": "array", "items": g.of(t.Elem(), owner, "")}
	case t.Kind() == reflect.Array:
		s = map[string]any{"type": "array", "items": g.of(t.Elem(), owner, ""), "minItems": t.Len(), "maxItems": t.Len()}
	case t.Kind() == reflect.Float64:
		s = map[string]any{"type": []any{"number", "null"}}
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
		if owner == "Item" && field == "Kind" {
			s["enum"] = []any{model.KindDistribution, model.KindProportion, model.KindRate, model.KindSeries}
		}
		if owner == "Report" && field == "SchemaVersion" {
			s["enum"] = []any{model.SchemaVersion}
		}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		s = map[string]any{"type": "integer"}
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		s = map[string]any{"type": "integer", "minimum": 0}
	default:
		panic("schema: unsupported kind " + t.Kind().String())
	}
	if d, ok := descriptions[owner+"."+field]; ok && field != "" {
		s["description"] = d // beside a $ref too (draft 2020-12 allows it)
	}
	return s
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var req []any
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		props[name] = g.of(f.Type, t.Name(), f.Name)
		if opts != "omitempty" {
			req = append(req, name)
		}
	}
	o := map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
	if d, ok := descriptions[t.Name()]; ok && t.Name() != "Report" {
		o["description"] = d
	}
	return o
}

// generateSchema is the Report's schema document.
func generateSchema() map[string]any {
	g := &schemaGen{defs: map[string]any{}}
	root := g.object(reflect.TypeFor[model.Report]())
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/pipeline-analyze/pipeline-analyze/docs/compare.schema.json",
		"title":       "compare.Report",
		"description": descriptions["Report"],
		"$defs":       g.defs,
	}
	for k, v := range root {
		doc[k] = v
	}
	return doc
}

// TestSchemaUpToDate regenerates docs/compare.schema.json from the types
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

// TestJSONSchema validates every golden report's JSON against the schema
// and checks the validator rejects broken documents.
func TestJSONSchema(t *testing.T) {
	schema := reporttest.LoadSchema(t, schemaPath)
	for _, gc := range append(goldenCases, struct {
		name   string
		report func(testing.TB) *model.Report
	}{"hostile", hostileReport}) {
		t.Run(gc.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(renderFormat(t, gc.report(t), "json")), &doc); err != nil {
				t.Fatal(err)
			}
			for _, e := range reporttest.Validate(schema, doc) {
				t.Error(e)
			}
		})
	}
	t.Run("canary", func(t *testing.T) {
		// Canary mode's golden report (package compare/canary's TestGolden).
		data, err := os.ReadFile(filepath.Join("canary", "testdata", "canary.json.golden"))
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range reporttest.Validate(schema, doc) {
			t.Error(e)
		}
	})
	bad := []struct {
		name   string
		mutate func(map[string]any)
		want   string
	}{
		{"missing field", func(m map[string]any) { delete(m, "verdict") }, `missing required "verdict"`},
		{"extra field", func(m map[string]any) { m["colour"] = "red" }, `unexpected property "colour"`},
		{"bad verdict", func(m map[string]any) { m["target"].(map[string]any)["verdict"] = "great" }, "not in enum"},
		{"short interval", func(m map[string]any) {
			m["items"].([]any)[0].(map[string]any)["band"].(map[string]any)["p50"] = []any{0.1}
		}, "minItems"},
	}
	for _, tc := range bad {
		t.Run("reject/"+tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal([]byte(renderFormat(t, fixedReport(t), "json")), &doc); err != nil {
				t.Fatal(err)
			}
			tc.mutate(doc)
			errs := reporttest.Validate(schema, doc)
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q lack %q", errs, tc.want)
			}
		})
	}
}
