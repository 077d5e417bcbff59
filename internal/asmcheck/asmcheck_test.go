package asmcheck

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const bcastSSE = `#include "textflag.h"
#define BCAST(c, x, y) \
	MOVL $c, AX; \
	MOVD AX, x; \
	VPBROADCASTD x, y
`

const bcastVEX = `#include "textflag.h"
#define BCAST(c, x, y) \
	MOVL $c, AX; \
	VMOVD AX, x; \
	VPBROADCASTD x, y
`

func TestSourceText(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		vector    []string
		want      []string // substrings of the violations, in order
	}{
		{"legacy MOVD through a macro", bcastSSE + `
TEXT ·f(SB), NOSPLIT, $0-8
	BCAST(0x1f1f1f1f, X1, Y1)
	VZEROUPPER
	RET
`, []string{"f"}, []string{"MOVD AX, X1"}},
		{"VEX MOVD through a macro", bcastVEX + `
TEXT ·f(SB), NOSPLIT, $0-8
	BCAST(0x1f1f1f1f, X1, Y1)
	VZEROUPPER
	RET
`, []string{"f"}, nil},
		{"PXOR beside a Y register", `
TEXT ·f(SB), NOSPLIT, $0-8
	PXOR X0, X0
	VMOVDQU (SI), Y1
	VZEROUPPER
	RET
`, []string{"f"}, []string{"PXOR X0, X0"}},
		{"missing VZEROUPPER", `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU (SI), Y1
	RET
`, []string{"f"}, []string{"RET"}},
		{"a label after VZEROUPPER is reached dirty", `
TEXT ·f(SB), NOSPLIT, $0-8
loop:
	VMOVDQU (SI), Y1
	JNZ  other
	VZEROUPPER
	RET
other:
	MOVQ AX, ret+8(FP)
	RET
`, []string{"f"}, []string{"RET"}},
		{"a call with a dirty upper state", `
TEXT ·f(SB), NOSPLIT, $0-8
	VPXOR Y1, Y1, Y1
	CALL ·g(SB)
	VZEROUPPER
	RET
`, []string{"f"}, []string{"CALL"}},
		{"EVEX with K registers and no Y", `
TEXT ·f(SB), NOSPLIT, $0-8
	KMOVD AX, K1
	MOVQ X0, AX
	RET
`, []string{"f"}, []string{"MOVQ X0, AX"}},
		{"SSE-only function is not a vector kernel", `
TEXT ·f(SB), NOSPLIT, $0-8
	PXOR X0, X0
	MOVOU X0, (DI)
	RET
`, nil, nil},
		{"scalar kernel", `
TEXT ·walk(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), SI
	RET
`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vector, vs, err := SourceText(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(vector, tc.vector) {
				t.Errorf("vector blocks %v, want %v", vector, tc.vector)
			}
			if len(vs) != len(tc.want) {
				t.Fatalf("violations %v, want %d", vs, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(vs[i].Instr, w) {
					t.Errorf("violation %d is %v, want one at %q", i, vs[i], w)
				}
			}
		})
	}
}

func TestListingText(t *testing.T) {
	const out = "example.com/p.f STEXT nosplit asm size=17 args=0x8 locals=0x0 funcid=0x0 align=0x0\n" +
		"\t0x0000 00000 (f_amd64.s:9)\tTEXT\texample.com/p.f(SB), NOSPLIT|NOFRAME, $0-8\n" +
		"\t0x0000 00000 (f_amd64.s:10)\tMOVL\t$522133279, AX\n" +
		"\t0x0005 00005 (f_amd64.s:11)\tMOVD\tAX, X1\n" +
		"\t0x0009 00009 (f_amd64.s:12)\tVPBROADCASTD\tX1, Y1\n" +
		"\t0x000e 00014 (f_amd64.s:13)\tVZEROUPPER\n" +
		"\t0x0011 00017 (f_amd64.s:14)\tRET\n" +
		"\t0x0000 b8 1f 1f 1f 1f 66 0f 6e c8 c4 e2 7d 58 c9 c5 f8  .....f.n...}X...\n" +
		"\t0x0010 77 c3                                            w.\n" +
		"example.com/p.g STEXT nosplit asm size=5 args=0x0 locals=0x0 funcid=0x0 align=0x0\n" +
		"\t0x0000 00000 (f_amd64.s:20)\tVMOVDQU\tY0, Y1\n" +
		"\t0x0004 00004 (f_amd64.s:21)\tRET\n" +
		"\t0x0000 c5 fe 7f c1 c3                                   ....\n"
	vs, err := listingText([]byte(out), "example.com/p", []string{"f", "g"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Func != "f" || !strings.Contains(vs[0].Instr, "66 0f 6e c8 MOVD AX, X1") {
		t.Fatalf("violations %v, want the legacy MOVD of f", vs)
	}
	if _, err := listingText([]byte(out), "example.com/p", []string{"f", "h"}); err == nil {
		t.Fatal("a function missing from the listing passed")
	}
}

// TestObjectOldBCAST assembles the constant broadcast the kernels used
// before the encoding rule (MOVD AX, X1 between VEX instructions) and
// checks that Object finds it.
func TestObjectOldBCAST(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"old_amd64.s": bcastSSE, "new_amd64.s": bcastVEX} {
		f := filepath.Join(dir, name)
		body := src + `
TEXT ·f(SB), NOSPLIT, $0-8
	BCAST(0x1f1f1f1f, X1, Y1)
	VZEROUPPER
	RET
`
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		vs, err := Object("example.com/p", []string{f}, []string{"f"})
		if errors.Is(err, ErrNoGo) {
			t.Skip("the go command is not on the PATH")
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := name == "old_amd64.s"; (len(vs) == 1) != want || len(vs) > 1 {
			t.Errorf("%s: violations %v", name, vs)
		}
	}
}
