package worker

import (
	"context"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
)

// PinStore adapts the fleet's pins (toolcat.Pins, in the mcp-tools bucket)
// to the pipeline's PinStore: CatalogResolver gives it to every tools-list
// message that names its server (Mcp-Server header or the durable
// subject), so the pass pins the definitions (docs/pinning.md).
func PinStore(p *toolcat.Pins) pipeline.PinStore { return pinStore{p} }

type pinStore struct{ p *toolcat.Pins }

// Pin implements pipeline.PinStore. A name that cannot be a key, or a
// bucket that cannot be read, is an error: the pass reports the tool as
// unverified (held under pinning: hold).
func (s pinStore) Pin(ctx context.Context, server, tool, digest string, def []byte) (pipeline.PinVerdict, error) {
	v, pinned, err := s.p.Pin(ctx, server, tool, digest, def)
	if err != nil {
		return pipeline.PinVerdict{}, err
	}
	return pipeline.PinVerdict{State: pipeline.PinState(v), Pinned: pinned}, nil
}
