package scanners

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestKernelChoiceEnv runs this test binary again with each value of
// MCP_SANITIZE_KERNELS and checks which kernels scanners chose.
func TestKernelChoiceEnv(t *testing.T) {
	if os.Getenv("MCP_SANITIZE_KERNELS_CHILD") != "" {
		fmt.Printf("choice=%v,%v,%v\n", haveAVX2, haveRunWindow, haveWalk8)
		return
	}
	if kernelChoice != "" {
		t.Skip("MCP_SANITIZE_KERNELS is set for this run")
	}
	a := cpu.X86.HasAVX2
	for v, w := range map[string]string{
		"go":   "choice=false,false,false",
		"avx2": fmt.Sprintf("choice=%v,%v,true", a, a),
		"":     fmt.Sprintf("choice=%v,%v,true", a, a),
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelChoiceEnv$")
		cmd.Env = append(os.Environ(), "MCP_SANITIZE_KERNELS="+v, "MCP_SANITIZE_KERNELS_CHILD=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("MCP_SANITIZE_KERNELS=%q: %v", v, err)
		}
		if !strings.Contains(string(out), w) {
			t.Errorf("MCP_SANITIZE_KERNELS=%q: %q, want %s", v, out, w)
		}
	}
}
