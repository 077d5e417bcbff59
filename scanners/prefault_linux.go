package scanners

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// prefault asks the kernel to back the whole pages of the n bytes at p with
// memory now, in one call, rather than at one page fault per 4 KiB page as
// they are first written. It is for a large table that is about to be
// written in full (the automaton's transitions): in a virtual machine a page
// fault costs several microseconds, and the 2.7 MiB table of the default
// catalog took some 690 of them, a sixth of a one-message scan's CPU time
// (docs/benchmarks.md, "Issue 35, startup", fourth session). The memory's
// contents do not change (fresh pages read as zero, as the allocation
// already does); a kernel without the advice (EINVAL) or any other error
// leaves the faults to happen as before. Only pages wholly inside the n
// bytes are advised. It reports whether the kernel took the advice.
func prefault(p unsafe.Pointer, n int) bool {
	const page = 4096
	start := (uintptr(p) + page - 1) &^ (page - 1)
	end := (uintptr(p) + uintptr(n)) &^ (page - 1)
	if end <= start {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
	return errno == 0
}
