package fastjson

import "encoding/binary"

// Key hints: the exact spellings of the keys an object usually has, in
// order, matched against the buffered input by ObjectHinted.

// keyHints are the keys an object usually has, in order, each as its exact
// spelling `"key":` (see ObjectHinted).
type keyHints []keyHint

// keyHint is one hinted key: q, the spelling, and (when q is at most 16
// bytes, as Jaeger's keys are) its bytes as two little-endian words with
// the masks of the bytes q has, for a comparison of two loads.
type keyHint struct {
	q      string
	key    string // q without its quotes and colon
	w0, w1 uint64
	m0, m1 uint64
	short  bool // len(q) <= 16
}

// HintKeys returns the hints for keys, in that order.
func HintKeys(keys ...string) keyHints {
	h := make(keyHints, len(keys))
	for i, k := range keys {
		q := `"` + k + `":`
		h[i] = keyHint{q: q, key: k, short: len(q) <= 16}
		if h[i].short {
			var w, m [16]byte
			copy(w[:], q)
			for j := range len(q) {
				m[j] = 0xff
			}
			h[i].w0, h[i].w1 = binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
			h[i].m0, h[i].m1 = binary.LittleEndian.Uint64(m[:8]), binary.LittleEndian.Uint64(m[8:])
		}
	}
	return h
}

// matches reports whether b starts with the hint's spelling.
func (h *keyHint) matches(b []byte) bool {
	if h.short && len(b) >= 16 {
		return binary.LittleEndian.Uint64(b)&h.m0 == h.w0 && binary.LittleEndian.Uint64(b[8:])&h.m1 == h.w1
	}
	return len(b) >= len(h.q) && string(b[:len(h.q)]) == h.q
}
