package scorecard

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// loadSchema reads docs/scorecard.schema.json from the repository root.
func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	return reporttest.LoadSchema(t, filepath.Join("..", "docs", "scorecard.schema.json"))
}

// TestJSONSchema validates the JSON of every golden card against
// docs/scorecard.schema.json, and checks the validator rejects bad documents.
func TestJSONSchema(t *testing.T) {
	schema := loadSchema(t)
	if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("$schema = %v", schema["$schema"])
	}
	for _, gc := range goldenCases {
		t.Run(gc.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(render(t, gc.card(), "json", RenderOptions{})), &doc); err != nil {
				t.Fatal(err)
			}
			for _, e := range reporttest.Validate(schema, doc) {
				t.Error(e)
			}
		})
	}
	bad := []struct {
		name   string
		mutate func(map[string]any)
		want   string
	}{
		{"missing field", func(m map[string]any) { delete(m, "verdict") }, `missing required "verdict"`},
		{"extra field", func(m map[string]any) { m["colour"] = "red" }, `unexpected property "colour"`},
		{"wrong type", func(m map[string]any) { m["unexplained"] = "12%" }, "$.unexplained: type string"},
		{"bad enum", func(m map[string]any) { m["method"] = "magic" }, "not in enum"},
		{"short interval", func(m map[string]any) {
			m["causes"].([]any)[0].(map[string]any)["intervention"].(map[string]any)["interval"] = []any{0.1}
		}, "minItems"},
	}
	for _, tc := range bad {
		t.Run("reject/"+tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal([]byte(render(t, confidentCard(), "json", RenderOptions{})), &doc); err != nil {
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

// TestJSONEncoding pins the documented encodings of times, durations, NaN
// and nil slices.
func TestJSONEncoding(t *testing.T) {
	c := abstainCard()
	c.Heatmaps = []Heatmap{{CauseRank: 1, Rows: []HeatRow{{Label: "a"}}, Start: t0.Add(1500 * time.Millisecond),
		Slice: 1500 * time.Millisecond, Cells: [][]float64{{0.5, math.NaN(), math.Inf(1)}}}}
	var doc map[string]any
	out := render(t, c, "json", RenderOptions{})
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	h := doc["heatmaps"].([]any)[0].(map[string]any)
	cause := doc["causes"].([]any)[0].(map[string]any)
	tests := []struct {
		name      string
		got, want any
	}{
		{"time RFC3339Nano UTC", h["start"], "2025-03-01T12:00:01.5Z"},
		{"zero time is null", h["onset"], nil},
		{"duration seconds", h["slice_seconds"], 1.5},
		{"NaN cell null", fmt.Sprint(h["cells"]), "[[0.5 <nil> <nil>]]"},
		{"NaN confidence null", cause["confidence"], nil},
		{"nil slice is []", fmt.Sprint(cause["evidence"]), "[]"},
		{"field order", out[:strings.Index(out, "\n  \"tool\"")], "{\n  \"schema_version\": \"2\","},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}
}

// TestSchemaMethods: the schema's `method` enum is every registered ranking
// method (causal.Methods), so a card of any method validates and a new
// registration that the schema does not list fails here.
func TestSchemaMethods(t *testing.T) {
	props, _ := loadSchema(t)["properties"].(map[string]any)
	m, _ := props["method"].(map[string]any)
	enum, _ := m["enum"].([]any)
	var got []string
	for _, e := range enum {
		s, _ := e.(string)
		got = append(got, s)
	}
	if want := causal.Methods(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("docs/scorecard.schema.json lists methods %v; causal registers %v: update the schema's enum", got, want)
	}
}
