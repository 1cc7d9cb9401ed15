// Package parallel runs independent iterations on every CPU: the one
// work-sharing loop the stages use (tcg's per-node detection, causal's
// per-node mechanism fits), so that it exists once, and the goroutines
// the readers and the live fetch start (Group). A panic on any of its
// goroutines reaches the goroutine that waits for it.
//
// It imports no package of this module and holds no state.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// For calls f(k) for every k in [0, n) on up to GOMAXPROCS goroutines,
// chunk consecutive k at a time; f must touch only what belongs to k. With
// one CPU or one chunk it runs in the caller's goroutine, in order. A panic
// in f reaches the caller: on a worker it stops the loop and For panics
// with a *Panic in the caller's goroutine, where a recover can take it.
func For(n, chunk int, f func(k int)) {
	ForWith(n, chunk, func() struct{} { return struct{}{} }, func(k int, _ struct{}) { f(k) })
}

// ForWith is For with one scratch value per goroutine, made by scratch
// (buffers an iteration reuses; f must not keep them past its call).
func ForWith[W any](n, chunk int, scratch func() W, f func(k int, w W)) {
	if n <= 0 {
		return
	}
	chunk = max(chunk, 1)
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	if workers <= 1 {
		w := scratch()
		for k := 0; k < n; k++ {
			f(k, w)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed sync.Once
	var panicked *Panic
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic in f is carried to the caller's goroutine (below),
			// where its recover can see it: in a worker it would end the
			// process whatever the caller guards.
			defer func() {
				if v := recover(); v != nil {
					failed.Do(func() { panicked = asPanic(v) })
					next.Store(int64(n)) // the other workers stop at their next chunk
				}
			}()
			w := scratch()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				for k := lo; k < min(lo+chunk, n); k++ {
					f(k, w)
				}
			}
		}()
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// Panic is what For and ForWith panic with, in the caller's goroutine,
// when f panicked in a worker: the value f panicked with and the worker's
// stack.
type Panic struct {
	Value any
	Stack []byte
}

// Error returns the value's text (a Panic recovered and printed reads as
// the original panic).
func (p *Panic) Error() string { return fmt.Sprint(p.Value) }

// Unwrap returns the value when it is an error.
func (p *Panic) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// Both runs first in the caller's goroutine and second in another, and
// returns when both are done. A panic in second reaches the caller as a
// *Panic, after first has returned (a panic in first is the caller's own,
// raised once second is done).
func Both(first, second func()) {
	var panicked *Panic
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				panicked = asPanic(v)
			}
		}()
		second()
	}()
	func() {
		defer func() { <-done }()
		first()
	}()
	if panicked != nil {
		panic(panicked)
	}
}

// Group runs functions on goroutines of their own and waits for them all,
// like a sync.WaitGroup whose goroutines cannot end the process: a panic in
// one is carried to the goroutine that calls Wait (as a *Panic, the first
// one when several panic), where a recover can take it. The zero Group is
// ready to use; a Group must not be copied after first use. Every goroutine
// a stage or a fetch starts goes through For, ForWith, Both or a Group, so
// that a caller's recover (an MCP call's, an eval case's) covers all the
// work it started (driver's TestGoroutinesCarryPanics checks it).
type Group struct {
	wg       sync.WaitGroup
	failed   sync.Once
	panicked *Panic
}

// Go runs f on a new goroutine.
func (g *Group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer func() {
			if v := recover(); v != nil {
				g.failed.Do(func() { g.panicked = asPanic(v) })
			}
		}()
		f()
	}()
}

// Wait returns when every f started by Go has returned; if one panicked,
// Wait then panics with its *Panic in the caller's goroutine.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.panicked != nil {
		panic(g.panicked)
	}
}

// asPanic is v as a *Panic with the current stack, or v itself when it is
// one already (a nested loop's panic keeps the stack where it happened).
func asPanic(v any) *Panic {
	if p, ok := v.(*Panic); ok {
		return p
	}
	return &Panic{Value: v, Stack: debug.Stack()}
}
