package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForVisitsEachOnce checks that every k is visited exactly once, for
// chunk sizes that divide n and that do not, on one CPU and on several.
func TestForVisitsEachOnce(t *testing.T) {
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, chunk int }{{0, 1}, {1, 1}, {10, 3}, {1000, 7}, {64, 64}, {5, 0}} {
			seen := make([]atomic.Int32, c.n)
			For(c.n, c.chunk, func(k int) { seen[k].Add(1) })
			for k := range seen {
				if v := seen[k].Load(); v != 1 {
					t.Errorf("procs %d n %d chunk %d: k=%d visited %d times", procs, c.n, c.chunk, k, v)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestForWithScratchPerGoroutine checks that no scratch value is used by
// two goroutines at once.
func TestForWithScratchPerGoroutine(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	type scratch struct{ busy atomic.Bool }
	var made atomic.Int32
	ForWith(2000, 5, func() *scratch { made.Add(1); return &scratch{} }, func(k int, w *scratch) {
		if !w.busy.CompareAndSwap(false, true) {
			t.Errorf("k=%d: scratch in use by another goroutine", k)
		}
		w.busy.Store(false)
	})
	if m := made.Load(); m < 1 || m > 4 {
		t.Errorf("%d scratch values made, want 1..4 (one per goroutine)", m)
	}
}

// TestForPanicReachesCaller: a panic in f on a worker goroutine is
// recovered by the caller (as a *Panic holding the value), instead of
// ending the process.
func TestForPanicReachesCaller(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	got := func() (v any) {
		defer func() { v = recover() }()
		For(1000, 1, func(k int) {
			if k == 7 {
				panic("boom at 7")
			}
		})
		return nil
	}()
	p, ok := got.(*Panic)
	if !ok {
		t.Fatalf("recovered %T %v, want a *parallel.Panic", got, got)
	}
	if p.Value != "boom at 7" || p.Error() != "boom at 7" || len(p.Stack) == 0 {
		t.Errorf("panic value %v, error %q, stack %d bytes: want the original value and the worker's stack", p.Value, p.Error(), len(p.Stack))
	}
}

func TestBothReachesCaller(t *testing.T) {
	ran := false
	defer func() {
		p, ok := recover().(*Panic)
		if !ok || p.Value != "second" {
			t.Fatalf("recovered %v, want a *Panic carrying \"second\"", p)
		}
		if !ran {
			t.Error("first did not run to its end")
		}
	}()
	Both(func() { ran = true }, func() { panic("second") })
}

func TestBothRunsBoth(t *testing.T) {
	var a, b bool
	Both(func() { a = true }, func() { b = true })
	if !a || !b {
		t.Errorf("first ran %v, second ran %v", a, b)
	}
}

// TestGroupPanicReachesWaiter: a panic on a Group's goroutine reaches the
// goroutine that calls Wait, after every goroutine is done, as a *Panic
// holding the value; a panic that is already a *Panic (a nested loop's)
// is passed on as it is.
func TestGroupPanicReachesWaiter(t *testing.T) {
	var done atomic.Int32
	got := func() (v any) {
		defer func() { v = recover() }()
		var g Group
		for i := range 8 {
			g.Go(func() {
				defer done.Add(1)
				if i == 3 {
					panic("boom in 3")
				}
				if i == 5 {
					For(100, 1, func(k int) {
						if k == 50 {
							panic("nested")
						}
					})
				}
			})
		}
		g.Wait()
		return nil
	}()
	p, ok := got.(*Panic)
	if !ok || (p.Value != "boom in 3" && p.Value != "nested") || len(p.Stack) == 0 {
		t.Fatalf("recovered %#v, want a *Panic from a goroutine", got)
	}
	if n := done.Load(); n != 8 {
		t.Errorf("%d goroutines done when Wait panicked, want 8", n)
	}
	var g Group
	g.Wait() // no goroutine: returns at once
}
