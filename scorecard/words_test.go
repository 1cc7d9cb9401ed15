package scorecard

import "testing"

// TestReachedWords: a recurring episode is said in its bad direction — a
// latency "reached" a level, a success ratio or a calls-per-request shift
// "fell to" one — never "reached 0.95 or more" for a ratio that fell.
func TestReachedWords(t *testing.T) {
	for _, tc := range []struct {
		level float64
		unit  string
		dir   int
		want  string
	}{
		{1.2, "s", 1, "reached 1.20 s or more"},
		{0.95, "ratio", -1, "fell to " + formatValue(0.95, "ratio") + " or less"},
		{-3.17, "z", -1, "fell to " + formatValue(-3.17, "z") + " or less"},
		{4, "", 0, "reached " + formatValue(4, "") + " or more"},
	} {
		if got := reachedWords(tc.level, tc.unit, tc.dir); got != tc.want {
			t.Errorf("reachedWords(%v, %q, %d) = %q, want %q", tc.level, tc.unit, tc.dir, got, tc.want)
		}
	}
	if got := signalWords(0, "calls"); got != "calls it makes" {
		t.Errorf("the calls facet reads %q", got)
	}
}
