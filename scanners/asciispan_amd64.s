#include "textflag.h"

// BCAST puts the 32-bit constant c, a byte repeated four times, in every
// lane of y (through x and AX).
#define BCAST(c, x, y) \
	MOVL $c, AX; \
	VMOVD AX, x; \
	VPBROADCASTD x, y

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
	BCAST(0x1f1f1f1f, X1, Y1)        // 0x1f
	BCAST(0x7f7f7f7f, X2, Y2)        // 0x7f
	BCAST(0x09090909, X5, Y5)        // '\t'
	BCAST(0x0a0a0a0a, X6, Y6)        // '\n'
	BCAST(0x0d0d0d0d, X7, Y7)        // '\r'
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
	BCAST(0x80808080, X1, Y1)        // 0x80
	BCAST(0x4c4c4c4c, X2, Y2)        // 0xCD^0x80 - 1
	BCAST(0x57575757, X3, Y3)        // 0xD6^0x80 + 1
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
