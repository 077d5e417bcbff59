package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// Fixtures of the form elicitation tests: one reviewer, one form schema,
// a policy covering it.

var formReviewer = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{11}, ed25519.SeedSize))

const (
	formReviewerID = "reviewer-cmd"
	formSchema     = `{"type":"object","properties":{"name":{"type":"string","maxLength":100},"email":{"type":"string","format":"email"}},"required":["name"]}`
	// formSchemaChanged differs from formSchema in one bound.
	formSchemaChanged = `{"type":"object","properties":{"name":{"type":"string","maxLength":101},"email":{"type":"string","format":"email"}},"required":["name"]}`
)

func formSchemaDigest(t *testing.T, schema string) string {
	t.Helper()
	c, err := jcs.Canonicalize([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(c)
	return hex.EncodeToString(d[:])
}

// formPolicy returns a form policy signed by key that covers formSchema.
func formPolicy(t *testing.T, key ed25519.PrivateKey) statekeys.SignedFormPolicy {
	t.Helper()
	p := elicit.FormPolicy{Version: elicit.FormPolicyVersion, PolicyID: "pol-cmd", Forms: map[string]elicit.FormRule{
		"contact": {
			SchemaSHA256: formSchemaDigest(t, formSchema), ExpiresAt: time.Now().Add(24 * time.Hour).UTC(), MaxResponseBytes: 512,
			Fields: map[string]elicit.FieldRule{
				"name":  {DataClass: "contact_name", Purpose: "address the confirmation"},
				"email": {DataClass: "contact_email", Purpose: "send the confirmation"},
			},
		},
	}}
	doc, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := elicit.SignFormPolicy(key, formReviewerID, doc)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// writeFormConfig writes the policy keys document (trusting formReviewer)
// and, with policies, the form policies document; it returns their paths.
func writeFormConfig(t *testing.T, dir string, policies ...statekeys.SignedFormPolicy) (keysPath, policiesPath string) {
	t.Helper()
	kb, err := elicit.MarshalPolicyKeys(map[string]ed25519.PublicKey{formReviewerID: formReviewer.Public().(ed25519.PublicKey)})
	if err != nil {
		t.Fatal(err)
	}
	keysPath = filepath.Join(dir, "policy-keys.json")
	if err := os.WriteFile(keysPath, kb, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(policies) == 0 {
		return keysPath, ""
	}
	pb, err := elicit.MarshalFormPolicies(policies...)
	if err != nil {
		t.Fatal(err)
	}
	policiesPath = filepath.Join(dir, "form-policies.json")
	if err := os.WriteFile(policiesPath, pb, 0o600); err != nil {
		t.Fatal(err)
	}
	return keysPath, policiesPath
}

func formInputRequests(schema string) json.RawMessage {
	return json.RawMessage(`{"contact":{"method":"elicitation/create","params":{"mode":"form","message":"How can we reach you?","requestedSchema":` + schema + `}}}`)
}

// rawStateReply is a seal or verify reply with everything it can hold.
type rawStateReply struct {
	OK             bool                               `json:"ok"`
	RequestState   string                             `json:"requestState"`
	FlowID         string                             `json:"flowId"`
	InputResponses map[string]statekeys.InputResponse `json:"inputResponses"`
	Error          *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// stateEvidence is one evidence record of the state service.
type stateEvidence struct {
	Kind        string `json:"kind"`
	Rule        string `json:"rule"`
	Action      string `json:"action"`
	Decision    string `json:"decision"`
	Code        string `json:"code"`
	Reason      string `json:"reason"`
	StateDigest string `json:"stateDigest"`
	Inputs      []struct {
		Key          string `json:"key"`
		Kind         string `json:"kind"`
		SchemaDigest string `json:"schemaDigest"`
		Action       string `json:"action"`
	} `json:"inputs"`
}

// stateExchange sends body on subject and returns the reply and the one
// evidence record it published (on every tenant's subject, evidence).
func stateExchange(t *testing.T, nc *nats.Conn, evidence *nats.Subscription, subject string, body []byte) (rawStateReply, stateEvidence) {
	t.Helper()
	m, err := nc.Request(subject, body, 5*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", subject, err)
	}
	var r rawStateReply
	if err := json.Unmarshal(m.Data, &r); err != nil {
		t.Fatalf("%s reply %s: %v", subject, m.Data, err)
	}
	em, err := evidence.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("evidence of %s: %v", subject, err)
	}
	var ev stateEvidence
	if err := json.Unmarshal(em.Data, &ev); err != nil || ev.Kind != "statekeys" {
		t.Fatalf("evidence %s: %v", em.Data, err)
	}
	return r, ev
}

func jsonBody(t *testing.T, v map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startFormStateCmd starts the state command on an embedded server with a
// fresh key ring and the extra flags, and connects to it with a
// subscription on all evidence.
func startFormStateCmd(t *testing.T, extra ...string) (*stateProc, *nats.Conn, *nats.Subscription) {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "statekeys.json")
	if code, _, stderr := keysCmd(t, "new", "--file", keyFile); code != exitOK {
		t.Fatalf("keys new: %s", stderr)
	}
	args := append([]string{"--embedded-dir", filepath.Join(dir, "nats"), "--embedded-port", "-1", "--keys", keyFile}, extra...)
	p := startStateCmd(t, map[string]string{}, args...)
	nc := stateConnect(t, p.url)
	evidence, err := nc.SubscribeSync(worker.DefaultStateEvidencePrefix + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return p, nc, evidence
}

// TestStateCommandFormElicitation seals a form-mode elicitation through
// the command (reviewer keys and an installed policy from --policy-keys
// and --form-policies) over an embedded NATS server, and checks that the
// state binds the form schema: the sealed schema digest is in the
// evidence, the response is validated against the schema, a retry that
// presents another schema or a tampered token is rejected, and neither
// burns the flow.
func TestStateCommandFormElicitation(t *testing.T) {
	keysPath, policiesPath := writeFormConfig(t, t.TempDir(), formPolicy(t, formReviewer))
	p, nc, evidence := startFormStateCmd(t, "--policy-keys", keysPath, "--form-policies", policiesPath)
	if rec := p.log.find(t, "form elicitation configured", nil); rec == nil ||
		!strings.Contains(jsonString(rec["reviewers"]), formReviewerID) || !strings.Contains(jsonString(rec["forms"]), "pol-cmd/contact") {
		t.Fatalf("no form elicitation record: %s", p.log.String())
	}
	digest := formSchemaDigest(t, formSchema)
	seal := func() rawStateReply {
		t.Helper()
		r, ev := stateExchange(t, nc, evidence, worker.SubjectStateSeal, jsonBody(t, map[string]any{
			"identity": cmdIdentity, "operation": cmdOperation, "inputRequests": formInputRequests(formSchema), "ttlSeconds": 120,
		}))
		if !r.OK || r.RequestState == "" {
			t.Fatalf("seal refused: %+v, evidence %+v", r, ev)
		}
		if ev.Rule != statekeys.RuleForm || ev.Decision != statekeys.DecisionAccept || len(ev.Inputs) != 1 ||
			ev.Inputs[0].Kind != "form" || ev.Inputs[0].SchemaDigest != digest {
			t.Fatalf("seal evidence %+v, want the form schema digest %s", ev, digest)
		}
		return r
	}
	verifyBody := func(token, schema, content string) []byte {
		return jsonBody(t, map[string]any{
			"requestState": token, "identity": cmdIdentity, "operation": cmdOperation,
			"inputRequests":  formInputRequests(schema),
			"inputResponses": json.RawMessage(`{"contact":{"action":"accept","content":` + content + `}}`),
		})
	}
	const ada = `{"name":"Ada","email":"ada@example.com"}`

	// The round trip: the response comes back validated and canonical.
	s := seal()
	r, ev := stateExchange(t, nc, evidence, worker.SubjectStateVerify, verifyBody(s.RequestState, formSchema, ada))
	if !r.OK || r.InputResponses["contact"].Kind != "form" || r.InputResponses["contact"].Action != "accept" ||
		string(r.InputResponses["contact"].Content) != `{"email":"ada@example.com","name":"Ada"}` {
		t.Fatalf("verify: %+v, evidence %+v", r, ev)
	}
	if ev.Decision != statekeys.DecisionAccept || len(ev.Inputs) != 1 || ev.Inputs[0].SchemaDigest != digest || ev.Inputs[0].Action != "accept" {
		t.Fatalf("verify evidence %+v", ev)
	}

	// The binding: each of these is rejected with the one public error.
	s = seal()
	tok := s.RequestState
	mid := len(tok) - 40
	flipped := []byte(tok)
	flipped[mid] ^= 'A' ^ 'B'
	if flipped[mid] == tok[mid] {
		t.Fatal("no change")
	}
	tests := []struct {
		name, token, schema, content string
		reason                       statekeys.Reason
	}{
		{"other-schema", tok, formSchemaChanged, ada, statekeys.ReasonSchemaChanged},
		{"response-outside-schema", tok, formSchema, `{"name":"Ada","phone":"555"}`, statekeys.ReasonResponseSchema},
		{"response-too-long-for-schema", tok, formSchema, `{"name":"` + strings.Repeat("a", 101) + `"}`, statekeys.ReasonResponseSchema},
		{"token-substituted", string(flipped), formSchema, ada, ""},
		{"token-lf-inserted", tok[:mid] + "\n" + tok[mid:], formSchema, ada, statekeys.ReasonTokenAlphabet},
		{"token-char-inserted", tok[:mid] + "A" + tok[mid:], formSchema, ada, ""},
		{"token-char-deleted", tok[:mid] + tok[mid+1:], formSchema, ada, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ev := stateExchange(t, nc, evidence, worker.SubjectStateVerify, verifyBody(tt.token, tt.schema, tt.content))
			if r.OK || r.Error == nil || r.Error.Code != string(statekeys.CodeRejected) || r.Error.Message != "request state rejected" {
				t.Fatalf("reply %+v", r)
			}
			if ev.Decision != statekeys.DecisionReject || ev.Reason == "" || tt.reason != "" && ev.Reason != string(tt.reason) {
				t.Fatalf("evidence %+v, want reason %q", ev, tt.reason)
			}
		})
	}
	// None of the rejected retries burned the flow.
	if r, ev := stateExchange(t, nc, evidence, worker.SubjectStateVerify, verifyBody(tok, formSchema, ada)); !r.OK {
		t.Fatalf("the untampered retry after the rejected ones: %+v %+v", r, ev)
	}

	// A form the installed policy does not cover is refused at seal time.
	r, ev = stateExchange(t, nc, evidence, worker.SubjectStateSeal, jsonBody(t, map[string]any{
		"identity": cmdIdentity, "operation": cmdOperation, "inputRequests": formInputRequests(formSchemaChanged),
	}))
	if r.OK || r.Error == nil || r.Error.Code != string(statekeys.CodeFormRefused) || ev.Reason != string(statekeys.ReasonFormNotCovered) {
		t.Fatalf("uncovered form: %+v, evidence %+v", r, ev)
	}
	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit code %d: %s", code, p.log.String())
	}
	assertNotLogged(t, p.log, "a token", tok, s.FlowID)
}

// With --policy-keys only, a seal request must bring its own policy signed
// by a trusted reviewer; without any, every form is refused.
func TestStateCommandFormPolicyInRequest(t *testing.T) {
	keysPath, _ := writeFormConfig(t, t.TempDir())
	own := formPolicy(t, formReviewer)
	other := formPolicy(t, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{12}, ed25519.SeedSize)))
	sealBody := func(policy *statekeys.SignedFormPolicy) []byte {
		m := map[string]any{"identity": cmdIdentity, "operation": cmdOperation, "inputRequests": formInputRequests(formSchema)}
		if policy != nil {
			m["formPolicy"] = policy
		}
		return jsonBody(t, m)
	}

	p, nc, evidence := startFormStateCmd(t, "--policy-keys", keysPath)
	tests := []struct {
		name   string
		policy *statekeys.SignedFormPolicy
		code   statekeys.Code // "" accepted
		reason statekeys.Reason
	}{
		{"no-policy", nil, statekeys.CodeFormRefused, statekeys.ReasonFormNoPolicy},
		{"own-policy", &own, "", ""},
		{"untrusted-reviewer", &other, statekeys.CodeFormRefused, statekeys.ReasonFormPolicyForged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ev := stateExchange(t, nc, evidence, worker.SubjectStateSeal, sealBody(tt.policy))
			if tt.code == "" {
				if !r.OK || len(ev.Inputs) != 1 || ev.Inputs[0].SchemaDigest != formSchemaDigest(t, formSchema) {
					t.Fatalf("refused: %+v %+v", r, ev)
				}
				return
			}
			if r.OK || r.Error == nil || r.Error.Code != string(tt.code) || ev.Reason != string(tt.reason) {
				t.Fatalf("reply %+v, evidence %+v", r, ev)
			}
		})
	}
	p.stop(t)

	// The default: no reviewer is trusted, so even a signed policy is refused.
	p, nc, evidence = startFormStateCmd(t)
	if p.log.find(t, "form elicitation off: no --policy-keys, every form-mode elicitation is refused", nil) == nil {
		t.Fatalf("no form-elicitation-off record: %s", p.log.String())
	}
	r, ev := stateExchange(t, nc, evidence, worker.SubjectStateSeal, sealBody(&own))
	if r.OK || r.Error == nil || r.Error.Code != string(statekeys.CodeFormRefused) || ev.Reason != string(statekeys.ReasonFormPolicyForged) {
		t.Fatalf("default command sealed a form: %+v %+v", r, ev)
	}
}

