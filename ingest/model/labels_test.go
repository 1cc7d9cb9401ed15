package model

import (
	"fmt"
	"strings"
	"testing"
)

// TestLabelsString: the series-key form is name="value" with values
// quoted as fmt's %q quotes them (keys built before the change must match).
func TestLabelsString(t *testing.T) {
	vals := []string{"", "plain", `quote"d`, `back\slash`, "new\nline", "tab\t", "ünïcode", "\x00\x7f", "\xff bad utf8", "😀"}
	for _, v := range vals {
		ls := Labels{{"a", v}, {"b", "x"}}
		var sb strings.Builder
		fmt.Fprintf(&sb, "{a=%q,b=%q}", v, "x")
		if got := ls.String(); got != sb.String() {
			t.Errorf("%q: got %s, want %s", v, got, sb.String())
		}
	}
	if got := (Labels{}).String(); got != "{}" {
		t.Errorf("empty: %s", got)
	}
}
