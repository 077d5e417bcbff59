#include "textflag.h"

// func asciiSpanAVX2(p *byte, n int) int
//
// The index of the first byte of p[:n&^31] that is not 0x20..0x7e, tab,
// newline or carriage return, or n&^31: asciiSpan (normalize.go) 32 bytes
// at a time.
TEXT ·asciiSpanAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	ADDQ SI, CX
	MOVQ SI, DI
	MOVL $0x1f1f1f1f, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // 0x1f
	MOVL $0x7f7f7f7f, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2        // 0x7f
	MOVL $0x09090909, AX
	MOVD AX, X5
	VPBROADCASTD X5, Y5        // '\t'
	MOVL $0x0a0a0a0a, AX
	MOVD AX, X6
	VPBROADCASTD X6, Y6        // '\n'
	MOVL $0x0d0d0d0d, AX
	MOVD AX, X7
	VPBROADCASTD X7, Y7        // '\r'
loop:
	CMPQ SI, CX
	JAE  done
	VMOVDQU (SI), Y0
	VPCMPGTB Y1, Y0, Y8        // c > 0x1f (signed: not 0x80 and up)
	VPCMPGTB Y0, Y2, Y9        // 0x7f > c
	VPAND    Y8, Y9, Y8
	VPCMPEQB Y5, Y0, Y9
	VPOR     Y8, Y9, Y8
	VPCMPEQB Y6, Y0, Y9
	VPOR     Y8, Y9, Y8
	VPCMPEQB Y7, Y0, Y9
	VPOR     Y8, Y9, Y8        // kept
	VPMOVMSKB Y8, AX
	NOTL AX
	TESTL AX, AX
	JNZ  found
	ADDQ $32, SI
	JMP  loop
found:
	BSFL AX, AX
	ADDQ AX, SI
done:
	VZEROUPPER
	SUBQ DI, SI
	MOVQ SI, ret+16(FP)
	RET

// func leadIndexAVX2(p *byte, n int) int
//
// The index of the first byte of p[:n&^31] in 0xCD..0xD6 (the lead bytes
// of the confusables, normalize_confusable.go), or n&^31. Flipping the
// high bit maps the range to 0x4D..0x56 for two signed compares.
TEXT ·leadIndexAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	ADDQ SI, CX
	MOVQ SI, DI
	MOVL $0x80808080, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // 0x80
	MOVL $0x4c4c4c4c, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2        // 0xCD^0x80 - 1
	MOVL $0x57575757, AX
	MOVD AX, X3
	VPBROADCASTD X3, Y3        // 0xD6^0x80 + 1
lloop:
	CMPQ SI, CX
	JAE  ldone
	VMOVDQU (SI), Y0
	VPXOR    Y1, Y0, Y0
	VPCMPGTB Y2, Y0, Y4        // c^0x80 > 0x4C
	VPCMPGTB Y0, Y3, Y5        // 0x57 > c^0x80
	VPAND    Y4, Y5, Y4
	VPMOVMSKB Y4, AX
	TESTL AX, AX
	JNZ  lfound
	ADDQ $32, SI
	JMP  lloop
lfound:
	BSFL AX, AX
	ADDQ AX, SI
ldone:
	VZEROUPPER
	SUBQ DI, SI
	MOVQ SI, ret+16(FP)
	RET
