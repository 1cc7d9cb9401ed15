package fastjson

import (
	"encoding/binary"
	"io"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHasSpecial8(t *testing.T) {
	for b := 0; b < 256; b++ {
		for pos := 0; pos < 8; pos++ {
			var buf [8]byte
			for i := range buf {
				buf[i] = 'a'
			}
			buf[pos] = byte(b)
			if got := hasSpecial8(binary.LittleEndian.Uint64(buf[:])); got != strSpecial[b] {
				t.Fatalf("byte %#x at %d: hasSpecial8 = %v, strSpecial %v", b, pos, got, strSpecial[b])
			}
		}
	}
}

// TestSpecial8First checks that special8's lowest set bit is at the first
// special byte of a word whatever bytes follow it (borrows may flag later
// ones), for every special byte at every position.
func TestSpecial8First(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for b := 0; b < 256; b++ {
		if !strSpecial[b] {
			continue
		}
		for pos := 0; pos < 8; pos++ {
			for range 200 {
				var buf [8]byte
				for i := range buf {
					if i < pos {
						for buf[i] = byte(rng.IntN(256)); strSpecial[buf[i]]; buf[i] = byte(rng.IntN(256)) {
						}
					} else {
						buf[i] = byte(rng.IntN(256))
					}
				}
				buf[pos] = byte(b)
				m := special8(binary.LittleEndian.Uint64(buf[:]))
				if got := bits.TrailingZeros64(m) >> 3; got != pos {
					t.Fatalf("% x: first special byte at %d, special8 says %d", buf, pos, got)
				}
			}
		}
	}
}

// TestRawObjectStrings checks RawObject's brace matching, which skips the
// plain bytes of strings eight at a time, against a byte-by-byte reference
// on objects whose strings hold escaped quotes, backslashes, braces and
// non-ASCII bytes at every offset from a word boundary, read through
// readers that return 1 to 13 bytes at a time (so that every refill
// boundary is crossed).
func TestRawObjectStrings(t *testing.T) {
	pieces := []string{`\"`, `\\`, `{`, `}`, `[`, `]`, `é`, `\u00e9`, `abcdefgh`, `x`}
	for n := 0; n < 200; n++ {
		var val strings.Builder
		for k := 0; k < 1+n%7; k++ {
			val.WriteString(strings.Repeat("p", (n+k)%11))
			val.WriteString(pieces[(n*3+k)%len(pieces)])
		}
		obj := `{"p1":{"serviceName":"` + val.String() + `","tags":[{"key":"k","value":"` + strings.Repeat("v", n%17) + `"}]}}`
		in := obj + `,"rest":1}`
		for chunk := 1; chunk <= 13; chunk += 4 {
			s := &Scanner{R: &chunkReader{b: []byte(in), n: chunk}, Keep: -1}
			raw, ok := s.RawObject()
			if !ok || string(raw) != obj {
				t.Fatalf("case %d chunk %d: rawObject = %q, %v; want %q", n, chunk, raw, ok, obj)
			}
			if c := s.SkipWS(); c != ',' {
				t.Fatalf("case %d chunk %d: next byte %q, want ','", n, chunk, c)
			}
		}
	}
}

// chunkReader returns at most n bytes of b per Read.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}

// TestPlainRun checks plainRun against a byte-by-byte loop: every byte
// value at every position of buffers of 0 to 24 bytes, from every start.
func TestPlainRun(t *testing.T) {
	slow := func(buf []byte, i int) int {
		for i < len(buf) && !strSpecial[buf[i]] {
			i++
		}
		return i
	}
	for n := 0; n <= 24; n++ {
		for pos := 0; pos < n; pos++ {
			for b := 0; b < 256; b++ {
				buf := []byte(strings.Repeat("a", n))
				buf[pos] = byte(b)
				for from := 0; from <= n; from++ {
					if got, want := plainRun(buf, from), slow(buf, from); got != want {
						t.Fatalf("%q from %d: plainRun %d, want %d", buf, from, got, want)
					}
				}
			}
		}
	}
}

// TestIntChunked: Int reads the same integers (and refuses the same
// non-integers) whatever the reads' sizes, across refills.
func TestIntChunked(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0,", 0, true}, {"-0,", 0, true}, {"7", 7, true}, {"1796004120017851,", 1796004120017851, true},
		{"-123456789012345678]", -123456789012345678, true}, {"1234567890123456789,", 0, false},
		{"01,", 0, false}, {"1.5,", 0, false}, {"1e3,", 0, false}, {"1E3", 0, false}, {"-,", 0, false}, {",", 0, false},
		{"  \n 42 ,", 42, true},
	}
	for _, c := range cases {
		for chunk := 1; chunk <= 9; chunk++ {
			s := &Scanner{R: &chunkReader{b: []byte(c.in), n: chunk}, Keep: -1}
			s.fill()
			v, ok := s.Int()
			if ok != c.ok || ok && v != c.want {
				t.Fatalf("%q chunk %d: Int = %d, %v; want %d, %v", c.in, chunk, v, ok, c.want, c.ok)
			}
		}
	}
}

// TestSkipPrefix: a prefix is consumed only when it is buffered whole at
// the next non-blank byte.
func TestSkipPrefix(t *testing.T) {
	s := &Scanner{Buf: []byte(` {"a":1},{"a":2}`), EOF: true, Keep: -1}
	if s.SkipPrefix(`{"a":2}`) {
		t.Fatal("matched another object")
	}
	if !s.SkipPrefix(`{"a":1}`) || s.SkipWS() != ',' {
		t.Fatalf("did not consume the matching object (at %d)", s.Pos())
	}
	s.pos++
	if s.SkipPrefix(`{"a":2}, and more`) {
		t.Fatal("matched past the end of the input")
	}
	if !s.SkipPrefix(`{"a":2}`) || !s.AtEnd() {
		t.Fatal("did not consume the last object")
	}
}
