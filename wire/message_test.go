package wire_test

import (
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Public messages as the pipeline wrote them before the vocabulary moved to wire;
// replies must stay byte-identical.
var wantPublic = map[wire.Code]string{
	wire.CodeInvalidJSON:                  "The tool returned malformed output (not valid JSON, or an object with a member name twice), so it was withheld.",
	wire.CodeBoundExceeded:                "The tool output exceeded a safety limit, so it was withheld. Narrow the request (a smaller range, a filter, fewer fields or a page size) and call the tool again.",
	wire.CodeTimeout:                      "Sanitizing the tool output took too long, so it was withheld. Narrow the request and call the tool again.",
	wire.CodeInvalidContent:               "The tool returned content that is not allowed (not a result object, malformed binary data or a disallowed media type), so the output was withheld.",
	wire.CodeInvalidEncoding:              "The tool output arrived in an encoding that could not be decoded (corrupt or unsupported compression, or a missing stored payload), so it was withheld.",
	wire.CodeSchemaMismatch:               "The tool returned structured output that does not match its declared output schema, so it was withheld. Call the tool again; if this keeps happening, the tool is broken and another approach is needed.",
	wire.CodeSchemaMismatchAfterRedaction: "The tool's structured output no longer matched its declared output schema once sensitive data was removed, so it was withheld. Narrow the request to leave out fields that may hold secrets, or use another approach.",
	wire.CodeSchemaInvalid:                "The tool declares an output schema that cannot be used, so its output was withheld.",
	wire.CodeToolError:                    "The tool failed. Check the arguments and try again, or use another approach.",
	wire.CodeInternal:                     "The tool output could not be sanitized, so it was withheld.",
	wire.CodeOutputTruncated:              "The tool output could not be sanitized, so it was withheld.",
}

// The tool catalog's reply texts, as toolcat wrote them.
var wantTools = map[wire.Code]string{
	wire.CodeToolsInvalid:     "invalid tools/list result",
	wire.CodeToolsName:        "invalid server or tool name",
	wire.CodeToolsSchema:      "tool schema missing or not compilable",
	wire.CodeToolsTooLarge:    "tools/list result exceeds the limits",
	wire.CodeToolsNotFound:    "tool not in the catalog",
	wire.CodeToolsUnavailable: "tool catalog unavailable",
}

// TestPublicMessagesUnchanged: the text of every reply is what it was when
// each package held its own table.
func TestPublicMessagesUnchanged(t *testing.T) {
	for c, want := range wantPublic {
		if got := c.PublicMessage(); got != want {
			t.Errorf("%s.PublicMessage() = %q, want %q", c, got, want)
		}
	}
	for c, want := range wantTools {
		if got, ok := wire.LookupPublicMessage(c); !ok || got != want {
			t.Errorf("LookupPublicMessage(%s) = %q, %v, want %q", c, got, ok, want)
		}
	}
}
