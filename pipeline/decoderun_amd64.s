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

// func countRunesAVX2(p *byte, n int) int
//
// The bytes of p[:n&^31] that are not UTF-8 continuation bytes (10xxxxxx,
// which are -128..-65 as signed bytes), 32 at a time.
TEXT ·countRunesAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	ADDQ SI, CX
	XORQ DX, DX
	MOVL $0xbfbfbfbf, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // -65
crloop:
	CMPQ SI, CX
	JAE  crdone
	VMOVDQU (SI), Y0
	VPCMPGTB Y1, Y0, Y2        // c > -65: not a continuation byte
	VPMOVMSKB Y2, AX
	POPCNTL AX, AX
	ADDQ AX, DX
	ADDQ $32, SI
	JMP  crloop
crdone:
	VZEROUPPER
	MOVQ DX, ret+16(FP)
	RET

// func escapedLenAVX2(p *byte, n int) int
//
// escapedLen of p[:n&^31]: each byte below 0x20, quote and backslash adds
// one byte, each control other than tab, newline and carriage return four
// more.
TEXT ·escapedLenAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	MOVQ CX, DX                // the bytes themselves
	ADDQ SI, CX
	MOVL $0x20202020, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // 0x20
	VPCMPEQB Y8, Y8, Y8        // -1
	MOVL $0x22222222, AX
	MOVD AX, X3
	VPBROADCASTD X3, Y3        // '"'
	MOVL $0x5c5c5c5c, AX
	MOVD AX, X4
	VPBROADCASTD X4, Y4        // '\\'
	MOVL $0x09090909, AX
	MOVD AX, X5
	VPBROADCASTD X5, Y5        // '\t'
	MOVL $0x0a0a0a0a, AX
	MOVD AX, X6
	VPBROADCASTD X6, Y6        // '\n'
	MOVL $0x0d0d0d0d, AX
	MOVD AX, X7
	VPBROADCASTD X7, Y7        // '\r'
elloop:
	CMPQ SI, CX
	JAE  eldone
	VMOVDQU (SI), Y0
	VPCMPGTB Y0, Y1, Y9        // 0x20 > c (signed)
	VPCMPGTB Y8, Y0, Y10       // c > -1: not 0x80 and up
	VPAND    Y9, Y10, Y9       // c < 0x20
	VPCMPEQB Y3, Y0, Y10
	VPCMPEQB Y4, Y0, Y11
	VPOR     Y10, Y11, Y10
	VPOR     Y9, Y10, Y10      // one more byte each
	VPMOVMSKB Y10, AX
	POPCNTL AX, AX
	ADDQ AX, DX
	VPCMPEQB Y5, Y0, Y10
	VPCMPEQB Y6, Y0, Y11
	VPOR     Y10, Y11, Y10
	VPCMPEQB Y7, Y0, Y11
	VPOR     Y10, Y11, Y10     // tab, newline, carriage return
	VPANDN   Y9, Y10, Y10      // other controls: four more each
	VPMOVMSKB Y10, AX
	POPCNTL AX, AX
	SHLQ $2, AX
	ADDQ AX, DX
	ADDQ $32, SI
	JMP  elloop
eldone:
	VZEROUPPER
	MOVQ DX, ret+16(FP)
	RET
