package pipeline

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID)
// in nanoseconds: what a benchmark that locks its OS thread spent on the CPU,
// whatever else the machine runs.
func threadCPU() (int64, bool) {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), e == 0
}

// ThreadCPU is threadCPU for the external test package's benchmarks.
var ThreadCPU = threadCPU
