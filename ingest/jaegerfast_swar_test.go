package ingest

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
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
