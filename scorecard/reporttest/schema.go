package reporttest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// LoadSchema reads and parses a JSON Schema file.
func LoadSchema(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read schema: %v", err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	return s
}

// Validate checks doc against the JSON Schema subset the reports' schemas
// use — $ref to #/$defs, type (string or list), required, properties,
// additionalProperties false, items, enum, minItems, maxItems, minimum —
// and returns one line per violation ("$.path: what").
func Validate(schema map[string]any, doc any) []string {
	v := &schemaValidator{root: schema}
	v.validate("$", schema, doc)
	return v.errs
}

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
		req, _ := s["required"].([]any)
		for _, r := range req {
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
