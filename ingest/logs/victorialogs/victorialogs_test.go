package victorialogs

import (
	"maps"
	"testing"
)

func TestParseStreamLabels(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]string
	}{
		{`{pod="a",service_name="b"}`, map[string]string{"pod": "a", "service_name": "b"}},
		{` {a="x", b="y \"q\""} `, map[string]string{"a": "x", "b": `y "q"`}},
		{`{}`, map[string]string{}},
		{`{a="x",b=}`, map[string]string{"a": "x"}},
		{`pod="a"`, nil},
		{``, nil},
	} {
		if got := parseStreamLabels(tc.in); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("parseStreamLabels(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
