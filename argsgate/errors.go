package argsgate

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// ErrUnknownTool is what a lookup function returns (or wraps) for a tool
// that has no known inputSchema; other lookup errors mean the catalog is
// unavailable.
var ErrUnknownTool = errors.New("argsgate: unknown tool")

// Code is a stable code of a rejected call (declared in package wire).
// Codes never change meaning.
type Code = wire.Code

// Stable codes, under their argsgate names; wire documents each.
const (
	CodeValid           = wire.CodeArgsValid
	CodeMalformed       = wire.CodeArgsMalformed
	CodeMissing         = wire.CodeArgsMissing
	CodeType            = wire.CodeArgsType
	CodeUnknownProperty = wire.CodeArgsUnknownProperty
	CodeInvalid         = wire.CodeArgsInvalid
	CodeSchemaUnusable  = wire.CodeArgsSchemaUnusable
	CodeUnknownTool     = wire.CodeArgsUnknownTool
	CodeUnavailable     = wire.CodeArgsUnavailable
)
