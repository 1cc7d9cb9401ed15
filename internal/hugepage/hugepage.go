// Package hugepage asks the kernel to back a large slice with huge pages
// before it is written. A fresh large allocation is mapped but not yet
// touched; each 4 KiB page of it then costs a page fault on first write
// (about 12 µs each in the virtual machines this runs on, 3 ms a MiB:
// at a million spans the reader's span slices alone are some 20,000
// faults). With transparent huge pages in "madvise" mode — the common
// default — a range marked MADV_HUGEPAGE faults in 2 MiB at a time
// instead. It is advice only: it changes no content, and where the kernel
// declines (THP off, no huge page free, another OS) nothing happens.
package hugepage

import "unsafe"

// MinBytes is the smallest slice (in capacity bytes) worth advising: below
// a few huge pages the system call costs more than the faults it saves.
const MinBytes = 8 << 20

// Make returns make([]E, n, capacity), its memory advised for huge pages
// when it is at least MinBytes. It helps only for an E without pointers:
// the runtime hands such an array out untouched when it is fresh from the
// OS, while one with pointers is cleared (touched) before Advise.
func Make[E any](n, capacity int) []E {
	s := make([]E, n, capacity)
	Advise(s)
	return s
}

// Grow returns s with room for at least add more elements, like
// slices.Grow, but when it must reallocate it makes the new array with
// Make (advised, and not written beyond len(s) until used) rather than
// growslice, which clears the whole new array at once.
func Grow[E any](s []E, add int) []E {
	if cap(s)-len(s) >= add {
		return s
	}
	ns := Make[E](len(s), len(s)+add)
	copy(ns, s)
	return ns
}

// Advise marks the whole huge pages inside s's capacity for huge-page
// backing (no-op below MinBytes, or where unsupported).
func Advise[E any](s []E) {
	var e E
	size := uintptr(cap(s)) * unsafe.Sizeof(e)
	if size < MinBytes {
		return
	}
	advise(uintptr(unsafe.Pointer(unsafe.SliceData(s[:1]))), size)
}
