package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// TestStateCommandOneSpelling measures class 11 of the hardening issue
// against the command over NATS: one state has one spelling (a token with
// CR or LF inserted does not open, so it has no second stateDigest), and
// an envelope has one reading (invalid UTF-8, lone surrogates, duplicate
// members, members in another letter case and unknown members are
// refused with their own reason; the public reply is the fixed one).
func TestStateCommandOneSpelling(t *testing.T) {
	p, nc, evidence := startFormStateCmd(t)
	s := cmdSeal(t, nc)
	// cmdSeal's evidence.
	if _, err := evidence.NextMsg(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	tok := s.RequestState
	mid := len(tok) / 2
	const (
		id = `"identity":{"subject":"user-123","tenant":"acme","clientId":"client-abc"}`
		op = `"operation":{"method":"tools/call","name":"book_meeting","arguments":{"room":"A"}}`
	)
	verifyWith := func(token string) string {
		b, _ := json.Marshal(token)
		return `{"requestState":` + string(b) + `,` + id + `,` + op + `}`
	}
	tests := []struct {
		name, subject, body string
		code                statekeys.Code
		reason              statekeys.Reason
	}{
		// Tokens: other spellings of the sealed state.
		{"token-lf", worker.SubjectStateVerify, verifyWith(tok[:mid] + "\n" + tok[mid:]), statekeys.CodeRejected, statekeys.ReasonTokenAlphabet},
		{"token-cr", worker.SubjectStateVerify, verifyWith(tok[:mid] + "\r" + tok[mid:]), statekeys.CodeRejected, statekeys.ReasonTokenAlphabet},
		{"token-crlf-at-end", worker.SubjectStateVerify, verifyWith(tok + "\r\n"), statekeys.CodeRejected, statekeys.ReasonTokenAlphabet},
		{"token-lf-escaped", worker.SubjectStateVerify, `{"requestState":"` + tok[:mid] + `\u000a` + tok[mid:] + `",` + id + `,` + op + `}`, statekeys.CodeRejected, statekeys.ReasonTokenAlphabet},
		{"token-padding", worker.SubjectStateVerify, verifyWith(tok + "=="), statekeys.CodeRejected, statekeys.ReasonTokenAlphabet},
		// Envelopes: invalid UTF-8 would become U+FFFD, so two subjects
		// that differ only in it would bind the same.
		{"seal-subject-invalid-utf8", worker.SubjectStateSeal, "{\"identity\":{\"subject\":\"user-\xff\",\"tenant\":\"acme\",\"clientId\":\"client-abc\"}," + op + "}", statekeys.CodeInvalidRequest, statekeys.ReasonRequestInvalidUTF8},
		{"verify-subject-invalid-utf8", worker.SubjectStateVerify, "{\"requestState\":\"" + tok + "\",\"identity\":{\"subject\":\"user-123\xfe\",\"tenant\":\"acme\",\"clientId\":\"client-abc\"}," + op + "}", statekeys.CodeInvalidRequest, statekeys.ReasonRequestInvalidUTF8},
		{"seal-name-invalid-utf8", worker.SubjectStateSeal, "{" + id + ",\"operation\":{\"method\":\"tools/call\",\"name\":\"book\xc3\",\"arguments\":{}}}", statekeys.CodeInvalidRequest, statekeys.ReasonRequestInvalidUTF8},
		{"seal-lone-surrogate", worker.SubjectStateSeal, `{"identity":{"subject":"user-\udc00","tenant":"acme","clientId":"client-abc"},` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestInvalidUTF8},
		{"seal-duplicate-subject", worker.SubjectStateSeal, `{"identity":{"subject":"mallory","subject":"user-123","tenant":"acme","clientId":"client-abc"},` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestDuplicate},
		{"verify-duplicate-token", worker.SubjectStateVerify, `{"requestState":"x","requestState":"` + tok + `",` + id + `,` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestDuplicate},
		{"seal-duplicate-operation", worker.SubjectStateSeal, `{` + id + `,` + op + `,` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestDuplicate},
		{"seal-other-case", worker.SubjectStateSeal, `{"Identity":{"subject":"user-123","tenant":"acme","clientId":"client-abc"},` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestUnknown},
		{"seal-other-case-nested", worker.SubjectStateSeal, `{"identity":{"subject":"user-123","tenant":"acme","clientID":"client-abc"},` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestUnknown},
		{"verify-other-case-token", worker.SubjectStateVerify, `{"RequestState":"` + tok + `",` + id + `,` + op + `}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestUnknown},
		{"verify-unknown-member", worker.SubjectStateVerify, `{"requestState":"` + tok + `",` + id + `,` + op + `,"note":1}`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestUnknown},
		{"seal-not-json", worker.SubjectStateSeal, `{"identity":`, statekeys.CodeInvalidRequest, statekeys.ReasonRequestMalformed},
	}
	digests := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ev := stateExchange(t, nc, evidence, tt.subject, []byte(tt.body))
			if r.OK || r.Error == nil || r.Error.Code != string(tt.code) || r.Error.Message != statekeys.PublicMessage(tt.code) {
				t.Fatalf("reply %+v", r)
			}
			if ev.Decision != statekeys.DecisionReject || ev.Reason != string(tt.reason) || ev.Code != string(tt.code) {
				t.Fatalf("evidence %+v, want reason %s", ev, tt.reason)
			}
			if ev.StateDigest != "" {
				digests[ev.StateDigest] = true
			}
		})
	}
	// The state still verifies (no rejected spelling burned its flow), and
	// its one digest is none of the rejected spellings'.
	r, ev := stateExchange(t, nc, evidence, worker.SubjectStateVerify, []byte(verifyWith(tok)))
	d := sha256.Sum256([]byte(tok))
	if !r.OK || ev.StateDigest != hex.EncodeToString(d[:]) || digests[ev.StateDigest] {
		t.Fatalf("the sealed spelling: %+v %+v", r, ev)
	}
	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	if strings.Contains(p.log.String(), tok) {
		t.Fatal("the log holds the token")
	}
}
