#include "textflag.h"

// BCAST puts the 32-bit constant c, a byte repeated four times, in every
// lane of y (through x and AX).
#define BCAST(c, x, y) \
	MOVL $c, AX; \
	VMOVD AX, x; \
	VPBROADCASTD x, y

// DECODE_ENTRY and DECODE_RETURN are the frame of the decodeRunSh
// kernels: the arguments into SI, R8 (end of src), DI, R9 (end of dst),
// R11, R12 (end of sh), R10 (tables) and R13 (dirty, cleared), and the
// constants 0x1f, 0x7f, '"' and '\\' in Y1-Y4; the results. A block needs
// 32 bytes of src and 40 of dst and sh: each kernel tests that against
// three limits set once (R8 less 32 on the stack, R9 and R12 less 40).
#define DECODE_ENTRY \
	MOVQ src+0(FP), SI; \
	MOVQ n+8(FP), R8; \
	ADDQ SI, R8; \
	MOVQ dst+16(FP), DI; \
	MOVQ room+24(FP), R9; \
	ADDQ DI, R9; \
	MOVQ sh+32(FP), R11; \
	MOVQ shRoom+40(FP), R12; \
	ADDQ R11, R12; \
	MOVQ t+48(FP), R10; \
	XORQ R13, R13; \
	BCAST(0x1f1f1f1f, X1, Y1); \
	BCAST(0x7f7f7f7f, X2, Y2); \
	BCAST(0x22222222, X3, Y3); \
	BCAST(0x5c5c5c5c, X4, Y4)

#define DECODE_RETURN \
	VZEROUPPER; \
	SUBQ src+0(FP), SI; \
	MOVQ SI, consumed+56(FP); \
	SUBQ dst+16(FP), DI; \
	MOVQ DI, written+64(FP); \
	SUBQ sh+32(FP), R11; \
	MOVQ R11, shw+72(FP); \
	MOVB R13, dirty+80(FP); \
	RET

