package fastjson

import (
	"strconv"
	"strings"
	"testing"
)

// TestSizeHint checks that Scanner.Size only sizes the first buffer: an
// exact hint makes a buffer no larger than the input needs, and a hint
// that is too small (a file that grew while read) or too large still
// reads every value.
func TestSizeHint(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("]")
	doc := b.String()
	for _, hint := range []int64{0, 1, 100, int64(len(doc)), int64(len(doc)) * 10, 1 << 30} {
		s := &Scanner{R: strings.NewReader(doc), Keep: -1, MaxDepth: 10, Size: hint}
		sum, n := int64(0), 0
		ok := s.Array(func() bool {
			v, ok := s.Int()
			sum += v
			n++
			return ok
		})
		if !ok || n != 3000 || sum != 2999*3000/2 {
			t.Fatalf("hint %d: read %d values summing to %d (ok %v), want 3000 summing to %d", hint, n, sum, ok, 2999*3000/2)
		}
		if hint == int64(len(doc)) && cap(s.Buf) > max(len(doc)+1, minBufSize) {
			t.Errorf("exact hint: buffer of %d bytes for a %d-byte input", cap(s.Buf), len(doc))
		}
	}
}
