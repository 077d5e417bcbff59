package payload_test

import (
	"github.com/mcp-sanitize/mcp-sanitize/payload"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// A Sink is what the pipeline writes to. The check lives in a test so that
// package payload (and a client that imports it) need not import the engine.
var (
	_ pipeline.Output       = (*payload.Sink)(nil)
	_ pipeline.AppendOutput = (*payload.Sink)(nil)
)
