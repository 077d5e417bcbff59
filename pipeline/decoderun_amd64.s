#include "textflag.h"

// func decodeRunAVX2(src *byte, n int, dst *byte, room int, esc *[256]byte) (consumed, written int)
//
// See decodeRunGo (decoderun.go), its specification. 32 bytes at a time:
// each block is stored whole, then the position of its first byte that is
// not plain (below 0x20, 0x7f and up, a quote or a backslash) is found from
// two signed compares and two equalities. An escape the table knows is
// decoded in place and the walk goes on; anything else ends it.
//
// SI src at i, R8 src end, DI dst at k, R9 dst end, R10 the table.
TEXT ·decodeRunAVX2(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), R8
	ADDQ SI, R8
	MOVQ dst+16(FP), DI
	MOVQ room+24(FP), R9
	ADDQ DI, R9
	MOVQ esc+32(FP), R10
	MOVL $0x1f1f1f1f, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // 0x1f
	MOVL $0x7f7f7f7f, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2        // 0x7f
	MOVL $0x22222222, AX
	MOVD AX, X3
	VPBROADCASTD X3, Y3        // '"'
	MOVL $0x5c5c5c5c, AX
	MOVD AX, X4
	VPBROADCASTD X4, Y4        // '\\'

loop:
	MOVQ R8, AX
	SUBQ SI, AX
	CMPQ AX, $32
	JLT  done
	MOVQ R9, AX
	SUBQ DI, AX
	CMPQ AX, $32
	JLT  done
	VMOVDQU (SI), Y0
	VMOVDQU Y0, (DI)
	VPCMPGTB Y1, Y0, Y5        // c > 0x1f (signed: not 0x80 and up)
	VPCMPGTB Y0, Y2, Y6        // 0x7f > c
	VPAND    Y5, Y6, Y5        // printable ASCII
	VPCMPEQB Y3, Y0, Y6
	VPCMPEQB Y4, Y0, Y7
	VPOR     Y6, Y7, Y6        // quote or backslash
	VPANDN   Y5, Y6, Y7        // plain: printable and neither
	VPMOVMSKB Y7, AX
	NOTL AX
	TESTL AX, AX
	JNZ  special
	ADDQ $32, SI
	ADDQ $32, DI
	JMP  loop

special:
	BSFL AX, AX
	ADDQ AX, SI
	ADDQ AX, DI
	CMPB (SI), $0x5c
	JNE  done
	LEAQ 2(SI), CX
	CMPQ CX, R8
	JAE  done                  // the escape (and the byte after it) may be cut
	MOVBLZX 1(SI), BX
	MOVBLZX (R10)(BX*1), CX
	TESTL CX, CX
	JZ   done                  // an escape the table does not take
	CMPB BX, $0x5c
	JNE  store
	CMPB 2(SI), $0x75
	JEQ  done                  // \\ then u: the caller marks the string
store:
	MOVB CX, (DI)
	ADDQ $2, SI
	INCQ DI
	JMP  loop

done:
	VZEROUPPER
	SUBQ src+0(FP), SI
	MOVQ SI, consumed+40(FP)
	SUBQ dst+16(FP), DI
	MOVQ DI, written+48(FP)
	RET
