package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestAVX512OffChoosesAVX2: GODEBUG=cpu.avx512f=off (how the harness runs
// the AVX2 path of a Zen 3 on a CPU with AVX-512) leaves no AVX-512 kernel
// chosen, although x/sys/cpu clears only the feature it names. The test
// binary runs again with that setting and reports its choice.
func TestAVX512OffChoosesAVX2(t *testing.T) {
	if os.Getenv("MCP_SANITIZE_GODEBUG_CHILD") != "" {
		fmt.Printf("choice=%v,%v\n", haveDecodeRun, haveDecodeRunC)
		return
	}
	if kernelChoice != "" {
		t.Skip("MCP_SANITIZE_KERNELS is set for this run")
	}
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.") {
		t.Skip("GODEBUG sets CPU features for this run: the choice without them is unknown here")
	}
	for _, tc := range []struct{ godebug, want string }{
		{"cpu.avx512f=off", fmt.Sprintf("choice=%v,false", cpu.X86.HasAVX2)},
		{"cpu.avx512vbmi2=off", fmt.Sprintf("choice=%v,false", cpu.X86.HasAVX2)},
		{"", fmt.Sprintf("choice=%v,%v", cpu.X86.HasAVX2, haveDecodeRunC)},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAVX512OffChoosesAVX2$")
		cmd.Env = append(os.Environ(), "GODEBUG="+tc.godebug, "MCP_SANITIZE_GODEBUG_CHILD=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GODEBUG=%q: %v", tc.godebug, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("GODEBUG=%q: %q, want %s", tc.godebug, out, tc.want)
		}
	}
}
