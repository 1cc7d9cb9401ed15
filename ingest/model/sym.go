package model

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Sym is an interned string: a 4-byte handle into the process-wide symbol
// table, which holds each distinct string once. Spans name their service,
// operation, placement and source file with Syms, so a million spans hold
// no pointers: the garbage collector neither scans them nor puts write
// barriers on their stores, and a span is half the size.
//
// Interning is canonical: two Syms are equal exactly when their strings
// are, so a Sym is a map key and an equality test as good as its string.
// The numeric value depends on the order strings were first seen (files
// are read concurrently), so Syms are deliberately not ordered: sort by
// String. The zero Sym is "".
type Sym struct{ id uint32 }

// Intern returns the Sym of s. It takes a lock: decoders go through an
// Interner, which asks once per distinct string. Safe for concurrent use.
func Intern(s string) Sym {
	if s == "" {
		return Sym{}
	}
	return symbols.intern(s)
}

// LookupSym returns the Sym of s if s was ever interned (ok false: no span
// names it). It never adds s. Safe for concurrent use.
func LookupSym(s string) (sym Sym, ok bool) {
	if s == "" {
		return Sym{}, true
	}
	symbols.mu.Lock()
	defer symbols.mu.Unlock()
	id, ok := symbols.ids[s]
	return Sym{id}, ok
}

// String returns the interned string (it never allocates).
func (s Sym) String() string {
	if s.id == 0 {
		return ""
	}
	d := *symbols.dir.Load()
	return d[s.id>>symChunkBits][s.id&(symChunk-1)]
}

// IsEmpty reports whether s is the empty string.
func (s Sym) IsEmpty() bool { return s.id == 0 }

// ID is s's number in the symbol table (0 for the empty string): distinct
// strings have distinct IDs within one process, numbered from 1 in the
// order they were first interned. It lets a hot loop key a table by
// symbols without hashing a struct; it is not stable across runs.
func (s Sym) ID() uint32 { return s.id }

// symChunkBits sizes the chunks of the symbol table (4,096 strings each):
// a chunk never moves, so String reads it without a lock.
const (
	symChunkBits = 12
	symChunk     = 1 << symChunkBits
)

// symTable is the process-wide table behind Sym. Writers hold mu; readers
// load dir, a directory of fixed chunks that is copied (never changed in
// place) when it grows. A Sym is only ever read after Intern returned it,
// so the chunk slot it names was written before.
//
// The table is never emptied: it holds the distinct names of everything a
// process has read (services, operations, pods, nodes, GPUs, peers, file
// names). The decoders cut each name to Limits.MaxStringBytes, and a
// process reads a bounded number of spans per analysis.
type symTable struct {
	mu  sync.Mutex
	ids map[string]uint32
	n   uint32 // strings held, counting "" as id 0
	dir atomic.Pointer[[]*[symChunk]string]
}

var symbols = newSymTable()

func newSymTable() *symTable {
	t := &symTable{ids: make(map[string]uint32, 1024), n: 1}
	d := []*[symChunk]string{new([symChunk]string)}
	t.dir.Store(&d)
	return t
}

// intern returns the id of s, adding a copy of it when new.
func (t *symTable) intern(s string) Sym {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[s]; ok {
		return Sym{id}
	}
	s = strings.Clone(s)
	id := t.n
	d := *t.dir.Load()
	c := int(id >> symChunkBits)
	if c == len(d) {
		d = append(d[:c:c], new([symChunk]string)) // a copy: readers keep the old one
		t.dir.Store(&d)
	}
	d[c][id&(symChunk-1)] = s
	t.ids[s] = id
	t.n++
	return Sym{id}
}