// ESCAPE_ONE takes the escape at SI as decodeOneEscape (decoderun.go)
// does and jumps to loop, or to done when it takes nothing: \/, a \u
// escape of printable ASCII but the backslash or of a character from U+0080
// up outside the surrogates (R13 set when the string needs the normalizer:
// non-ASCII, a decoded u, a / of \/ or \u002f right after a decoded
// backslash), or an escape of the table at R10 but \\ then u or /.
// A \u escape the input cuts, bad hex, \u005c, DEL, a control and a
// surrogate are left to the lexer. The escapes of the table (\" \\ \n \r
// \t, most of those in text) are tested first. Its labels are local to
// each function that uses it.
#define ESCAPE_ONE(loop, done) \
	CMPB (SI), $0x5c; \
	JNE  done; \
	LEAQ 2(SI), CX; \
	CMPQ CX, R8; \
	JAE  done; \
	MOVBLZX 1(SI), BX; \
	MOVBLZX (R10)(BX*1), CX; \
	TESTL CX, CX; \
	JZ   eo_other; \
	CMPL BX, $0x5c; \
	JNE  eo_canon; \
	CMPB 2(SI), $0x75; \
	JEQ  done; \
	CMPB 2(SI), $0x2f; \
	JEQ  done; \
	eo_canon: MOVB CX, (DI); \
	MOVW (SI), DX; \
	MOVW DX, (R11); \
	ADDQ $2, SI; \
	INCQ DI; \
	ADDQ $2, R11; \
	JMP  loop; \
	eo_other: CMPL BX, $0x2f; \
	JEQ  eo_slash; \
	CMPL BX, $0x75; \
	JEQ  eo_uesc; \
	JMP  done; \
	eo_slash: CMPQ DI, dst+16(FP); \
	JEQ  eo_slash1; \
	CMPB -1(DI), $0x5c; \
	JNE  eo_slash1; \
	MOVQ $1, R13; \
	eo_slash1: MOVB $0x2f, (DI); \
	MOVB $0x2f, (R11); \
	ADDQ $2, SI; \
	INCQ DI; \
	INCQ R11; \
	JMP  loop; \
	eo_uesc: LEAQ 6(SI), CX; \
	CMPQ CX, R8; \
	JA   done; \
	MOVBLZX 2(SI), BX; \
	MOVBLZX 256(R10)(BX*1), AX; \
	MOVBLZX 3(SI), BX; \
	MOVBLZX 256(R10)(BX*1), CX; \
	MOVBLZX 4(SI), BX; \
	MOVBLZX 256(R10)(BX*1), DX; \
	MOVBLZX 5(SI), BX; \
	MOVBLZX 256(R10)(BX*1), BX; \
	MOVL AX, R14; \
	ORL  CX, R14; \
	ORL  DX, R14; \
	ORL  BX, R14; \
	TESTL $0xf0, R14; \
	JNZ  done; \
	SHLL $12, AX; \
	SHLL $8, CX; \
	SHLL $4, DX; \
	ORL  CX, AX; \
	ORL  DX, AX; \
	ORL  BX, AX; \
	CMPL AX, $0x20; \
	JB   done; \
	CMPL AX, $0x7f; \
	JAE  eo_nonascii; \
	CMPL AX, $0x5c; \
	JEQ  done; \
	MOVB AL, (DI); \
	INCQ DI; \
	CMPL AX, $0x22; \
	JNE  eo_plain; \
	MOVW $0x225c, (R11); \
	ADDQ $2, R11; \
	ADDQ $6, SI; \
	JMP  loop; \
	eo_plain: MOVB AL, (R11); \
	INCQ R11; \
	CMPL AX, $0x2f; \
	JNE  eo_notsl; \
	LEAQ -1(DI), CX; \
	CMPQ CX, dst+16(FP); \
	JEQ  eo_notu; \
	CMPB -2(DI), $0x5c; \
	JNE  eo_notu; \
	MOVQ $1, R13; \
	JMP  eo_notu; \
	eo_notsl: CMPL AX, $0x75; \
	JNE  eo_notu; \
	MOVQ $1, R13; \
	eo_notu: ADDQ $6, SI; \
	JMP  loop; \
	eo_nonascii: CMPL AX, $0x80; \
	JB   done; \
	CMPL AX, $0xd800; \
	JB   eo_utf8; \
	CMPL AX, $0xdfff; \
	JBE  done; \
	eo_utf8: MOVQ $1, R13; \
	CMPL AX, $0x800; \
	JAE  eo_three; \
	MOVL AX, CX; \
	SHRL $6, CX; \
	ORL  $0xc0, CX; \
	MOVL AX, DX; \
	ANDL $0x3f, DX; \
	ORL  $0x80, DX; \
	MOVB CX, (DI); \
	MOVB DX, 1(DI); \
	MOVB CX, (R11); \
	MOVB DX, 1(R11); \
	ADDQ $2, DI; \
	ADDQ $2, R11; \
	ADDQ $6, SI; \
	JMP  loop; \
	eo_three: MOVL AX, CX; \
	SHRL $12, CX; \
	ORL  $0xe0, CX; \
	MOVL AX, DX; \
	SHRL $6, DX; \
	ANDL $0x3f, DX; \
	ORL  $0x80, DX; \
	ANDL $0x3f, AX; \
	ORL  $0x80, AX; \
	MOVB CX, (DI); \
	MOVB DX, 1(DI); \
	MOVB AX, 2(DI); \
	MOVB CX, (R11); \
	MOVB DX, 1(R11); \
	MOVB AX, 2(R11); \
	ADDQ $3, DI; \
	ADDQ $3, R11; \
	ADDQ $6, SI; \
	JMP  loop;

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
	BCAST(0xbfbfbfbf, X1, Y1)        // -65
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
	BCAST(0x20202020, X1, Y1)        // 0x20
	VPCMPEQB Y8, Y8, Y8        // -1
	BCAST(0x22222222, X3, Y3)        // '"'
	BCAST(0x5c5c5c5c, X4, Y4)        // '\\'
	BCAST(0x09090909, X5, Y5)        // '\t'
	BCAST(0x0a0a0a0a, X6, Y6)        // '\n'
	BCAST(0x0d0d0d0d, X7, Y7)        // '\r'
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

// func decodeRunShAVX2(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool)
//
// See decodeRunShGo (decoderun.go), its specification: decodeRunAVX2 that
// also writes the escaped shadow and decodes \/ and the \u escapes the
// lexer's fast path decodes.
//
// SI src, R8 its end; DI dst, R9 its end; R11 sh, R12 its end; R10 the
// tables (esc at 0, hex at 256); R13 dirty.
TEXT ·decodeRunShAVX2(SB), NOSPLIT, $32-81
	DECODE_ENTRY
	// The room a block needs as three limits, one compare each: src from
	// its end less 32 (on the stack: R8, the end, is ESCAPE_ONE's), dst
	// and sh less 40 (R9 and R12, read nowhere else).
	// The escapes of a block are taken in place where src has 64 bytes
	// and dst and sh 72 (the limits below them on the stack).
	LEAQ -32(R8), AX
	MOVQ AX, srclim-8(SP)
	LEAQ -64(R8), AX
	MOVQ AX, srclim2-16(SP)
	SUBQ $40, R9
	SUBQ $40, R12
	LEAQ -32(R9), AX
	MOVQ AX, dstlim2-24(SP)
	LEAQ -32(R12), AX
	MOVQ AX, shlim2-32(SP)

