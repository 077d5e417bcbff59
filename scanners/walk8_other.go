//go:build !amd64

package scanners

func walk8(tp *uint16, p *byte, q int, i int, st *[8]uint32, m uint32) int {
	return walk8Go(tp, p, q, i, st, m)
}

const haveWalk8 = false

func warm8(tp *uint16, p *byte, q int, back int, st *[8]uint32) { warm8Go(tp, p, q, back, st) }
