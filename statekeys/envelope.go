package statekeys

import (
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// envelopeMaxDepth is the nesting limit of a request envelope: the
// arguments and input requests it carries may nest jcs.DefaultMaxDepth
// deep, one and two levels below the envelope's own objects.
const envelopeMaxDepth = jcs.DefaultMaxDepth + 2

// DecodeEnvelope decodes one request envelope, a seal or verify request as
// a transport carries it (package worker's mcp.state.seal and
// mcp.state.verify payloads), into v, a pointer to the envelope's struct.
// The text is read as strict I-JSON with exact member names
// (strictjson.Unmarshal): one spelling of an envelope means one binding,
// so invalid UTF-8 and lone surrogates (which a lenient decoder turns into
// U+FFFD, so that two subjects would bind the same), a repeated member
// (which a lenient decoder resolves as last wins) and a member in another
// letter case or unknown are refused. The error is an *Error with
// CodeInvalidRequest and ReasonRequestInvalidUTF8, ReasonRequestDuplicate,
// ReasonRequestUnknown or, for anything else (not JSON, trailing data, a
// value of the wrong type, too deep, a number beyond a double),
// ReasonRequestMalformed. Like every error of this package it carries no
// part of the input; the caller caps the size.
func DecodeEnvelope(data []byte, v any) error {
	err := strictjson.Unmarshal(data, envelopeMaxDepth, v)
	if err == nil {
		return nil
	}
	var se *strictjson.Error
	if !errors.As(err, &se) {
		return invalidRequest(ReasonRequestMalformed)
	}
	switch se.Reason {
	case strictjson.UTF8, strictjson.Surrogate:
		return invalidRequest(ReasonRequestInvalidUTF8)
	case strictjson.DuplicateKey:
		return invalidRequest(ReasonRequestDuplicate)
	case strictjson.UnknownMember:
		return invalidRequest(ReasonRequestUnknown)
	}
	return invalidRequest(ReasonRequestMalformed)
}
