package scorecard

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// loadSchema reads docs/scorecard.schema.json from the repository root.
func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "scorecard.schema.json"))
	if err != nil {
		t.Fatalf("read schema: %v", err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	return s
}

// schemaValidator checks the JSON Schema subset the scorecard schema uses:
// $ref to #/$defs, type (string or list), required, properties,
// additionalProperties false, items, enum, minItems, maxItems, minimum.
type schemaValidator struct {
	root map[string]any
	errs []string
}

func (v *schemaValidator) fail(path, format string, args ...any) {
	v.errs = append(v.errs, path+": "+fmt.Sprintf(format, args...))
}

func (v *schemaValidator) validate(path string, s map[string]any, x any) {
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		def, ok := v.root["$defs"].(map[string]any)[name].(map[string]any)
		if !found || !ok {
			v.fail(path, "unresolvable $ref %s", ref)
			return
		}
		v.validate(path, def, x)
		return
	}
	if ty, ok := s["type"]; ok && !typeMatches(ty, x) {
		v.fail(path, "type %T does not match %v", x, ty)
		return
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == x
		}
		if !found {
			v.fail(path, "%v not in enum %v", x, enum)
		}
	}
	if m, ok := s["minimum"].(float64); ok {
		if f, isNum := x.(float64); isNum && f < m {
			v.fail(path, "%v < minimum %v", f, m)
		}
	}
	switch x := x.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range s["required"].([]any) {
			if _, ok := x[r.(string)]; !ok {
				v.fail(path, "missing required %q", r)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					v.fail(path, "unexpected property %q", k)
				}
				continue
			}
			v.validate(path+"."+k, ps, x[k])
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			v.fail(path, "%d items < minItems %v", len(x), n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			v.fail(path, "%d items > maxItems %v", len(x), n)
		}
		if is, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				v.validate(fmt.Sprintf("%s[%d]", path, i), is, e)
			}
		}
	}
}

func typeMatches(ty, x any) bool {
	if list, ok := ty.([]any); ok {
		for _, t := range list {
			if typeMatches(t, x) {
				return true
			}
		}
		return false
	}
	switch ty {
	case "null":
		return x == nil
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "number":
		_, ok := x.(float64)
		return ok
	case "integer":
		f, ok := x.(float64)
		return ok && f == math.Trunc(f)
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	}
	return false
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
			v := &schemaValidator{root: schema}
			v.validate("$", schema, doc)
			for _, e := range v.errs {
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
			v := &schemaValidator{root: schema}
			v.validate("$", schema, doc)
			if !strings.Contains(strings.Join(v.errs, "\n"), tc.want) {
				t.Errorf("errors %q lack %q", v.errs, tc.want)
			}
		})
	}
}

// TestJSONEncoding pins the documented encodings of times, durations, NaN
// and nil slices.
func TestJSONEncoding(t *testing.T) {
	c := abstainCard()
	c.Heatmaps = []Heatmap{{CauseRank: 1, Rows: []HeatRow{{"a", 0}}, Start: t0.Add(1500 * time.Millisecond),
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
		{"field order", out[:strings.Index(out, "\n  \"tool\"")], "{\n  \"schema_version\": \"1\","},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}
}
