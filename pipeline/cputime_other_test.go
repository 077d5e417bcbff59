//go:build !linux

package pipeline

// threadCPU: no per-thread CPU clock here; benchmarks report wall time only.
func threadCPU() (int64, bool) { return 0, false }

// ThreadCPU is threadCPU for the external test package's benchmarks.
var ThreadCPU = threadCPU