sloop:
	CMPQ SI, srclim-8(SP)
	JHI  sdone
	CMPQ DI, R9
	JHI  sdone
	CMPQ R11, R12
	JHI  sdone
	VMOVDQU (SI), Y0
	VMOVDQU Y0, (DI)
	VMOVDQU Y0, (R11)
	VPCMPGTB Y1, Y0, Y5
	VPCMPGTB Y0, Y2, Y6
	VPAND    Y5, Y6, Y5
	VPCMPEQB Y3, Y0, Y6
	VPCMPEQB Y4, Y0, Y7
	VPOR     Y6, Y7, Y6
	VPANDN   Y5, Y6, Y7
	VPMOVMSKB Y7, AX
	NOTL AX
	TESTL AX, AX
	JNZ  sspecial
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R11
	JMP  sloop

sspecial:
	// The escapes of the block in place, from its mask (AX: the bytes
	// that are not plain), while each is a two-byte escape of the table
	// but \\ whose letter is in the block (at 31 at the latest): its byte
	// goes to dst, and 32 bytes of src from after it to dst and sh, the
	// stores decodeRunShGo makes at the top of its loop (dst then lags the
	// block by one byte more: DI goes back one; the shadow of such an
	// escape is the escape itself, as the block's copy wrote it). The next
	// byte that is not plain comes from the mask, not from a reload and a
	// new mask. Any other byte goes through ESCAPE_ONE; after the last
	// escape of the block the loop goes on from there, where
	// decodeRunShGo goes on. With the room checked once for the whole
	// block, each escape taken here is one that decodeRunShGo's loop
	// would take (its checks of room, made before each escape, hold all
	// the way), and the bytes written are the same. A block with one such
	// byte goes to ESCAPE_ONE at once (the checks cost more than they save).
	LEAL -1(AX), BX
	ANDL AX, BX
	JZ   sone
	CMPQ SI, srclim2-16(SP)
	JHI  sone
	CMPQ DI, dstlim2-24(SP)
	JHI  sone
	CMPQ R11, shlim2-32(SP)
	JHI  sone
sin:
	BSFL AX, CX
	CMPL CX, $30
	JA   sat
	CMPB (SI)(CX*1), $0x5c
	JNE  sat
	MOVBLZX 1(SI)(CX*1), BX
	CMPL BX, $0x5c
	JEQ  sat
	MOVBLZX (R10)(BX*1), DX
	TESTL DX, DX
	JZ   sat
	MOVB DX, (DI)(CX*1)
	VMOVDQU 2(SI)(CX*1), Y5
	VMOVDQU Y5, 1(DI)(CX*1)
	VMOVDQU Y5, 2(R11)(CX*1)
	DECQ DI
	ADDL $2, CX
	MOVQ $-1, BX
	SHLQ CX, BX
	ANDQ BX, AX                // the bytes of the block after the escape
	JNZ  sin
	ADDQ CX, SI                // after the last escape of the block
	ADDQ CX, DI
	ADDQ CX, R11
	JMP  sloop

sone:
	BSFL AX, CX
sat:
	ADDQ CX, SI
	ADDQ CX, DI
	ADDQ CX, R11
	ESCAPE_ONE(sloop, sdone)

sdone:
	DECODE_RETURN

// func escapeRunAVX2(src *byte, n int, dst *byte, room int) (consumed, written int)
//
// See escapeRunGo (decoderun.go), its specification: the escaper 32 bytes
// at a time. Each block is stored whole; at its first byte that needs an
// escape, a quote, a backslash, a newline, a carriage return or a tab gets
// its two-byte escape and the walk goes on; another control ends it.
//
// SI src, R8 its end less 32; DI dst, R9 its end less 64.
TEXT ·escapeRunAVX2(SB), NOSPLIT, $0-48
	MOVQ src+0(FP), SI
	MOVQ n+8(FP), R8
	LEAQ -32(SI)(R8*1), R8
	MOVQ dst+16(FP), DI
	MOVQ room+24(FP), R9
	LEAQ -64(DI)(R9*1), R9
	BCAST(0x20202020, X1, Y1)        // 0x20
	VPCMPEQB Y2, Y2, Y2        // -1
	BCAST(0x22222222, X3, Y3)        // '"'
	BCAST(0x5c5c5c5c, X4, Y4)        // '\\'
