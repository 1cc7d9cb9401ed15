package jaeger

import (
	"math/bits"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Fast paths of the per-span lookups: hex IDs of Jaeger's usual lengths
// eight digits at a time, and small caches in front of the Interner and of
// ingest.LLMAttrOf for the strings spans repeat. Each returns exactly what
// the function it stands in front of returns.

// le64 returns the eight bytes of s from i as a little-endian word.
func le64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hex8 parses eight hex digits (either case), the first the most
// significant, held little-endian in w; ok is false when a byte is not one.
func hex8(w uint64) (uint32, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if w&highs != 0 {
		return 0, false
	}
	// With every byte below 0x80, adding up to 0x7f carries into no other
	// byte: a byte's high bit says whether it reached the bound.
	digit := (w + ones*(0x80-'0')) &^ (w + ones*(0x80-'9'-1))
	l := w | ones*0x20 // 'A'-'F' to 'a'-'f'; nothing else lands there
	alpha := (l + ones*(0x80-'a')) &^ (l + ones*(0x80-'f'-1))
	if (digit|alpha)&highs != highs {
		return 0, false
	}
	d := w&(ones*0x0f) + 9*(w>>6&ones) // each byte its digit's value
	p := (d<<4 | d>>8) & 0x00ff00ff00ff00ff
	p = (p | p>>8) & 0x0000ffff0000ffff
	p = (p | p>>16) & 0xffffffff
	return bits.ReverseBytes32(uint32(p)), true
}

// hex16 parses exactly 16 hex digits (len(s) must be 16).
func hex16(s string) (uint64, bool) {
	hi, ok1 := hex8(le64(s, 0))
	lo, ok2 := hex8(le64(s, 8))
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

// parseSpanID is ingest.ParseSpanID.
func parseSpanID(s string) (ingest.SpanID, error) {
	if len(s) == 16 {
		if v, ok := hex16(s); ok {
			return ingest.SpanID(v), nil
		}
	}
	return ingest.ParseSpanID(s)
}

// parseTraceID is ingest.ParseTraceID.
func parseTraceID(s string) (ingest.TraceID, error) {
	switch len(s) {
	case 32:
		hi, ok1 := hex16(s[:16])
		lo, ok2 := hex16(s[16:])
		if ok1 && ok2 {
			return ingest.TraceID{High: hi, Low: lo}, nil
		}
	case 16:
		if v, ok := hex16(s); ok {
			return ingest.TraceID{Low: v}, nil
		}
	}
	return ingest.ParseTraceID(s)
}

// strCacheN is the number of entries of a strCache (a power of two).
const strCacheN = 512

// strCache is a small cache of values by string, two entries a slot pair
// (the slot strSlot picks and its neighbour): a miss costs a slot
// computation and two comparisons more than the lookup it stands in
// front of, a hit saves the map's hashing. Its keys are copies that
// outlive the read buffers.
type strCache[V any] struct {
	keys [strCacheN]string
	vals [strCacheN]V
}

// strSlot picks s's entry from its length and up to 24 of its bytes (the
// first, middle and last eight), mixed so that each changes the slot.
func strSlot(s string) int {
	h := uint64(len(s))
	switch {
	case len(s) >= 8:
		h ^= le64(s, 0)*0x9e3779b97f4a7c15 ^ le64(s, len(s)-8)*0xc2b2ae3d27d4eb4f ^ le64(s, len(s)/2-4)*0x165667b19e3779f9
	case len(s) > 0:
		h ^= (uint64(s[0]) | uint64(s[len(s)-1])<<8 | uint64(s[len(s)/2])<<16) << 8
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return int(h>>56) & (strCacheN - 1)
}

// get returns the value cached for s, or the slot for put.
func (c *strCache[V]) get(s string) (v V, slot int, ok bool) {
	slot = strSlot(s)
	if s == "" {
		return v, slot, false
	}
	if c.keys[slot] == s {
		return c.vals[slot], slot, true
	}
	if c.keys[slot^1] == s {
		return c.vals[slot^1], slot, true
	}
	return v, slot, false
}

// put caches v for key (a copy that outlives the buffers) in slot, the
// one get returned; the entry there moves to the neighbour, so that two
// keys of one slot are both kept.
func (c *strCache[V]) put(slot int, key string, v V) {
	c.keys[slot^1], c.vals[slot^1] = c.keys[slot], c.vals[slot]
	c.keys[slot], c.vals[slot] = key, v
}

// sym is r.in.Sym(s), cached for strings the Interner does not truncate
// (its count of truncations is per call).
func (r *jaegerReader) sym(s string) ingest.Sym {
	if s == "" {
		return ingest.Sym{}
	}
	v, slot, ok := r.syms.get(s)
	if ok {
		return v
	}
	v = r.in.Sym(s)
	if max := r.lim.MaxStringBytes; max <= 0 || len(s) <= max {
		r.syms.put(slot, v.String(), v) // the table's copy of s
	}
	return v
}

// llmAttr is ingest.LLMAttrOf(key), cached for the keys that reach its
// map.
func (r *jaegerReader) llmAttr(key string) ingest.LLMAttr {
	if len(key) < 4 || key[0] != 'g' && key[0] != 'l' {
		return ingest.LLMAttrOf(key) // no lookup: a prefix test
	}
	v, slot, ok := r.llmAttrs.get(key)
	if ok {
		return v
	}
	v = ingest.LLMAttrOf(key)
	r.llmAttrs.put(slot, string([]byte(key)), v) // key may be a view
	return v
}

// spanKind is ingest.ParseSpanKind(v), cached for the values met (a few).
func (r *jaegerReader) spanKind(v string) ingest.SpanKind {
	k, slot, ok := r.kinds.get(v)
	if ok {
		return k
	}
	k = ingest.ParseSpanKind(v)
	if len(v) <= 64 {
		r.kinds.put(slot, string([]byte(v)), k) // v may be a view
	}
	return k
}
