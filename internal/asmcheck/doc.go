// Package asmcheck checks the encoding of the project's amd64 vector
// kernels, for the tests of the packages that have them (scanners,
// pipeline).
//
// The rule it enforces (docs/kernels.md, "The encoding rule"): a kernel
// that uses AVX or AVX-512 registers uses no legacy-SSE (non-VEX)
// instruction, and runs VZEROUPPER after its last use of a Y or Z register
// before it returns or calls. A legacy-SSE instruction between VEX ones
// costs a state transition or a false dependency on the upper halves on
// many CPUs (on AMD Zen 3 a 64-byte call of one kernel took 515 ns instead
// of 10 ns).
//
// Two checks: Source reads an assembly file, expands its #define macros
// and reports every instruction of a vector TEXT block (one that names a Y,
// Z or K register) that names an X register with a mnemonic that is not a
// VEX or EVEX one, and every RET or CALL reached with the upper state
// dirty. Object disassembles the functions of a built binary (go tool
// objdump) and reports every instruction naming an X, Y, Z or K register
// whose encoding does not start with a VEX (C4, C5) or EVEX (62) prefix.
//
// It owns no kernel and changes nothing; it only reads files and runs go
// tool objdump.
package asmcheck
