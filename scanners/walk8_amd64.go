package scanners

// walk8 is written in assembly (walk8_amd64.s); walk8Go is its
// specification.
//
//go:noescape
func walk8(tp *uint16, p *byte, q int, i int, st *[8]uint32, m uint32) int

// haveWalk8 reports whether walk8 is the assembly kernel (not with
// MCP_SANITIZE_KERNELS=go).
var haveWalk8 = kernelChoice != "go"

// warm8 is warm8Go (automaton.go) in assembly.
//
//go:noescape
func warm8(tp *uint16, p *byte, q int, back int, st *[8]uint32)
