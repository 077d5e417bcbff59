package schema

import (
	"encoding/binary"
	"math/bits"
	"sort"
)

// This file is the raw walk's lookup of declared property names: a node's
// properties numbered 0..n-1 and found through a small perfect hash of a
// signature of the name (sig) instead of a Go map, so ValidRaw's member loop hashes no string
// and keeps the members it met as a bitset over the numbers (the
// duplicate check and required). Built once with the schema's fast path,
// so once per schema digest (Cache).

// maxIndexedProps is the largest property set that gets an index: its
// numbers must fit the walk's 64-bit set of members met.
const maxIndexedProps = 64

// maxIndexBits bounds the table of an index (1<<maxIndexBits slots); a
// property set without a perfect hash within it keeps the Go map.
const maxIndexBits = 10

// propIndex numbers the declared property names of one node.
type propIndex struct {
	names []string // by number, sorted
	nodes []*fnode // the schema of each name
	slots []uint8  // signature hash to number+1; 0 is no name
	seed  uint64
	shift uint8
	// reqMask has the bit of every required name the node declares;
	// reqRest holds its required names it does not declare.
	reqMask uint64
	reqRest []string
}

// sig is the hashed signature of a name: its length and its first and
// last four bytes (two, one) for a name shorter than eight bytes, which
// cover all of it; else its first, middle and last eight bytes. Two names
// longer than 24 bytes that differ only between those share it, as may
// two names whose folded bytes happen to agree: the perfect hash is then
// impossible and the node keeps its map.
func sig(k []byte) uint64 {
	n := len(k)
	var x uint64
	switch {
	case n >= 8:
		x = binary.LittleEndian.Uint64(k) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(k[n-8:]), 21) ^
			bits.RotateLeft64(binary.LittleEndian.Uint64(k[(n-8)/2:]), 42)
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(k)) | uint64(binary.LittleEndian.Uint32(k[n-4:]))<<32
	case n >= 2:
		x = uint64(binary.LittleEndian.Uint16(k)) | uint64(binary.LittleEndian.Uint16(k[n-2:]))<<16
	case n == 1:
		x = uint64(k[0])
	}
	x ^= uint64(n) * 0x9E3779B97F4A7C15
	return x ^ x>>29
}

// newPropIndex returns the index of n's properties, or nil when n
// declares none, more than maxIndexedProps, or names that no seed tried
// hashes apart.
func newPropIndex(n *fnode) *propIndex {
	if len(n.props) == 0 || len(n.props) > maxIndexedProps {
		return nil
	}
	x := &propIndex{names: make([]string, 0, len(n.props))}
	for k := range n.props {
		x.names = append(x.names, k)
	}
	sort.Strings(x.names)
	for _, k := range x.names {
		x.nodes = append(x.nodes, n.props[k])
	}
	if !x.hash() {
		return nil
	}
	for _, r := range n.required {
		if i := x.findString(r); i >= 0 {
			x.reqMask |= 1 << i
		} else {
			x.reqRest = append(x.reqRest, r)
		}
	}
	return x
}

// hash looks for a seed and table size that put every name in a slot of
// its own.
func (x *propIndex) hash() bool {
	sigs := make([]uint64, len(x.names))
	seen := make(map[uint64]bool, len(x.names))
	for i, k := range x.names {
		sigs[i] = sig([]byte(k))
		if seen[sigs[i]] {
			return false // no seed separates them
		}
		seen[sigs[i]] = true
	}
	bits := 1
	for 1<<bits < 2*len(x.names) {
		bits++
	}
	// splitmix64 gives the seeds tried: odd multipliers, deterministic so
	// that one schema always gets the same index.
	state := uint64(0x9E3779B97F4A7C15)
	for ; bits <= maxIndexBits; bits++ {
		slots := make([]uint8, 1<<bits)
		shift := uint8(64 - bits)
	seeds:
		for try := 0; try < 64; try++ {
			state += 0x9E3779B97F4A7C15
			z := state
			z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
			z = (z ^ z>>27) * 0x94D049BB133111EB
			seed := (z ^ z>>31) | 1
			clear(slots)
			for i, s := range sigs {
				h := (s * seed) >> shift
				if slots[h] != 0 {
					continue seeds
				}
				slots[h] = uint8(i + 1)
			}
			x.slots, x.seed, x.shift = slots, seed, shift
			return true
		}
	}
	return false
}

// find returns the number of the declared name k, or -1.
func (x *propIndex) find(k []byte) int {
	i := int(x.slots[(sig(k)*x.seed)>>x.shift]) - 1
	if i >= 0 && x.names[i] == string(k) {
		return i
	}
	return -1
}

func (x *propIndex) findString(k string) int { return x.find([]byte(k)) }
