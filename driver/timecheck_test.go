package driver

import (
	"strings"
	"testing"
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
			_, err := parseTimeSpec(tc.in)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n")):
				t.Errorf("err = %v, want one line with %q", err, tc.err)
			}
		})
	}
}
