#include "textflag.h"

// func clearUpper()
//
// VZEROUPPER after lukechampine.com/blake3/guts' AVX-512 kernel
// (compressChunksAVX512), which returns without it: the upper halves of the
// vector registers would stay dirty, and every legacy-SSE instruction of
// the Go code after it (MOVUPS X15 zeroing, memmove) would pay a state
// transition or a false dependency (docs/kernels.md, "The encoding rule").
TEXT ·clearUpper(SB), NOSPLIT, $0-0
	VZEROUPPER
	RET