eloop:
	CMPQ SI, R8
	JGT  edone
	CMPQ DI, R9
	JGT  edone
	VMOVDQU (SI), Y0
	VMOVDQU Y0, (DI)
	VPCMPGTB Y0, Y1, Y5        // 0x20 > c (signed)
	VPCMPGTB Y2, Y0, Y6        // c > -1: not 0x80 and up
	VPAND    Y5, Y6, Y5        // a control
	VPCMPEQB Y3, Y0, Y6
	VPOR     Y5, Y6, Y5
	VPCMPEQB Y4, Y0, Y6
	VPOR     Y5, Y6, Y5        // needs an escape
	VPMOVMSKB Y5, AX
	TESTL AX, AX
	JNZ  especial
	ADDQ $32, SI
	ADDQ $32, DI
	JMP  eloop
especial:
	BSFL AX, AX
	ADDQ AX, SI
	ADDQ AX, DI
	MOVBLZX (SI), BX
	CMPL BX, $0x22
	JEQ  eself
	CMPL BX, $0x5c
	JEQ  eself
	CMPL BX, $0x0a
	JEQ  enl
	CMPL BX, $0x0d
	JEQ  ecr
	CMPL BX, $0x09
	JEQ  etab
	JMP  edone                 // another control: six bytes, the caller's
eself:
	MOVB $0x5c, (DI)
	MOVB BX, 1(DI)
	JMP  etwo
enl:
	MOVW $0x6e5c, (DI)         // \n
	JMP  etwo
ecr:
	MOVW $0x725c, (DI)         // \r
	JMP  etwo
etab:
	MOVW $0x745c, (DI)         // \t
etwo:
	INCQ SI
	ADDQ $2, DI
	JMP  eloop
edone:
	VZEROUPPER
	SUBQ src+0(FP), SI
	MOVQ SI, consumed+32(FP)
	SUBQ dst+16(FP), DI
	MOVQ DI, written+40(FP)
	RET

// func decodeRunShVBMI2(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (consumed, written, shw int, dirty bool)
//
// See decodeRunShCGo (decoderun.go), its specification: decodeRunShAVX2
// with every two-byte escape of a block decoded at once. The backslashes
// that begin escapes are found with two additions on the block's mask
// (escapeMasks), n r t turned into their controls with VPSHUFB, and the
// backslashes dropped with VPCOMPRESSB (AVX-512 VBMI2). One escape at the
// end of a block, and \u escapes, go through ESCAPE_ONE, as in decodeRunShAVX2.
//
// SI src, R8 its end; DI dst, R9 its end; R11 sh, R12 its end; R10 the
// tables (esc at 0, hex at 256, nrt at 512); R13 dirty.
TEXT ·decodeRunShVBMI2(SB), NOSPLIT, $8-81
	DECODE_ENTRY
	// The room a block needs as three limits, as in decodeRunShAVX2.
	LEAQ -32(R8), AX
	MOVQ AX, srclim-8(SP)
	SUBQ $40, R9
	SUBQ $40, R12
	BCAST(0x2f2f2f2f, X8, Y8)        // '/'
	BCAST(0x6e6e6e6e, X9, Y9)        // 'n'
	BCAST(0x72727272, X10, Y10)      // 'r'
	BCAST(0x74747474, X11, Y11)      // 't'
	BCAST(0x75757575, X12, Y12)      // 'u'
	VMOVDQU 512(R10), Y13            // nrt

vloop:
	CMPQ SI, srclim-8(SP)
	JHI  vdone
	CMPQ DI, R9
	JHI  vdone
	CMPQ R11, R12
	JHI  vdone
	VMOVDQU (SI), Y0
	VMOVDQU Y0, (DI)
	VMOVDQU Y0, (R11)
	VPCMPGTB Y1, Y0, Y5
	VPCMPGTB Y0, Y2, Y6
	VPAND    Y5, Y6, Y5        // printable: 0x20..0x7e
	VPCMPEQB Y3, Y0, Y6        // quote
	VPCMPEQB Y4, Y0, Y7        // backslash
	VPOR     Y6, Y7, Y14
	VPANDN   Y5, Y14, Y14      // plain
	VPMOVMSKB Y14, AX
	NOTL AX
	TESTL AX, AX
	JNZ  vspecial
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R11
	JMP  vloop

