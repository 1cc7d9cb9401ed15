package ingest

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestSizeHint: a reader that knows its length says it; any other, 0.
func TestSizeHint(t *testing.T) {
	for _, c := range []struct {
		r    io.Reader
		want int64
	}{
		{bytes.NewReader(make([]byte, 7)), 7},
		{strings.NewReader("abc"), 3},
		{sizedReader{strings.NewReader(""), 1 << 30}, 1 << 30},
		{io.MultiReader(strings.NewReader("abc")), 0},
		{sizedReader{nil, -1}, 0},
	} {
		if got := SizeHint(c.r); got != c.want {
			t.Errorf("SizeHint(%T) = %d, want %d", c.r, got, c.want)
		}
	}
}
