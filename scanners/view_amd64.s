#include "textflag.h"

// func highIndexAVX2(p *byte, n int) int
//
// The index of the first byte of p[:n&^31] that is not ASCII (0x80 and
// up), or n&^31: nextHighWords (view.go) 64 bytes at a time, then a last
// block of 32. VPMOVMSKB takes the high bit of every byte.
TEXT ·highIndexAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	ADDQ SI, CX          // the end of the whole blocks
	MOVQ SI, DI
loop64:
	LEAQ 64(SI), DX
	CMPQ DX, CX
	JA   tail
	VMOVDQU (SI), Y0
	VPOR    32(SI), Y0, Y1
	VPMOVMSKB Y1, AX
	TESTL AX, AX
	JNZ  half
	MOVQ DX, SI
	JMP  loop64
half:
	VPMOVMSKB Y0, AX
	TESTL AX, AX
	JNZ  found
	ADDQ $32, SI
	VMOVDQU (SI), Y0
	VPMOVMSKB Y0, AX
	JMP  found
tail:
	// At most one block of 32 is left.
	CMPQ SI, CX
	JAE  done
	VMOVDQU (SI), Y0
	VPMOVMSKB Y0, AX
	TESTL AX, AX
	JNZ  found
	ADDQ $32, SI
done:
	VZEROUPPER
	SUBQ DI, SI
	MOVQ SI, ret+16(FP)
	RET
found:
	BSFL AX, AX
	ADDQ AX, SI
	JMP  done
