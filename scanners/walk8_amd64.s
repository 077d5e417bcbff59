#include "textflag.h"

// STEP is one transition of a lane: the state s (its low byte sb) shifted
// left by eight, the input byte at addr written into its low byte, then the
// table entry at that index loaded (R14: the table).
#define STEP(s, sb, addr) \
	SHLL $8, s; \
	MOVB addr, sb; \
	MOVWLZX (R14)(s*2), s

// func walk8(tp *uint16, p *byte, q int, i int, st *[8]uint32, m uint32) int
//
// Eight lanes of the keyword automaton (automaton.go, walk8): lane l reads
// p[l*q+j]. From j = i it steps every lane over its byte, and returns the
// first j after whose step some lane's state is >= m, or q. The states go
// in and out through st.
//
// A step is s = tp[s<<8 | b]: the byte is written into the low byte of the
// shifted state, so each lane needs its state register only. Registers:
// AX BX CX DX R8 R9 R10 R11 the eight states; SI lane 0 at j, DI lane 4 at
// j; R12 q; R13 3q; R14 the table; R15 scratch. The end of lane 0 less one
// is on the stack and m stays in the argument frame: one load each per
// sixteen bytes, where a register each was the choice before.
//
// The walk goes two bytes at a time (one test of the end per sixteen
// bytes), and after the eight steps of a byte it tests the OR of the eight
// states against m, one compare where there were eight: a state >= m
// makes the OR >= m, so no hit is missed. The OR can be >= m with no state
// >= m (two states below m with different high bits); the eight exact
// compares then decide, and the walk goes on. Most bytes leave every lane
// shallow in the trie, where the states are small (breadth-first
// numbering), so that is rare.
TEXT ·walk8(SB), NOSPLIT, $16-56
	MOVQ st+32(FP), R15
	MOVL 0(R15), AX
	MOVL 4(R15), BX
	MOVL 8(R15), CX
	MOVL 12(R15), DX
	MOVL 16(R15), R8
	MOVL 20(R15), R9
	MOVL 24(R15), R10
	MOVL 28(R15), R11
	MOVQ tp+0(FP), R14
	MOVQ q+16(FP), R12
	LEAQ (R12)(R12*2), R13
	MOVQ p+8(FP), SI
	LEAQ (SI)(R12*1), R15
	MOVQ R15, end-8(SP)        // end of lane 0
	DECQ R15
	MOVQ R15, lim-16(SP)       // the last j with a byte after it
	MOVQ i+24(FP), DI
	ADDQ DI, SI                // lane 0 at j = i
	LEAQ (SI)(R12*4), DI       // lane 4 at j
	CMPQ SI, lim-16(SP)
	JAE  one

pair:
	STEP(AX, AL, (SI))
	STEP(BX, BL, (SI)(R12*1))
	STEP(CX, CL, (SI)(R12*2))
	STEP(DX, DL, (SI)(R13*1))
	STEP(R8, R8B, (DI))
	STEP(R9, R9B, (DI)(R12*1))
	STEP(R10, R10B, (DI)(R12*2))
	STEP(R11, R11B, (DI)(R13*1))
	MOVL AX, R15
	ORL  BX, R15
	ORL  CX, R15
	ORL  DX, R15
	ORL  R8, R15
	ORL  R9, R15
	ORL  R10, R15
	ORL  R11, R15
	CMPL R15, m+40(FP)
	JAE  check0
second:
	STEP(AX, AL, 1(SI))
	STEP(BX, BL, 1(SI)(R12*1))
	STEP(CX, CL, 1(SI)(R12*2))
	STEP(DX, DL, 1(SI)(R13*1))
	STEP(R8, R8B, 1(DI))
	STEP(R9, R9B, 1(DI)(R12*1))
	STEP(R10, R10B, 1(DI)(R12*2))
	STEP(R11, R11B, 1(DI)(R13*1))
	ADDQ $2, SI
	ADDQ $2, DI
	MOVL AX, R15
	ORL  BX, R15
	ORL  CX, R15
	ORL  DX, R15
	ORL  R8, R15
	ORL  R9, R15
	ORL  R10, R15
	ORL  R11, R15
	CMPL R15, m+40(FP)
	JAE  check1
	CMPQ SI, lim-16(SP)
	JB   pair

