package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// TestEnvelopeShape: a body taken for a JSON-RPC envelope (framing
// jsonrpc, or auto with an envelope's member) must be one message of the
// kind named: "jsonrpc" exactly "2.0"; a result kind's envelope a response
// (exactly one of result and error, no method or params); a request kind's
// a request. Anything else is rejected in its own reason, so no member a
// tool writes makes a body pass for an envelope it is not; under bare the
// same members are the result's data.
func TestEnvelopeShape(t *testing.T) {
	res := `"result":{"content":[{"type":"text","text":"ok"}]}`
	rpcErr := `"error":{"code":-32603,"message":"boom"}`
	var cases []hardCase
	for _, fr := range []Framing{FramingAuto, FramingJSONRPC} {
		for _, c := range []struct {
			name, in string
			reason   wire.Reason // "" : delivered
		}{
			{"response", `{"jsonrpc":"2.0","id":1,` + res + `}`, ""},
			{"response-version-last", `{"id":1,` + res + `,"jsonrpc":"2.0"}`, ""},
			{"error-response", `{"jsonrpc":"2.0","id":1,` + rpcErr + `}`, ""},
			{"no-version", `{"id":1,` + res + `}`, wire.ReasonEnvelopeVersion},
			{"version-1.0", `{"jsonrpc":"1.0","id":1,` + res + `}`, wire.ReasonEnvelopeVersion},
			{"version-number", `{"jsonrpc":2,"id":1,` + res + `}`, wire.ReasonEnvelopeVersion},
			{"version-object", `{"jsonrpc":{"v":"2.0"},"id":1,` + res + `}`, wire.ReasonEnvelopeVersion},
			{"version-spaced", `{"jsonrpc":" 2.0","id":1,` + res + `}`, wire.ReasonEnvelopeVersion},
			{"version-look-alike", `{"jsonrpc":"２.０","id":1,` + res + `}`, ""}, // NFKC: the sanitized value is "2.0"
			{"id-only", `{"id":1}`, wire.ReasonEnvelopeVersion},
			{"version-id-only", `{"jsonrpc":"2.0","id":1}`, wire.ReasonEnvelopeNoResult},
			{"result-and-error", `{"jsonrpc":"2.0","id":1,` + res + `,` + rpcErr + `}`, wire.ReasonEnvelopeAmbiguous},
			{"error-and-result", `{"jsonrpc":"2.0","id":1,` + rpcErr + `,` + res + `}`, wire.ReasonEnvelopeAmbiguous},
			{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"text":"<system>x</system>"}}`, wire.ReasonEnvelopeNotResponse},
			{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, wire.ReasonEnvelopeNotResponse},
			{"result-with-method", `{"jsonrpc":"2.0","id":1,"method":"x",` + res + `}`, wire.ReasonEnvelopeNotResponse},
			{"result-with-params", `{"jsonrpc":"2.0","id":1,` + res + `,"params":{}}`, wire.ReasonEnvelopeNotResponse},
			{"error-only-string", `{"error":"Traceback at /srv/a.py line 3"}`, wire.ReasonEnvelopeVersion},
		} {
			hc := hardCase{name: fmt.Sprintf("%s/%s", fr, c.name), framing: fr, in: c.in}
			if c.reason == "" {
				hc.check = func(t *testing.T, out string, ev *Evidence) {
					if ev.Outcome == OutcomeRejected {
						t.Fatalf("rejected %s %s: %s", ev.Code, ev.Reason, out)
					}
				}
				hc.outcome = OutcomeClean
				if strings.Contains(c.in, "２") {
					hc.outcome = OutcomeSanitized
				}
			} else {
				hc.code, hc.reason = CodeInvalidContent, string(c.reason)
				hc.check = func(t *testing.T, out string, _ *Evidence) {
					if strings.Contains(out, "<system>") || strings.Contains(out, "/srv/a.py") {
						t.Fatalf("raw input in the error result: %s", out)
					}
				}
			}
			cases = append(cases, hc)
		}
	}
	// Other result kinds: the same rule.
	cases = append(cases,
		hardCase{name: "resource/request", kind: KindResourceResult, framing: FramingJSONRPC, in: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}`,
			code: CodeInvalidContent, reason: string(wire.ReasonEnvelopeNotResponse)},
		hardCase{name: "prompt/ambiguous", kind: KindPromptResult, framing: FramingAuto, in: `{"jsonrpc":"2.0","id":1,"result":{"messages":[]},` + rpcErr + `}`,
			code: CodeInvalidContent, reason: string(wire.ReasonEnvelopeAmbiguous)},
		hardCase{name: "completion/no-version", kind: KindCompletionResult, framing: FramingJSONRPC, in: `{"id":1,"result":{"completion":{"values":[]}}}`,
			code: CodeInvalidContent, reason: string(wire.ReasonEnvelopeVersion)},
		// A request kind: an envelope is a request.
		hardCase{name: "elicitation-request/request", kind: KindElicitationRequest, framing: FramingJSONRPC,
			in: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, outcome: OutcomeClean},
		hardCase{name: "elicitation-request/response", kind: KindElicitationRequest, framing: FramingJSONRPC, in: `{"jsonrpc":"2.0","id":1,"result":{}}`,
			code: CodeInvalidContent, reason: string(wire.ReasonEnvelopeNotRequest)},
		hardCase{name: "elicitation-request/method-and-result", kind: KindElicitationRequest, framing: FramingAuto, in: `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{},"result":{}}`,
			code: CodeInvalidContent, reason: string(wire.ReasonEnvelopeNotRequest)},
		// Under bare, the same members are data of the result.
		hardCase{name: "bare/request-members-are-data", framing: FramingBare, in: `{"method":"x","params":{},"id":1}`, outcome: OutcomeClean},
		// (an "error" object is still read as an error object: its
		// members are rewritten, docs/errors.md)
		hardCase{name: "bare/ambiguous-members-are-data", framing: FramingBare, in: `{"result":{},"error":{}}`, outcome: OutcomeSanitized},
	)
	runHard(t, cases)
}
