package scanners

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/asmcheck"
)

// TestKernelEncoding enforces the encoding rule of docs/kernels.md on this
// package's assembly: no legacy-SSE instruction in a kernel that uses Y, Z
// or K registers, VZEROUPPER before each return, in the source (macros
// expanded) and in the code the assembler produces for it (a VEX or EVEX
// prefix on every SIMD instruction of those kernels).
func TestKernelEncoding(t *testing.T) {
	asmcheck.CheckPackage(t, "github.com/mcp-sanitize/mcp-sanitize/scanners")
}
