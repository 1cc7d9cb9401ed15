package model

import (
	"fmt"
	"sync"
	"testing"
)

// TestSymCanonical checks that interning is canonical (equal strings, equal
// Syms; different strings, different Syms), that String gives the string
// back across chunk boundaries, and that the zero Sym is "".
func TestSymCanonical(t *testing.T) {
	if (Sym{}).String() != "" || !Intern("").IsEmpty() {
		t.Fatal(`the zero Sym must be ""`)
	}
	n := 3*symChunk + 7 // several chunks
	syms := make([]Sym, n)
	for i := range syms {
		syms[i] = Intern(fmt.Sprintf("sym-test-%d", i))
	}
	seen := map[Sym]int{}
	for i, s := range syms {
		if want := fmt.Sprintf("sym-test-%d", i); s.String() != want {
			t.Fatalf("Sym %d is %q, want %q", i, s.String(), want)
		}
		if again := Intern(fmt.Sprintf("sym-test-%d", i)); again != s {
			t.Fatalf("interning %q twice gave two Syms", s.String())
		}
		if j, dup := seen[s]; dup {
			t.Fatalf("%q and %q share a Sym", syms[j].String(), s.String())
		}
		seen[s] = i
	}
	if got, ok := LookupSym("sym-test-5"); !ok || got != syms[5] {
		t.Errorf("LookupSym of an interned string = %v, %v", got, ok)
	}
	if _, ok := LookupSym("sym-test-never-interned"); ok {
		t.Error("LookupSym found a string never interned")
	}
	if _, ok := LookupSym("sym-test-never-interned"); ok {
		t.Error("LookupSym added the string it looked up")
	}
}

// TestSymConcurrent interns the same strings from several goroutines (as the
// file decoders do) and checks that they agree and read back (run with
// -race: String reads chunks without the lock).
func TestSymConcurrent(t *testing.T) {
	const workers, each = 4, 2 * symChunk
	got := make([][]Sym, workers)
	var wg sync.WaitGroup
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]Sym, each)
			in := NewInterner(0)
			for i := range out {
				// Each worker walks the strings in its own order.
				k := (i*(2*w+1) + w) % each
				out[k] = in.Sym(fmt.Sprintf("sym-conc-%d", k))
				if out[k].String() != fmt.Sprintf("sym-conc-%d", k) {
					t.Errorf("worker %d: Sym %d reads %q", w, k, out[k].String())
					return
				}
			}
			got[w] = out
		}()
	}
	wg.Wait()
	for w := 1; w < workers; w++ {
		for i := range got[0] {
			if got[w][i] != got[0][i] {
				t.Fatalf("workers 0 and %d interned %q as different Syms", w, got[0][i].String())
			}
		}
	}
}

// TestInternerSymTruncates checks that Interner.sym cuts long names like get
// and counts each cut occurrence.
func TestInternerSymTruncates(t *testing.T) {
	in := NewInterner(4)
	a, b := in.Sym("abcdefgh"), in.Sym("abcdxyz")
	if a.String() != "abcd" || a != b {
		t.Errorf("truncated Syms %q %q, want one \"abcd\"", a.String(), b.String())
	}
	if in.Truncated != 2 {
		t.Errorf("truncated = %d, want 2", in.Truncated)
	}
	if s := in.Sym("héé"); s.String() != "hé" { // 5 bytes: cut at the rune boundary
		t.Errorf("rune-boundary cut gave %q", s.String())
	}
}
