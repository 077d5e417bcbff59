package scanners

import (
	"os"

	"golang.org/x/sys/cpu"
)

// kernelChoice is the environment variable MCP_SANITIZE_KERNELS, read once
// at start-up: "go" runs none of the assembly kernels (the Go versions
// other architectures run), "avx2" none that needs AVX-512; unset or
// anything else, every kernel the CPU has. It is there to measure one
// path against another on one machine and as a way out on a CPU where a
// kernel is slow (docs/kernels.md); package pipeline reads it as well.
var kernelChoice = os.Getenv("MCP_SANITIZE_KERNELS")

// haveAVX2 reports whether the AVX2 kernels run.
var haveAVX2 = cpu.X86.HasAVX2 && kernelChoice != "go"
