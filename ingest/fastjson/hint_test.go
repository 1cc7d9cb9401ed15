package fastjson

import (
	"slices"
	"strings"
	"testing"
)

// scanKeys reads one object from in with ObjectHinted(hints) and returns
// the keys field saw, in order, the value bytes and whether it succeeded.
func scanKeys(in string, hints keyHints) (keys, values []string, ok bool) {
	s := &Scanner{R: strings.NewReader(in), Keep: -1}
	ok = s.ObjectHinted(hints, func(key string) bool {
		keys = append(keys, key)
		v, ok := s.Value(3)
		values = append(values, string(v))
		return ok
	})
	return keys, values, ok
}

// TestObjectHintedSameAsObject checks that key hints change nothing but
// speed: on objects in and out of the hinted order, with unknown keys,
// blanks, escapes, prefixes of hinted keys and broken input, ObjectHinted
// sees the keys and values object sees, and fails where it fails.
func TestObjectHintedSameAsObject(t *testing.T) {
	hints := HintKeys("a", "b", "c")
	cases := []string{
		`{"a":1,"b":2,"c":3}`,
		`{"b":2,"a":1}`,
		`{"a":1,"x":0,"c":3}`,
		`{"c":3,"a":1,"b":2}`,
		`{"a":1,"b":2,"c":3,"a":4}`,
		`{ "a" : 1 , "b":2 ,"c" :"x"}`,
		"{\n  \"a\": 1,\n  \"b\": [1, 2],\n  \"c\": {\"a\": 1}\n}",
		`{"\u0061":1,"b":2}`,
		`{"ab":1,"a":2}`,
		`{"a":"b\":","b":"c"}`,
		`{}`,
		`{"a":1,}`,
		`{"a":1`,
		`{"a"`,
		`{"a":`,
		`{"a" 1}`,
		`[1]`,
	}
	for _, in := range cases {
		wantK, wantV, wantOK := scanKeys(in, nil)
		gotK, gotV, gotOK := scanKeys(in, hints)
		if gotOK != wantOK || !slices.Equal(gotK, wantK) || !slices.Equal(gotV, wantV) {
			t.Errorf("%s: hinted keys %q values %q ok %v; object %q %q %v", in, gotK, gotV, gotOK, wantK, wantV, wantOK)
		}
	}
	// A hinted key across the end of a read buffer is read the slow way.
	for d := 0; d <= 8; d++ {
		pad := strings.Repeat("p", fastBufSize-d-len(`{"a":"`)-len(`",`))
		in := `{"a":"` + pad + `","b":2,"c":3}`
		k, v, ok := scanKeys(in, hints)
		if !ok || !slices.Equal(k, []string{"a", "b", "c"}) || v[1] != "2" || v[2] != "3" {
			t.Errorf("key %d bytes before the buffer's end: keys %q values %q..., ok %v", d, k, v[1:], ok)
		}
	}
}

// TestValueRefusesNumbersBeyondFloat64: a number that may overflow float64
// is refused, conservatively from 1e308 (the general readers' json.Decoder.Token rejects it), one
// within range is not, however many fraction digits or how small.
func TestValueRefusesNumbersBeyondFloat64(t *testing.T) {
	for in, want := range map[string]bool{
		"1e307": true, "-9.9e307": true, "0.5e308": true, "1e-400": true, "123.456789012345678901234567890": true,
		"1e700": false, "-1e309": false, "12e307": false, "1" + strings.Repeat("0", 400): false, "0.1e999999999999": false,
	} {
		s := &Scanner{Buf: []byte(in), EOF: true, Keep: -1, MaxDepth: 8}
		if _, ok := s.Value(0); ok != want {
			t.Errorf("Value(%.20s) ok = %v, want %v", in, ok, want)
		}
	}
}

// TestKeyHintMatches checks the two-word comparison of a short hint
// against the byte comparison: every hint length up to 16 and beyond,
// buffers shorter and longer than 16 bytes, and one byte changed at each
// position (inside the spelling and after it).
func TestKeyHintMatches(t *testing.T) {
	for n := 0; n <= 20; n++ {
		key := strings.Repeat("k", n)
		h := HintKeys(key)[0]
		for extra := 0; extra <= 20; extra++ {
			buf := []byte(h.q + strings.Repeat("x", extra))
			for pos := -1; pos < len(buf); pos++ {
				b := slices.Clone(buf)
				if pos >= 0 {
					b[pos] ^= 0x20
				}
				for cut := 0; cut <= len(b); cut += max(1, len(b)/7) {
					want := strings.HasPrefix(string(b[:cut]), h.q)
					if got := h.matches(b[:cut]); got != want {
						t.Fatalf("hint %q, buffer %q: matches %v, want %v", h.q, b[:cut], got, want)
					}
				}
			}
		}
	}
}
