package model

// SpanKey identifies a span within the bundle.
type SpanKey struct {
	Trace TraceID
	Span  SpanID
}

// SpanTable maps (trace, span) IDs to indexes of a span slice: open
// addressing with linear probing over a power-of-two table at most half full.
// A slot holds a span's index and a 32-bit fingerprint of its IDs (the keys
// themselves are read back from the spans): 16 bytes per span, and a probe
// that meets another key's slot skips it without reading that span (a cache
// miss into the span slice, most of a probe's cost) unless the fingerprints
// agree, one time in four billion.
//
// The table is cut into shards (a power of two, chosen by the hash's top
// bits; probing wraps inside a shard), so that one goroutine per shard can
// fill it (ingest's indexSpans, through AddFrom): every copy of a key lands in the same shard.
type SpanTable struct {
	slots []uint64 // fingerprint<<32 | index+1; 0 = empty
	mask  uint64   // of a slot within its shard
	bits  uint     // log2 of a shard's size
	shift uint     // 64 - log2(shards); 64 for one shard (h>>64 is 0)
}

// NewSpanTable returns a table for n spans in shards shards (a power of
// two).
func NewSpanTable(n, shards int) *SpanTable {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	per := max(size/shards, 16)
	bits, shift := uint(0), uint(64)
	for 1<<bits < per {
		bits++
	}
	for k := shards; k > 1; k >>= 1 {
		shift--
	}
	return &SpanTable{slots: make([]uint64, per*shards), mask: uint64(per - 1), bits: bits, shift: shift}
}

// Home returns the shard of (tr, id) and the slot its probe starts at.
func (t *SpanTable) Home(tr TraceID, id SpanID) (shard, slot uint64) {
	shard, slot, _ = t.home(tr, id)
	return shard, slot
}

// home is Home with the fingerprint of (tr, id) in a slot's high half.
func (t *SpanTable) home(tr TraceID, id SpanID) (shard, slot, fp uint64) {
	h := (tr.Low ^ tr.High*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
	h ^= uint64(id) * 0xc4ceb9fe1a85ec53
	h ^= h >> 29
	shard = h >> t.shift
	fp = (h * 0x9e3779b97f4a7c15) &^ (1<<32 - 1) // other bits than the slot's
	return shard, shard<<t.bits | h&t.mask, fp
}

// next is the slot after i in i's shard.
func (t *SpanTable) next(i uint64) uint64 { return i&^t.mask | (i+1)&t.mask }

// Lookup returns the index of the span with these IDs, or -1.
func (t *SpanTable) Lookup(spans []Span, tr TraceID, id SpanID) int32 {
	_, i, fp := t.home(tr, id)
	for ; ; i = t.next(i) {
		v := t.slots[i]
		if v == 0 {
			return -1
		}
		if v&^(1<<32-1) != fp {
			continue
		}
		if s := &spans[uint32(v)-1]; s.SpanID == id && s.TraceID == tr {
			return int32(uint32(v) - 1)
		}
	}
}

// Insert adds spans[idx], which must not be present yet.
func (t *SpanTable) Insert(spans []Span, idx int32) {
	s := &spans[idx]
	_, i, fp := t.home(s.TraceID, s.SpanID)
	for t.slots[i] != 0 {
		i = t.next(i)
	}
	t.slots[i] = fp | uint64(idx+1)
}

// AddFrom inserts spans[idx] probing from slot (its Home) unless a span
// with the same IDs is there already; it reports whether it inserted.
func (t *SpanTable) AddFrom(spans []Span, idx int32, slot uint64) bool {
	s := &spans[idx]
	_, _, fp := t.home(s.TraceID, s.SpanID)
	for j := slot; ; j = t.next(j) {
		v := t.slots[j]
		if v == 0 {
			t.slots[j] = fp | uint64(idx+1)
			return true
		}
		if v&^(1<<32-1) != fp {
			continue
		}
		if o := &spans[uint32(v)-1]; o.SpanID == s.SpanID && o.TraceID == s.TraceID {
			return false
		}
	}
}
