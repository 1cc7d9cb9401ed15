package analysis

import (
	"strings"
	"testing"
	"time"
)

func TestTimeSpecRange(t *testing.T) {
	tests := []struct {
		in, err string // err: "" = accepted
	}{
		{"2026-11-30T03:12:00Z", ""},
		{"1796008320000", ""},
		{"now-15m", ""},
		{"9999-12-31T00:00:00Z", "outside the times incident data can have"},
		{"1000-01-01T00:00:00Z", "outside the times incident data can have"},
		{"2250-01-01T00:00:00Z", "outside the times incident data can have"},
		{"1e30", "outside the times incident data can have"},
		{"now-1000000h", "over a century"},
		{"now+1000000h", "over a century"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseTime(tc.in)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n")):
				t.Errorf("err = %v, want one line with %q", err, tc.err)
			}
		})
	}
}

func TestEpochUnits(t *testing.T) {
	want := time.Date(2026, 11, 30, 3, 12, 0, 0, time.UTC)
	for _, tc := range []struct{ in, unit string }{
		{"1796008320", "s"}, {"1796008320.5", "s"}, {"1796008320000", "ms"}, {"1796008320000000", "µs"}, {"1796008320000000000", "ns"},
	} {
		ts, err := ParseTime(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := ts.Abs.Std().Truncate(time.Second); !got.Equal(want) || ts.Unit != tc.unit {
			t.Errorf("%s: %s (%s), want %s (%s)", tc.in, got, ts.Unit, want, tc.unit)
		}
	}
	if _, unit := epochUnit(99_999_999_999); unit != "s" {
		t.Errorf("1e11-1 read as %s", unit)
	}
}
