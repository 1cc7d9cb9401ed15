package hugepage

import "syscall"

// hugePage is the x86-64 and arm64 (4 KiB base page) huge page size.
const hugePage = 2 << 20

// madvHugePage is MADV_HUGEPAGE.
const madvHugePage = 14

// advise marks [p, p+n) rounded inward to huge pages with MADV_HUGEPAGE;
// an error (THP not built in, a range the kernel refuses) is ignored.
func advise(p, n uintptr) {
	beg := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + n) &^ (hugePage - 1)
	if beg < end {
		syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, madvHugePage)
	}
}
