package hugepage

import (
	"slices"
	"testing"
)

// TestMakeGrow: advised or not, Make and Grow behave as make and
// slices.Grow (contents kept, new room zeroed).
func TestMakeGrow(t *testing.T) {
	for _, n := range []int{0, 10, MinBytes/8 + 3} {
		s := Make[int64](n, n+5)
		if len(s) != n || cap(s) < n+5 {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Make(%d)[%d] = %d", n, i, s[i])
			}
			s[i] = int64(i)
		}
		want := slices.Clone(s)
		g := Grow(s, MinBytes/8)
		if len(g) != n || cap(g)-len(g) < MinBytes/8 || !slices.Equal(g, want) {
			t.Fatalf("Grow(%d): len %d cap %d", n, len(g), cap(g))
		}
		for _, v := range g[len(g):cap(g)] {
			if v != 0 {
				t.Fatal("Grow: new room not zero")
			}
		}
		if h := Grow(g, 1); &h[:1][0] != &g[:1][0] {
			t.Fatal("Grow reallocated with room to spare")
		}
	}
}
