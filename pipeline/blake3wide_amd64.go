package pipeline

import "golang.org/x/sys/cpu"

// blake3Wide chooses wideBLAKE3 for the BLAKE3 evidence digests: on CPUs
// with AVX-512 (as golang.org/x/sys/cpu reports it, so GODEBUG=cpu.avx512f=off
// runs the AVX2 path), unless MCP_SANITIZE_KERNELS is "go" or "avx2".
// Elsewhere zeebo/blake3's AVX2 kernel is the faster one (docs/digest.md).
var blake3Wide = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && kernelChoice != "go" && kernelChoice != "avx2"

// clearUpper runs VZEROUPPER (blake3wide_amd64.s): called after each call
// into guts, whose AVX-512 kernel leaves the upper halves of the vector
// registers dirty.
//
//go:noescape
func clearUpper()
