package worker

import "github.com/mcp-sanitize/mcp-sanitize/pipeline"

// WithFraming sets the framing of messages that carry no Mcp-Framing
// header: how this deployment's producers frame their bodies (bare results
// or JSON-RPC messages), so that the transport and not the body says what
// a body is (docs/pipeline.md, "Framing"). The default is
// pipeline.FramingAuto. A message's own header still wins.
func WithFraming(f pipeline.Framing) ServeOption {
	return func(c *serveConfig) error {
		if _, ok := pipeline.ParseFraming(string(f)); !ok {
			return optErr("unknown framing " + string(f))
		}
		c.framing = f
		return nil
	}
}

// framingFor is the framing of a message whose Mcp-Framing header is h.
func (c *serveConfig) framingFor(h string) pipeline.Framing {
	if h == "" {
		return c.framing
	}
	return pipeline.Framing(h)
}