vspecial:
	// Escape at a time, as decodeRunShAVX2, when the first byte that is
	// not plain is not a backslash, or begins a \u escape, or is the last
	// of the block, or the block has one backslash.
	BSFL AX, DX
	CMPB (SI)(DX*1), $0x5c
	JNE  vfirst
	CMPL DX, $31
	JEQ  vfirst
	CMPB 1(SI)(DX*1), $0x75
	JEQ  vfirst
	VPMOVMSKB Y7, BX           // backslashes
	BLSRL BX, CX
	JZ   vfirst
	// letters (CX) and starters (R14), as escapeMasks
	MOVL BX, CX
	SHLL $1, CX
	NOTL CX
	ANDL BX, CX                // starts of runs
	MOVL CX, DX
	ANDL $0x55555555, CX
	ANDL $0xaaaaaaaa, DX
	ADDL BX, CX                // even carries
	ADDL BX, DX                // odd carries
	XORL BX, CX
	ANDL $0xaaaaaaaa, CX
	XORL BX, DX
	ANDL $0x55555555, DX
	ORL  DX, CX                // letters
	MOVL CX, R14
	NOTL R14
	ANDL BX, R14               // starters
	ANDL CX, BX                // escaped backslashes
	// cut (AX): stops no backslash escapes, starters of bad escapes,
	// starters at 30 and 31
	VPMOVMSKB Y6, AX           // quote
	VPMOVMSKB Y5, DX           // printable
	NOTL DX
	ORL  DX, AX
	MOVL CX, DX
	NOTL DX
	ANDL DX, AX                // stops
	VPOR     Y6, Y7, Y7        // quote, backslash
	VPCMPEQB Y8, Y0, Y5
	VPMOVMSKB Y5, R15          // slash
	VPOR     Y5, Y7, Y7
	VPCMPEQB Y9, Y0, Y5
	VPCMPEQB Y10, Y0, Y6
	VPOR     Y6, Y5, Y5
	VPCMPEQB Y11, Y0, Y6
	VPOR     Y6, Y5, Y5        // n r t
	VPOR     Y5, Y7, Y7        // letters an escape may have here
	VPMOVMSKB Y7, DX
	NOTL DX
	ANDL CX, DX                // bad letters
	SHRL $1, DX
	ORL  DX, AX
	VPCMPEQB Y12, Y0, Y6
	VPMOVMSKB Y6, DX           // u
	SHRL $1, DX
	ANDL BX, DX                // \\ then u
	SHRL $1, DX
	ORL  DX, AX
	MOVL R15, DX
	SHRL $1, DX
	ANDL BX, DX                // \\ then /
	SHRL $1, DX
	ORL  DX, AX
	MOVL R15, DX
	ANDL CX, DX
	SHRL $1, DX
	ANDL R14, DX               // starters of \/
	SHLL $1, BX
	ORL  $1, BX
	ANDL BX, DX                // \/ after \\ or at the block's start
	ORL  DX, AX
	MOVL R14, DX
	ANDL $0xc0000000, DX
	ORL  DX, AX
	TZCNTL AX, AX              // lim
	JZ   vone                  // (ZF: lim is 0)
	BZHIL AX, R14, BX          // starters before lim
	TESTL BX, BX
	JNZ  vcompress
	ADDQ AX, SI                // nothing to drop: the block is in place
	ADDQ AX, DI
	ADDQ AX, R11
	JMP  vone

vcompress:
	MOVL $-1, DX
	BZHIL AX, DX, DX           // the bytes before lim
	MOVL BX, R14
	NOTL R14
	ANDL DX, R14               // kept in dst
	ANDL CX, R15
	SHRL $1, R15
	ANDL BX, R15               // starters of \/
	JZ   vshsame
	NOTL R15
	ANDL DX, R15               // kept in sh
	KMOVD R15, K1
	VPCOMPRESSB.Z Y0, K1, Y6
	VMOVDQU Y6, (R11)
	POPCNTL R15, R15
	ADDQ R15, R11
	JMP  vtr
vshsame:
	ADDQ AX, R11
vtr:
	VPMOVMSKB Y5, R15
	ANDL CX, R15               // letters n r t
	JZ   vkeep
	KMOVD R15, K2
	VPSHUFB Y0, Y13, Y6
	VMOVDQU8 Y6, K2, Y0
vkeep:
	KMOVD R14, K1
	VPCOMPRESSB.Z Y0, K1, Y6
	VMOVDQU Y6, (DI)
	POPCNTL R14, R14
	ADDQ R14, DI
	ADDQ AX, SI
	CMPL AX, $32
	JEQ  vloop
	JMP  vone

vfirst:
	ADDQ DX, SI
	ADDQ DX, DI
	ADDQ DX, R11

vone:
	// The byte at SI, one escape, as decodeRunShAVX2 takes it.
	ESCAPE_ONE(vloop, vdone)

vdone:
	DECODE_RETURN
