package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// CatalogResolver is the Resolver that takes a tool result's outputSchema
// from the tool catalog (KV bucket mcp-tools, filled by tools/list results
// published on mcp.tools.put.<server> or by `sanitize-worker tools put`).
//
// For a tool result whose Mcp-Server and Mcp-Tool name a catalogued tool
// with an outputSchema, MessageInfo.OutputSchema is set and the pass
// validates and projects structuredContent against it. What happens
// otherwise:
//
//   - not a tool result, or no server or tool header: no schema;
//   - the tool is not in the catalog: no schema, unless RequireKnownTool,
//     in which case the message is rejected (SCHEMA_MISMATCH,
//     reason "unknown-tool");
//   - the catalog holds a definition that no longer compiles or parses:
//     rejected (SCHEMA_INVALID), never sanitized without its schema;
//   - the catalog cannot be read (bucket unavailable, timeout): a transient
//     error, so the durable path retries the message (then the DLQ) and the
//     inline path answers with a retryable INTERNAL error.
type CatalogResolver struct {
	Catalog *toolcat.Catalog
	// RequireKnownTool rejects tool results of tools the catalog does not
	// hold (default false: they are sanitized without a schema).
	RequireKnownTool bool
	// NoPinning leaves tools-list messages without the fleet's pins
	// (PinStore); by default a tools-list that names its server has its
	// tool definitions pinned, as policy pinning says.
	NoPinning bool
}

// errCatalogUnavailable is the transient failure; it carries no backend
// text, and wraps ErrResolverUnavailable (a bucket is unreadable during a
// leader election).
var errCatalogUnavailable = fmt.Errorf("worker: tool catalog unavailable: %w", ErrResolverUnavailable)

// Resolve implements Resolver.
func (r CatalogResolver) Resolve(ctx context.Context, info *pipeline.MessageInfo, _ nats.Header) error {
	if r.Catalog != nil && !r.NoPinning && info.Kind == pipeline.KindToolsList && info.Server != "" {
		info.Pins = PinStore(r.Catalog.Pins())
		return nil
	}
	if r.Catalog == nil || info.Kind != pipeline.KindToolResult || info.Server == "" || info.Tool == "" {
		return nil
	}
	e, err := r.Catalog.Get(ctx, info.Server, info.Tool)
	switch {
	case err == nil:
		info.OutputSchema = e.Output
		return nil
	case errors.Is(err, toolcat.ErrNotFound), errors.Is(err, toolcat.ErrName):
		// A name that cannot be a catalog key cannot be in the catalog.
		if r.RequireKnownTool {
			return &pipeline.Error{Code: pipeline.CodeSchemaMismatch, Reason: string(wire.ReasonUnknownTool)}
		}
		return nil
	case errors.Is(err, toolcat.ErrSchema), errors.Is(err, toolcat.ErrInvalid), errors.Is(err, toolcat.ErrTooLarge):
		return &pipeline.Error{Code: pipeline.CodeSchemaInvalid, Reason: string(wire.ReasonCatalogEntry)}
	default:
		return errCatalogUnavailable
	}
}
