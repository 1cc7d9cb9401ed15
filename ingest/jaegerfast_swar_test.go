package ingest

import (
	"encoding/binary"
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
