package logtemplate

import (
	"fmt"
	"strings"
	"testing"
)

// distinctLine is line i of a stream whose lines all share a leaf (same
// token count, same first token) and never match each other: every
// position holds a word of its own.
func distinctLine(i int) string {
	return fmt.Sprintf("op a%d b%d c%d d%d", i, i, i, i)
}

func TestMinerLeafBound(t *testing.T) {
	m := New(Params{MaxLeafTemplates: 5})
	for i := 0; i < 50; i++ {
		m.Add(distinctLine(i))
	}
	// 5 templates in the leaf, then Other.
	if m.Len() != 6 {
		t.Fatalf("%d templates, want 5 and Other", m.Len())
	}
	other := m.Template(5)
	if other.Pattern != Other || other.Count != 45 {
		t.Errorf("Other = %+v, want 45 lines", other)
	}
	if s := m.Stats(); s.OtherLeaf != 45 || s.OtherTemplates != 0 || s.OtherBudget != 0 {
		t.Errorf("stats %+v, want 45 cut by the leaf bound", s)
	}
	// A line of another leaf still starts a template of its own.
	if id := m.Add("other leaf here"); m.Template(id).Pattern != "other leaf here" {
		t.Errorf("a new leaf's line joined %q", m.Template(id).Pattern)
	}
	// A line that matches a template of the full leaf still joins it.
	if id := m.Add("op a1 b1 c1 zz"); id != 1 {
		t.Errorf("a matching line joined %d, want 1", id)
	}
}

func TestMinerTemplateBoundExcludesOther(t *testing.T) {
	m := New(Params{MaxTemplates: 3, MaxLeafTemplates: 2})
	for i := 0; i < 4; i++ {
		m.Add(distinctLine(i)) // two templates, then Other by the leaf bound
	}
	m.Add("x y")
	m.Add("p q r s t u")
	if got := m.Len(); got != 4 {
		t.Fatalf("%d templates, want 3 and Other", got)
	}
	if s := m.Stats(); s.OtherLeaf != 2 || s.OtherTemplates != 1 {
		t.Errorf("stats %+v, want 2 by the leaf and 1 by MaxTemplates", s)
	}
}

func TestMinerSharedBudget(t *testing.T) {
	b := NewBudget(10)
	var miners []*Miner
	for s := 0; s < 4; s++ {
		m := New(Params{Budget: b})
		miners = append(miners, m)
		for i := 0; i < 5; i++ {
			m.Add(fmt.Sprintf("w%d x%d y%d", i, i, i)) // 5 leaves of one template each
		}
	}
	total, cut := 0, 0
	for _, m := range miners {
		for _, tp := range m.Templates() {
			if tp.Pattern != Other {
				total++
			}
		}
		cut += m.Stats().OtherBudget
	}
	if total != 10 || cut != 10 {
		t.Errorf("%d templates and %d lines cut by a budget of 10 over 20 distinct lines", total, cut)
	}
	if s := miners[0].Stats(); s.OtherBudget != 0 {
		t.Errorf("the first miner was cut: %+v", s)
	}
}

func TestMinerLongTokens(t *testing.T) {
	m := New(Params{MaxTokenBytes: 8})
	long := strings.Repeat("é", 50) // 2-byte characters: the cut keeps whole ones
	id := m.Add("key " + long + " end")
	want := "key " + strings.Repeat("é", 4) + Wildcard + " end"
	if got := m.Template(id).Pattern; got != want {
		t.Errorf("pattern %q, want %q", got, want)
	}
	if m.Stats().LongTokens != 1 {
		t.Errorf("stats %+v, want one long token", m.Stats())
	}
	// Idempotent: mining the pattern again gives the pattern.
	m2 := New(Params{MaxTokenBytes: 8})
	if got := m2.Template(m2.AddMasked(want)).Pattern; got != want {
		t.Errorf("re-mined %q, want %q", got, want)
	}
	// Two lines that differ only past the cut share a template.
	a := m.Add("key " + long + "x end")
	if a != id {
		t.Errorf("a line differing past the cut made template %d, want %d", a, id)
	}
}

func TestMinerCacheKeysAreHashes(t *testing.T) {
	m := New(Params{})
	line := strings.Repeat("word ", 20000) // 100 KB
	id := m.Add(line)
	if m.Add(line) != id {
		t.Fatal("the same line joined another template")
	}
	if len(m.cache) != 1 {
		t.Errorf("%d cache entries, want 1", len(m.cache))
	}
	if tp := m.Template(id); len(tp.Pattern) > 64*(256+len(Wildcard)+1) {
		t.Errorf("template of %d bytes kept for a long line", len(tp.Pattern))
	}
}

func TestEmptyMinerIsSmall(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() { New(Params{}) })
	if allocs > 3 {
		t.Errorf("New allocates %v times; one miner per service must stay cheap", allocs)
	}
}
