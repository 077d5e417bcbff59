package pipeline

import "fmt"

// BlockJoinBytesLimit is the id, in Policy.Limits, of the bound on the
// output a pass holds between two adjacent text blocks of a tool result
// while it reads them as one text (blockjoin.go, docs/pipeline.md "Text
// across blocks"): the rest of the first block's members, the second
// block's members before its text, their labels. When the output held
// there crosses the limit, the first text is finished alone and the two
// are not joined. 0 turns the join off.
const BlockJoinBytesLimit = "block-join-bytes"

// DefaultBlockJoinBytes is the default of the block-join-bytes limit:
// room for the members, annotations and _meta of two blocks many times
// over, small enough that holding it costs nothing.
const DefaultBlockJoinBytes = 16 << 10

// maxBlockJoinBytes is the largest block-join-bytes a policy may set.
const maxBlockJoinBytes = 1 << 20

// blockJoinBytes returns the block-join-bytes limit.
func (p *Policy) blockJoinBytes() (int64, error) {
	v, ok := p.Limits[BlockJoinBytesLimit]
	if !ok {
		return DefaultBlockJoinBytes, nil
	}
	if v < 0 || v > maxBlockJoinBytes {
		return 0, fmt.Errorf("%w: limits: %s must be between 0 and %d", ErrPolicy, BlockJoinBytesLimit, maxBlockJoinBytes)
	}
	return v, nil
}