one:
	// At most one byte left.
	CMPQ SI, end-8(SP)
	JAE  done
	STEP(AX, AL, (SI))
	STEP(BX, BL, (SI)(R12*1))
	STEP(CX, CL, (SI)(R12*2))
	STEP(DX, DL, (SI)(R13*1))
	STEP(R8, R8B, (DI))
	STEP(R9, R9B, (DI)(R12*1))
	STEP(R10, R10B, (DI)(R12*2))
	STEP(R11, R11B, (DI)(R13*1))
	INCQ SI
	MOVL m+40(FP), R15
	CMPL AX, R15
	JAE  hit
	CMPL BX, R15
	JAE  hit
	CMPL CX, R15
	JAE  hit
	CMPL DX, R15
	JAE  hit
	CMPL R8, R15
	JAE  hit
	CMPL R9, R15
	JAE  hit
	CMPL R10, R15
	JAE  hit
	CMPL R11, R15
	JAE  hit
	JMP  done

check0:
	// The step at SI: a hit if some state is >= m.
	MOVL m+40(FP), R15
	CMPL AX, R15
	JAE  done
	CMPL BX, R15
	JAE  done
	CMPL CX, R15
	JAE  done
	CMPL DX, R15
	JAE  done
	CMPL R8, R15
	JAE  done
	CMPL R9, R15
	JAE  done
	CMPL R10, R15
	JAE  done
	CMPL R11, R15
	JAE  done
	JMP  second

check1:
	// The step at SI-1.
	MOVL m+40(FP), R15
	CMPL AX, R15
	JAE  hit
	CMPL BX, R15
	JAE  hit
	CMPL CX, R15
	JAE  hit
	CMPL DX, R15
	JAE  hit
	CMPL R8, R15
	JAE  hit
	CMPL R9, R15
	JAE  hit
	CMPL R10, R15
	JAE  hit
	CMPL R11, R15
	JAE  hit
	CMPQ SI, lim-16(SP)
	JB   pair
	JMP  one

hit:
	DECQ SI                    // the byte just stepped

done:
	SUBQ p+8(FP), SI
	MOVQ SI, ret+48(FP)
	MOVQ st+32(FP), R15
	MOVL AX, 0(R15)
	MOVL BX, 4(R15)
	MOVL CX, 8(R15)
	MOVL DX, 12(R15)
	MOVL R8, 16(R15)
	MOVL R9, 20(R15)
	MOVL R10, 24(R15)
	MOVL R11, 28(R15)
	RET

// func warm8(tp *uint16, p *byte, q int, back int, st *[8]uint32)
//
// The warm-up of lanes 1-7 of walk8: lane l steps over p[l*q-back+i] for
// i < back, with no check (its records would lie before its stretch).
// Lane 0 is left as it is. Registers as in walk8, SI and DI at lane 0 and
// lane 4 less back, R15 the end of the warm-up of lane 0.
TEXT ·warm8(SB), NOSPLIT, $0-40
	MOVQ st+32(FP), R15
	MOVL 4(R15), BX
	MOVL 8(R15), CX
	MOVL 12(R15), DX
	MOVL 16(R15), R8
	MOVL 20(R15), R9
	MOVL 24(R15), R10
	MOVL 28(R15), R11
	MOVQ tp+0(FP), R14
	MOVQ q+16(FP), R12
	LEAQ (R12)(R12*2), R13
	MOVQ p+8(FP), SI
	SUBQ back+24(FP), SI       // lane 0 less back (never read)
	LEAQ (SI)(R12*4), DI       // lane 4 less back
	MOVQ SI, R15
	ADDQ back+24(FP), R15
wloop:
	CMPQ SI, R15
	JAE  wdone
	STEP(BX, BL, (SI)(R12*1))
	STEP(CX, CL, (SI)(R12*2))
	STEP(DX, DL, (SI)(R13*1))
	STEP(R8, R8B, (DI))
	STEP(R9, R9B, (DI)(R12*1))
	STEP(R10, R10B, (DI)(R12*2))
	STEP(R11, R11B, (DI)(R13*1))
	INCQ SI
	INCQ DI
	JMP  wloop
wdone:
	MOVQ st+32(FP), R15
	MOVL BX, 4(R15)
	MOVL CX, 8(R15)
	MOVL DX, 12(R15)
	MOVL R8, 16(R15)
	MOVL R9, 20(R15)
	MOVL R10, 24(R15)
	MOVL R11, 28(R15)
	RET
