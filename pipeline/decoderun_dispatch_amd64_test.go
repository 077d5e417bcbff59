package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestQuoteAhead checks quoteAhead against a byte search: a quote at each
// place of 40 bytes, and quote-like bytes (0x22 ± 1, 0xA2) that are not.
func TestQuoteAhead(t *testing.T) {
	const window = decodeShortWords * 8
	for _, filler := range []byte{'a', 0x21, 0x23, 0xA2, 0x00, 0xFF} {
		base := bytes.Repeat([]byte{filler}, 64)
		if quoteAhead(&base[0]) {
			t.Errorf("filler %#x: a quote found where there is none", filler)
		}
		for at := range 40 {
			b := bytes.Clone(base)
			b[at] = '"'
			if got, want := quoteAhead(&b[0]), at < window; got != want {
				t.Errorf("filler %#x, quote at %d: quoteAhead = %v, want %v", filler, at, got, want)
			}
		}
	}
}

// TestDecodeRunShShortString checks the dispatch: a string that ends
// within 32 bytes is left to the lexer (nothing consumed or written), a
// longer one goes to the kernel, which agrees with its specification.
func TestDecodeRunShShortString(t *testing.T) {
	if !haveDecodeRun {
		t.Skip("no AVX2 kernel here")
	}
	dst := make([]byte, 256)
	sh := make([]byte, 256)
	for _, tc := range []struct {
		src  string
		want int // bytes consumed
	}{
		{`short value","next":"` + strings.Repeat("x", 64), 0},
		{strings.Repeat("y", 31) + `"` + strings.Repeat("z", 64), 0},
		{strings.Repeat("y", 32) + `"` + strings.Repeat("z", 64), 32},
		{strings.Repeat("w", 96), 96},
	} {
		src := []byte(tc.src)
		c, w, o, _ := decodeRunSh(&src[0], len(src), &dst[0], len(dst), &sh[0], len(sh), &runTabs)
		if c != tc.want || w != tc.want || o != tc.want {
			t.Errorf("%q: consumed %d, wrote %d and %d, want %d", tc.src, c, w, o, tc.want)
		}
	}
}

// TestKernelChoiceEnv runs this test binary again with each value of
// MCP_SANITIZE_KERNELS and checks which kernels the pipeline chose.
func TestKernelChoiceEnv(t *testing.T) {
	if v := os.Getenv("MCP_SANITIZE_KERNELS_CHILD"); v != "" {
		fmt.Printf("choice=%v,%v\n", haveDecodeRun, haveDecodeRunC)
		return
	}
	want := map[string]string{
		"go":   "choice=false,false",
		"avx2": fmt.Sprintf("choice=%v,false", haveDecodeRun),
		"":     fmt.Sprintf("choice=%v,%v", haveDecodeRun, haveDecodeRunC),
	}
	if kernelChoice != "" {
		t.Skip("MCP_SANITIZE_KERNELS is set for this run")
	}
	for v, w := range want {
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