// What cannot configure the form guard stops the command: usage errors
// exit 2, unreadable, untrusted or invalid files exit 1 with a log record
// that names the flag, the code and the reason, never the content.
func TestStateCommandFormConfigErrors(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.json")
	keysCmd(t, "new", "--file", ring)
	keysPath, policiesPath := writeFormConfig(t, dir, formPolicy(t, formReviewer))
	write := func(name, content string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	keysDoc, _ := os.ReadFile(keysPath)
	groupWritable := write("keys-group-writable.json", string(keysDoc), 0o664)
	otherCase := write("keys-other-case.json", strings.Replace(string(keysDoc), `"publicKey"`, `"PublicKey"`, 1), 0o600)
	untrusted, err := elicit.MarshalFormPolicies(formPolicy(t, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{13}, ed25519.SeedSize))))
	if err != nil {
		t.Fatal(err)
	}
	untrustedPath := write("untrusted-policies.json", string(untrusted), 0o600)
	untrustedPolicies, _ := elicit.ParseFormPolicies(untrusted)
	untrustedSig := untrustedPolicies[0].Signature
	reviewerPub := base64.RawURLEncoding.EncodeToString(formReviewer.Public().(ed25519.PublicKey))
	dupPolicies := write("dup-policies.json", `{"version":1,"version":1,"policies":[]}`, 0o600)

	base := []string{"--keys", ring, "--embedded-port", "-1", "--embedded-dir", filepath.Join(dir, "nats")}
	tests := []struct {
		name   string
		args   []string
		code   int
		msg    string
		reason statekeys.Reason
	}{
		{"policies-without-keys", []string{"--form-policies", policiesPath}, exitUsage, "--form-policies needs --policy-keys", ""},
		{"keys-missing", []string{"--policy-keys", filepath.Join(dir, "missing.json")}, exitFailure, "cannot read the policy keys", ""},
		{"keys-group-writable", []string{"--policy-keys", groupWritable}, exitFailure, "cannot read the policy keys", ""},
		{"keys-other-case", []string{"--policy-keys", otherCase}, exitFailure, "cannot parse the policy keys", statekeys.ReasonFormPolicyKeys},
		{"keys-are-a-directory", []string{"--policy-keys", dir}, exitFailure, "cannot read the policy keys", ""},
		{"policies-untrusted", []string{"--policy-keys", keysPath, "--form-policies", untrustedPath}, exitFailure, "form policy 1 does not verify against the policy keys", statekeys.ReasonFormPolicyForged},
		{"policies-duplicate-member", []string{"--policy-keys", keysPath, "--form-policies", dupPolicies}, exitFailure, "cannot parse the form policies", statekeys.ReasonFormPolicyInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr stateLog
			code := runStateEnv(context.Background(), append(slices.Clone(base), tt.args...), stateLookup(map[string]string{}), &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.msg) {
				t.Fatalf("code %d, stderr %s", code, stderr.String())
			}
			if tt.reason != "" && stderr.find(t, tt.msg, map[string]string{"reason": string(tt.reason)}) == nil {
				t.Fatalf("no record with reason %s: %s", tt.reason, stderr.String())
			}
			assertNotLogged(t, &stderr, "a document", "publicKey", "PublicKey", `"policies"`, "pol-cmd", untrustedSig, reviewerPub)
		})
	}

	var help stateLog
	if code := runStateEnv(context.Background(), []string{"-h"}, stateLookup(map[string]string{}), &help); code != exitOK {
		t.Fatalf("help: %d", code)
	}
	for _, want := range []string{"--policy-keys", "--form-policies", "MCP_SANITIZE_STATE_POLICY_KEYS", "MCP_SANITIZE_STATE_FORM_POLICIES", "Form-mode elicitations are sealed only"} {
		if !strings.Contains(help.String(), strings.TrimPrefix(want, "-")) {
			t.Fatalf("help lacks %s: %s", want, help.String())
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
