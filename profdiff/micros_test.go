package profdiff

import "testing"

// TestMicrosToNanos: exact nanoseconds from Kineto's microsecond numbers,
// epoch-sized ones included; exponents; what is not a time.
func TestMicrosToNanos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1712195495505772.8", 1712195495505772800, true},
		{"1712195495505583", 1712195495505583000, true},
		{"22.545", 22545, true},
		{"0.0005", 1, true},
		{"0.0004", 0, true},
		{"-3.25", -3250, true},
		{"1e3", 1000000, true},
		{"2.5E-3", 3, true},
		{"", 0, false},
		{"-", 0, false},
		{"1.2.3", 0, false},
		{"99999999999999999999", 0, false},
		{"abc", 0, false},
	} {
		got, ok := microsToNanos(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%q: %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
