package proxy

import (
	"context"
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/client"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Fleet is the Sanitizer that runs each pass in the sanitize-worker fleet:
// request/reply on mcp.sanitize.<kind> (the inline path), with the body
// framed as JSON-RPC (Mcp-Framing). The per-call timeout is the client's
// (client.WithTimeout), within the proxy's own (Options.Timeout). No
// responders fails the message closed with INTERNAL / no-workers, an
// expired call with TIMEOUT / deadline, any other transport failure with
// INTERNAL / fleet-error. Evidence is the worker's to publish: Result has
// none.
type Fleet struct {
	C *client.Client
	// Guard names the principal and scopes sent with a guarded result
	// (Mcp-Principal, Mcp-Scopes, with the request's Mcp-Request-Params);
	// the workers hold the hooks, so its Authorizer and Budget are unused.
	Guard *GuardContext
}

// Sanitize runs one pass in the fleet.
func (f Fleet) Sanitize(ctx context.Context, kind wire.Kind, msg []byte, md Meta) (*Result, error) {
	res, err := f.C.Sanitize(ctx, kind, msg, client.Metadata{
		Tool: md.Tool, Server: md.Server, Tenant: md.Tenant, RequestID: md.RequestID,
		Framing:   wire.FramingJSONRPC,
		Principal: f.principal(), Scopes: f.scopes(), RequestParams: string(md.Request),
	})
	if err != nil {
		var te *client.TimeoutError
		switch {
		case errors.Is(err, client.ErrNoWorkers):
			return nil, &FleetError{Code: wire.CodeInternal, Reason: wire.ReasonNoWorkers}
		case errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded):
			return nil, &FleetError{Code: wire.CodeTimeout, Reason: wire.ReasonDeadline}
		}
		return nil, &FleetError{Code: wire.CodeInternal, Reason: wire.ReasonFleetError}
	}
	switch res.Outcome {
	case wire.OutcomeClean, wire.OutcomeSanitized, wire.OutcomeTruncated, wire.OutcomeRejected:
	default:
		// A reply without a known outcome is not one the proxy can trust.
		return nil, &FleetError{Code: wire.CodeInternal, Reason: wire.ReasonFleetError}
	}
	return &Result{Body: res.Body, Outcome: res.Outcome, Code: res.Code}, nil
}
