package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestBLAKE3WideChoice: the wide BLAKE3 path follows what x/sys/cpu reports,
// so GODEBUG=cpu.avx512f=off (the AVX2 path measured on a Zen 4) and
// MCP_SANITIZE_KERNELS=avx2 run zeebo/blake3. The test binary runs again
// with each setting and reports its choice.
func TestBLAKE3WideChoice(t *testing.T) {
	if os.Getenv("MCP_SANITIZE_BLAKE3_CHILD") != "" {
		fmt.Printf("wide=%v\n", blake3Wide)
		return
	}
	if kernelChoice != "" || strings.Contains(os.Getenv("GODEBUG"), "cpu.") {
		t.Skip("MCP_SANITIZE_KERNELS or GODEBUG CPU features are set for this run")
	}
	has := cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	if blake3Wide != has {
		t.Errorf("blake3Wide %v on a CPU with AVX-512F and VL %v", blake3Wide, has)
	}
	for _, tc := range []struct{ env, want string }{
		{"GODEBUG=cpu.avx512f=off", "wide=false"},
		{"MCP_SANITIZE_KERNELS=avx2", "wide=false"},
		{"MCP_SANITIZE_KERNELS=go", "wide=false"},
		{"GODEBUG=", fmt.Sprintf("wide=%v", has)},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBLAKE3WideChoice$")
		cmd.Env = append(os.Environ(), tc.env, "MCP_SANITIZE_BLAKE3_CHILD=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.env, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %q, want %s", tc.env, out, tc.want)
		}
	}
}

// SetBLAKE3Wide sets the BLAKE3 path of the digesters made from now on (a
// pass makes its own when it is first used) and returns the old setting:
// BenchmarkSanitizeDigestPair builds one engine on each path.
func SetBLAKE3Wide(v bool) bool {
	old := blake3Wide
	blake3Wide = v
	return old
}
