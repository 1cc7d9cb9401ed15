package model

import (
	"strconv"
	"testing"
)

// TestParseHex64MatchesStrconv checks the ID fast path against strconv.
func TestParseHex64MatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "f", "F", "00000000000000ab", "ffffffffffffffff", "FfFf", "", "0x1", "+1", "1_0", "g", "12345678901234567", " 1"} {
		v, ok := parseHex64(s)
		w, err := strconv.ParseUint(s, 16, 64)
		if ok != (err == nil && len(s) <= 16) || (ok && v != w) {
			t.Errorf("parseHex64(%q) = %x, %v; strconv: %x, %v", s, v, ok, w, err)
		}
	}
}
