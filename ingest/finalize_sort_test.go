package ingest

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestSpanSize keeps Span's fields packed (Kind beside Error): a million
// spans are held twice at Read's peak, so every word is 16 MB.
func TestSpanSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit layout")
	}
	if got := unsafe.Sizeof(Span{}); got != 80 {
		t.Errorf("Span is %d bytes, want 80 (a field added or padding between fields?)", got)
	}
}

// TestSpanHasNoPointers keeps Span pointer-free, so that the collector
// never scans span arrays and their stores need no write barriers: a
// string, slice, map or pointer field must be a Sym or an index instead.
func TestSpanHasNoPointers(t *testing.T) {
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		switch ty.Kind() {
		case reflect.String, reflect.Slice, reflect.Map, reflect.Pointer, reflect.UnsafePointer,
			reflect.Interface, reflect.Func, reflect.Chan:
			t.Errorf("Span.%s is a %s: it holds a pointer", path, ty.Kind())
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				walk(strings.TrimPrefix(path+"."+f.Name, "."), f.Type)
			}
		case reflect.Array:
			walk(path+"[]", ty.Elem())
		}
	}
	walk("", reflect.TypeFor[Span]())
}

// TestSortSpansStable checks the key sort against slices.SortStableFunc on
// spans with many ties (equal starts, repeated IDs), telling equal spans
// apart by their Source.
func TestSortSpansStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 100, 5000} {
		spans := make([]Span, n)
		for i := range spans {
			spans[i] = Span{
				Start:   Time(rng.IntN(20)),
				TraceID: TraceID{High: uint64(rng.IntN(2)), Low: uint64(rng.IntN(3))},
				SpanID:  SpanID(rng.IntN(4)),
				Source:  Intern(string(rune('a' + i%26))),
				Service: Intern(string(rune('A' + i%7))),
			}
			spans[i].Operation = Intern(spans[i].Source.String() + spans[i].Service.String())
		}
		want := slices.Clone(spans)
		slices.SortStableFunc(want, func(x, y Span) int { return spanCompare(&x, &y) })
		got := slices.Clone(spans)
		sortSpansStable(got)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: key sort differs from a stable sort", n)
		}
	}
}

// TestMergeSpanRuns checks that merging sorted runs equals a stable sort of
// their concatenation, ties included.
func TestMergeSpanRuns(t *testing.T) {
	for _, min := range []int{math.MaxInt, 1} { // sequential, then two halves
		testMergeSpanRuns(t, min)
	}
}

func testMergeSpanRuns(t *testing.T, min int) {
	old := ParallelMinSpans
	defer func() { ParallelMinSpans = old }()
	ParallelMinSpans = min
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{0, 1, 2, 3, 9} {
		var runs [][]Span
		var all []Span
		for r := range k {
			run := make([]Span, rng.IntN(300))
			for i := range run {
				run[i] = Span{Start: Time(rng.IntN(30)), SpanID: SpanID(rng.IntN(3)), Source: Intern(string(rune('a' + r))), Service: Intern(string(rune('A' + i%5)))}
			}
			sortSpansStable(run)
			all = append(all, run...)
			runs = append(runs, run)
		}
		slices.SortStableFunc(all, func(x, y Span) int { return spanCompare(&x, &y) })
		got := mergeSpanRuns([]Span{{Service: Intern("kept")}}, runs)
		if got[0].Service.String() != "kept" || !slices.Equal(got[1:], all) {
			t.Fatalf("parallel from %d spans, k=%d: merged runs differ from a stable sort", min, k)
		}
	}
}

// TestPermuteSpans checks the in-place permutation against a copy.
func TestPermuteSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 10, 1000} {
		spans := make([]Span, n)
		for i := range spans {
			spans[i] = Span{SpanID: SpanID(i), Service: Intern(string(rune('a' + i%26)))}
		}
		order := make([]int32, n)
		for i, p := range rng.Perm(n) {
			order[i] = int32(p)
		}
		want := make([]Span, n)
		for pos, old := range order {
			want[pos] = spans[old]
		}
		permuteSpans(spans, slices.Clone(order))
		if !slices.Equal(spans, want) {
			t.Fatalf("n=%d: in-place permutation differs from a copy", n)
		}
	}
}
