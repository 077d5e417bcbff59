package scanners

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/internal/asmcheck"
)

// TestKernelEncoding enforces the encoding rule of docs/kernels.md on this
// package's assembly: no legacy-SSE instruction in a kernel that uses Y, Z
// or K registers, VZEROUPPER before each return, in the source (macros
// expanded) and in the code the assembler produces for it (a VEX or EVEX
// prefix on every SIMD instruction of those kernels).
func TestKernelEncoding(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly files found (%v)", err)
	}
	var vector []string
	for _, f := range files {
		names, vs, err := asmcheck.Source(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Errorf("%s: %v", f, v)
		}
		vector = append(vector, names...)
	}
	if len(vector) == 0 {
		t.Fatal("no vector kernel found in the assembly")
	}
	vs, err := asmcheck.Object("github.com/mcp-sanitize/mcp-sanitize/scanners", files, vector)
	if errors.Is(err, asmcheck.ErrNoGo) {
		t.Skip("object-code check skipped: the go command is not on the PATH")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("object code: %v", v)
	}
}
