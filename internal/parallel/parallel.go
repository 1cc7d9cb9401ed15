// Package parallel runs independent iterations on every CPU: the one
// work-sharing loop the stages use (tcg's per-node detection, causal's
// per-node mechanism fits), so that it exists once.
//
// It imports no package of this module and holds no state.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(k) for every k in [0, n) on up to GOMAXPROCS goroutines,
// chunk consecutive k at a time; f must touch only what belongs to k. With
// one CPU or one chunk it runs in the caller's goroutine, in order.
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
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
}
