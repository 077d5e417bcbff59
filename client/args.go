package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// ArgsCodeValid is the Mcp-Code of a "valid" answer of the argument gate.
const ArgsCodeValid = "ARGS_VALID"

// ArgsResult is the argument gate's answer for one tools/call.
type ArgsResult struct {
	// Valid: the arguments conform to the tool's inputSchema; run the tool.
	Valid bool
	// Code is the gate's stable code (ARGS_VALID, ARGS_MISSING, ARGS_TYPE,
	// ARGS_UNKNOWN_PROPERTY, ARGS_UNKNOWN_TOOL, ... see docs/schema.md).
	Code string
	// ToolError is, when not Valid, the tool execution error (a
	// CallToolResult with isError true) to return to the model instead of
	// running the tool: it names the tool, the parameter, the expected shape
	// and a corrected example call, with echoed values bounded and redacted.
	ToolError []byte
}

// ErrArgsReply: the gate's reply was neither {"valid":true} nor a coded
// tool execution error.
var ErrArgsReply = errors.New("client: malformed argument gate reply")

// ValidateArgs asks the fleet (mcp.args.validate) whether args (the
// arguments object of a tools/call, or the whole tools/call request) are
// valid for md.Tool of md.Server, before the tool runs. The schema comes
// from the tool catalog the workers share. The call is bounded by the
// tool's timeout (ToolTimeout(md.Tool)); errors are for the transport
// (ErrNoWorkers, *TimeoutError, ErrMetadata, ErrArgsReply), never for
// invalid arguments, which are an ArgsResult with Valid false.
func (c *Client) ValidateArgs(ctx context.Context, args []byte, md Metadata) (*ArgsResult, error) {
	if md.Tool == "" || wire.CheckToken(md.Server) != nil {
		return nil, fmt.Errorf("%w: ValidateArgs needs a tool and a valid server", ErrMetadata)
	}
	timeout := c.ToolTimeout(md.Tool)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := nats.NewMsg(wire.SubjectArgsValidate)
	if err := setMetadata(req.Header, md); err != nil {
		return nil, err
	}
	req.Data = args
	reply, err := c.nc.RequestMsgWithContext(cctx, req)
	if err != nil {
		return nil, c.mapErr(ctx, cctx, md.Tool, timeout, err)
	}
	code := reply.Header.Get(wire.HeaderCode)
	switch {
	case code == ArgsCodeValid:
		return &ArgsResult{Valid: true, Code: code}, nil
	case code == "" || len(reply.Data) == 0:
		return nil, ErrArgsReply
	}
	return &ArgsResult{Code: code, ToolError: reply.Data}, nil
}
