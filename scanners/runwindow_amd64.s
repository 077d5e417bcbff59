#include "textflag.h"

// Nibble tables of the run alphabet (decode.go setRunAny): a byte c is in
// it when runLo[c&15] & runHi[c>>4] != 0 (each high nibble of the alphabet
// has a bit of its own; 8..15 have none). Twice, for the two 128-bit lanes
// of VPSHUFB.
DATA runLo<>+0(SB)/8, $0x3e3e3f3e3e3e3e2a
DATA runLo<>+8(SB)/8, $0x1d141714153c3e3e
DATA runLo<>+16(SB)/8, $0x3e3e3f3e3e3e3e2a
DATA runLo<>+24(SB)/8, $0x1d141714153c3e3e
GLOBL runLo<>(SB), RODATA|NOPTR, $32

DATA runHi<>+0(SB)/8, $0x2010080402010000
DATA runHi<>+8(SB)/8, $0x0000000000000000
DATA runHi<>+16(SB)/8, $0x2010080402010000
DATA runHi<>+24(SB)/8, $0x0000000000000000
GLOBL runHi<>(SB), RODATA|NOPTR, $32

DATA nib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nib<>(SB), RODATA|NOPTR, $32

// func runWindowAVX2(p *byte, n int) (k, from int)
//
// Looks at the whole 32-byte blocks of p[:n] for 24 consecutive bytes of
// the run alphabet. k is where the first such stretch starts, or -1; then
// from is where the stretch of alphabet bytes that ends the blocks begins
// (the end of the blocks when none does): a stretch that goes on after the
// blocks starts there.
//
// Two blocks at a time while two are left: their 64-bit mask goes through
// the same tests as one block's (a stretch carried in, 24 inside, the
// stretch the pair ends with) with a third fewer instructions a byte; a
// last odd block goes alone.
//
// SI the block, DI p, CX the end of the blocks, R9 the last start of a
// pair, DX alphabet bytes just before the block.
TEXT ·runWindowAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ SI, DI
	MOVQ n+8(FP), CX
	ANDQ $-32, CX
	ADDQ SI, CX
	XORQ DX, DX
	VMOVDQU runLo<>(SB), Y8
	VMOVDQU runHi<>(SB), Y9
	VMOVDQU nib<>(SB), Y10
	VPXOR   Y11, Y11, Y11
	LEAQ    -64(CX), R9
pairs:
	CMPQ SI, R9
	JA   loop                  // fewer than two blocks left (unsigned: R9 may lie before p)
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y3
	VPAND    Y10, Y0, Y1
	VPSRLW   $4, Y0, Y2
	VPAND    Y10, Y2, Y2
	VPSHUFB  Y1, Y8, Y1
	VPSHUFB  Y2, Y9, Y2
	VPAND    Y1, Y2, Y1
	VPCMPEQB Y11, Y1, Y1       // first block: not in the alphabet
	VPAND    Y10, Y3, Y4
	VPSRLW   $4, Y3, Y5
	VPAND    Y10, Y5, Y5
	VPSHUFB  Y4, Y8, Y4
	VPSHUFB  Y5, Y9, Y5
	VPAND    Y4, Y5, Y4
	VPCMPEQB Y11, Y4, Y4       // second block
	VPMOVMSKB Y1, AX
	VPMOVMSKB Y4, BX
	SHLQ $32, BX
	ORQ  BX, AX                // bit j: byte j of the pair not in the alphabet
	TESTQ AX, AX
	JNZ  pmixed
	SUBQ DX, SI                // 64 alphabet bytes
	JMP  found
pmixed:
	BSFQ AX, BX                // alphabet bytes at the start of the pair
	ADDQ DX, BX
	CMPQ BX, $24
	JAE  carried
	MOVQ AX, BX
	NOTQ BX                    // alphabet bytes
	MOVQ BX, R8
	SHRQ $1, R8
	ANDQ R8, BX
	MOVQ BX, R8
	SHRQ $2, R8
	ANDQ R8, BX
	MOVQ BX, R8
	SHRQ $4, R8
	ANDQ R8, BX
	MOVQ BX, R8
	SHRQ $8, R8
	ANDQ R8, BX                // bit j: 16 from j on
	MOVQ BX, R8
	SHRQ $8, R8
	ANDQ R8, BX                // bit j: 24 from j on
	TESTQ BX, BX
	JNZ  pinside
	BSRQ AX, BX                // the last byte not in the alphabet
	MOVQ $63, DX
	SUBQ BX, DX                // alphabet bytes at the end of the pair
	ADDQ $64, SI
	JMP  pairs
pinside:
	BSFQ BX, BX
	ADDQ BX, SI
	JMP  found

loop:
	CMPQ SI, CX
	JAE  none
	VMOVDQU (SI), Y0
	VPAND    Y10, Y0, Y1       // low nibbles
	VPSRLW   $4, Y0, Y2
	VPAND    Y10, Y2, Y2       // high nibbles
	VPSHUFB  Y1, Y8, Y1
	VPSHUFB  Y2, Y9, Y2
	VPAND    Y1, Y2, Y1
	VPCMPEQB Y11, Y1, Y1       // not in the alphabet
	VPMOVMSKB Y1, AX
	TESTL AX, AX
	JNZ  mixed
	// A whole block of alphabet bytes: with what came before, 24 or more.
	SUBQ DX, SI
	JMP  found
mixed:
	BSFL AX, BX                // alphabet bytes at the start of the block
	ADDQ DX, BX
	CMPQ BX, $24
	JAE  carried
	MOVL AX, BX
	NOTL BX                    // alphabet bytes
	MOVL BX, R8
	SHRL $1, R8
	ANDL R8, BX
	MOVL BX, R8
	SHRL $2, R8
	ANDL R8, BX
	MOVL BX, R8
	SHRL $4, R8
	ANDL R8, BX
	MOVL BX, R8
	SHRL $8, R8
	ANDL R8, BX                // bit j: 16 from j on
	MOVL BX, R8
	SHRL $8, R8
	ANDL R8, BX                // bit j: 24 from j on
	TESTL BX, BX
	JNZ  inside
	BSRL AX, BX                // the last byte not in the alphabet
	MOVQ $31, DX
	SUBQ BX, DX                // alphabet bytes at the end of the block
	ADDQ $32, SI
	JMP  loop
carried:
	SUBQ DX, SI
	JMP  found
inside:
	BSFL BX, BX
	ADDQ BX, SI
found:
	VZEROUPPER
	SUBQ DI, SI
	MOVQ SI, k+16(FP)
	MOVQ $0, from+24(FP)
	RET
none:
	VZEROUPPER
	SUBQ DX, SI
	SUBQ DI, SI
	MOVQ $-1, k+16(FP)
	MOVQ SI, from+24(FP)
	RET
