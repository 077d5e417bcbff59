package elicit

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

func TestSensitiveRules(t *testing.T) {
	for _, r := range sensitiveRules {
		for _, h := range r.hits {
			if _, hit := sensitiveText(h); !hit {
				t.Errorf("rule %s %q: %q not detected", r.kind, r.text, h)
			}
		}
		for _, m := range r.misses {
			if rule, hit := sensitiveText(m); hit {
				t.Errorf("rule %s %q: %q detected by %q", r.kind, r.text, m, rule)
			}
		}
	}
}

func TestSensitiveTextEvasions(t *testing.T) {
	for _, s := range []string{
		"pаssword",                 // Cyrillic а
		"pass\u200bword",           // zero-width space
		"ｐａｓｓｗｏｒｄ",                 // full width (NFKC)
		"API_KEY",                  // upper snake
		"Enter your one-time-code", // hyphens
		"P@ssw0rd",                 // leet
		"s3cret",                   // leet word
	} {
		if _, hit := sensitiveText(s); !hit {
			t.Errorf("%q not detected", s)
		}
	}
	for _, s := range []string{"Your full name", "Preferred meeting room", "Email address", "Company", "Number of attendees", "Date of the event"} {
		if rule, hit := sensitiveText(s); hit {
			t.Errorf("%q detected by %q", s, rule)
		}
	}
}

func sealWithSchema(t *testing.T, schema string, fields map[string]string) error {
	t.Helper()
	f := newFixture(t)
	sp := signedPolicy(t, schema, t0.Add(time.Hour), fields)
	req := baseSeal()
	req.InputRequests = formInputs(schema)
	req.FormPolicy = &sp
	_, _, err := f.keeper.Seal(context.Background(), req)
	return err
}

func TestFormSchemaGuard(t *testing.T) {
	str := map[string]string{"f": "preference"}
	tests := []struct {
		name   string
		schema string
		fields map[string]string
		want   statekeys.Reason // statekeys.ReasonNone: accepted
	}{
		{"plain-string", `{"type":"object","properties":{"f":{"type":"string"}}}`, str, statekeys.ReasonNone},
		{"spec-single-field", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, map[string]string{"name": "username"}, statekeys.ReasonNone},
		{"titled-enum", `{"type":"object","properties":{"f":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}}`, str, statekeys.ReasonNone},
		{"legacy-enum", `{"type":"object","properties":{"f":{"type":"string","enum":["a","b"],"enumNames":["A","B"]}}}`, str, statekeys.ReasonNone},
		{"multi-select", `{"type":"object","properties":{"f":{"type":"array","items":{"type":"string","enum":["a"]},"maxItems":1}}}`, str, statekeys.ReasonNone},
		{"titled-multi", `{"type":"object","properties":{"f":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}}}`, str, statekeys.ReasonNone},
		{"number-bounds", `{"type":"object","properties":{"f":{"type":"number","minimum":0,"maximum":10,"default":1}}}`, str, statekeys.ReasonNone},
		{"boolean", `{"type":"object","properties":{"f":{"type":"boolean","default":false}}}`, str, statekeys.ReasonNone},
		{"with-$schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"f":{"type":"string"}}}`, str, statekeys.ReasonNone},

		{"nested-object", `{"type":"object","properties":{"f":{"type":"object","properties":{"x":{"type":"string"}}}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"array-of-numbers", `{"type":"object","properties":{"f":{"type":"array","items":{"type":"number"}}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"array-no-enum", `{"type":"object","properties":{"f":{"type":"array","items":{"type":"string"}}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"ref", `{"type":"object","properties":{"f":{"$ref":"https://evil.example/s.json"}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"top-defs", `{"type":"object","$defs":{},"properties":{"f":{"type":"string"}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"pattern", `{"type":"object","properties":{"f":{"type":"string","pattern":"^a"}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"unknown-format", `{"type":"object","properties":{"f":{"type":"string","format":"hostname"}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"other-draft", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"f":{"type":"string"}}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"required-unknown", `{"type":"object","properties":{"f":{"type":"string"}},"required":["g"]}`, str, statekeys.ReasonFormSchemaInvalid},
		{"no-properties", `{"type":"object","properties":{}}`, str, statekeys.ReasonFormSchemaInvalid},
		{"bad-field-name", `{"type":"object","properties":{"f-x":{"type":"string"}}}`, map[string]string{"f": "x"}, statekeys.ReasonFormSchemaInvalid},

		{"field-not-in-policy", `{"type":"object","properties":{"f":{"type":"string"},"g":{"type":"string"}}}`, str, statekeys.ReasonFormFieldUnlisted},
		{"prohibited-payment-card", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "payment_card"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-credentials", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "authentication_secret"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-government-id", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "government_identifier"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-health", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "health_record"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-biometric", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "biometric"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-bank", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "bank_account"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-private-key", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "private_key"}, statekeys.ReasonFormProhibitedData},
		{"prohibited-token", `{"type":"object","properties":{"f":{"type":"string"}}}`, map[string]string{"f": "access_token"}, statekeys.ReasonFormProhibitedData},

		{"disguised-name-password", `{"type":"object","properties":{"userPassword":{"type":"string"}}}`, map[string]string{"userPassword": "preference"}, statekeys.ReasonFormDisguised},
		{"disguised-name-apikey", `{"type":"object","properties":{"apiKey":{"type":"string"}}}`, map[string]string{"apiKey": "preference"}, statekeys.ReasonFormDisguised},
		{"disguised-title-otp", `{"type":"object","properties":{"f":{"type":"string","title":"One-time code"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-description-card", `{"type":"object","properties":{"f":{"type":"string","description":"The 16 digit card number on the front"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-description-iban", `{"type":"object","properties":{"f":{"type":"string","description":"Your IBAN for the refund"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-ssn", `{"type":"object","properties":{"f":{"type":"string","title":"SSN"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-social-security", `{"type":"object","properties":{"f":{"type":"string","description":"social security number"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-format-password", `{"type":"object","properties":{"f":{"type":"string","format":"password"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-homoglyph", `{"type":"object","properties":{"f":{"type":"string","title":"Pаsswоrd"}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-option-title", `{"type":"object","properties":{"f":{"type":"string","oneOf":[{"const":"a","title":"Paste your API key here"}]}}}`, str, statekeys.ReasonFormDisguised},
		{"disguised-form-title", `{"type":"object","title":"Verification code","properties":{"f":{"type":"string"}}}`, str, statekeys.ReasonFormDisguised},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sealWithSchema(t, tt.schema, tt.fields)
			if tt.want == statekeys.ReasonNone {
				if err != nil {
					t.Fatalf("refused: %s", statekeys.ReasonOf(err))
				}
				return
			}
			if statekeys.CodeOf(err) != statekeys.CodeFormRefused || statekeys.ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, statekeys.ReasonOf(err), tt.want)
			}
		})
	}
}

func TestFormPolicyForgery(t *testing.T) {
	good := signedPolicy(t, contactSchema, t0.Add(time.Hour), contactFields)
	otherKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	byOther, err := SignFormPolicy(otherKey, reviewerID, policyFor(t, contactSchema, t0.Add(time.Hour), contactFields))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*SignedFormPolicy)
		want   statekeys.Reason
	}{
		{"valid", func(*SignedFormPolicy) {}, statekeys.ReasonNone},
		{"reformatted-policy", func(s *SignedFormPolicy) {
			var v any
			json.Unmarshal(s.Policy, &v)
			s.Policy, _ = json.MarshalIndent(v, "", "   ")
		}, statekeys.ReasonNone},
		{"unknown-reviewer", func(s *SignedFormPolicy) { s.KeyID = "reviewer-2" }, statekeys.ReasonFormPolicyForged},
		{"signed-by-other-key", func(s *SignedFormPolicy) { *s = byOther }, statekeys.ReasonFormPolicyForged},
		{"raised-byte-cap", func(s *SignedFormPolicy) {
			s.Policy = json.RawMessage(strings.Replace(string(s.Policy), `"maxResponseBytes":512`, `"maxResponseBytes":60000`, 1))
		}, statekeys.ReasonFormPolicyForged},
		{"changed-data-class", func(s *SignedFormPolicy) {
			s.Policy = json.RawMessage(strings.Replace(string(s.Policy), `"contact_email"`, `"contact_mail"`, 1))
		}, statekeys.ReasonFormPolicyForged},
		{"truncated-signature", func(s *SignedFormPolicy) { s.Signature = s.Signature[:40] }, statekeys.ReasonFormPolicyForged},
		{"flipped-signature", func(s *SignedFormPolicy) {
			sig, _ := base64.RawURLEncoding.DecodeString(s.Signature)
			sig[0] ^= 1
			s.Signature = base64.RawURLEncoding.EncodeToString(sig)
		}, statekeys.ReasonFormPolicyForged},
		{"not-json", func(s *SignedFormPolicy) { s.Policy = json.RawMessage(`{`) }, statekeys.ReasonFormPolicyInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := good
			tt.mutate(&sp)
			p, err := VerifyFormPolicy(sp, trustedReviewers)
			if tt.want == statekeys.ReasonNone {
				if err != nil || p.PolicyID != "pol-test" {
					t.Fatalf("refused: %v %s", err, statekeys.ReasonOf(err))
				}
				return
			}
			if statekeys.ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, statekeys.ReasonOf(err), tt.want)
			}
			// And a seal request carrying it is refused.
			f := newFixture(t)
			k, _ := statekeys.New(f.ring, f.store, statekeys.WithClock(f.clock.Now), statekeys.WithGuard(newGuard(t)))
			req := baseSeal()
			req.FormPolicy = &sp
			if _, _, err := k.Seal(context.Background(), req); statekeys.CodeOf(err) != statekeys.CodeFormRefused {
				t.Fatalf("seal with forged policy: %v", err)
			}
		})
	}
}

func TestFormPolicyExpiry(t *testing.T) {
	f := newFixture(t)
	expired := signedPolicy(t, contactSchema, t0, contactFields) // expires exactly now
	k, _ := statekeys.New(f.ring, f.store, statekeys.WithClock(f.clock.Now), statekeys.WithGuard(newGuard(t, expired)))
	_, _, err := k.Seal(context.Background(), baseSeal())
	if statekeys.ReasonOf(err) != statekeys.ReasonPolicyExpired {
		t.Fatalf("got %s", statekeys.ReasonOf(err))
	}
	// No policy at all.
	k, _ = statekeys.New(f.ring, f.store, statekeys.WithClock(f.clock.Now))
	if _, _, err := k.Seal(context.Background(), baseSeal()); statekeys.ReasonOf(err) != statekeys.ReasonFormNoPolicy {
		t.Fatalf("got %s", statekeys.ReasonOf(err))
	}
	// A guard without policies.
	k, _ = statekeys.New(f.ring, f.store, statekeys.WithClock(f.clock.Now), statekeys.WithGuard(newGuard(t)))
	if _, _, err := k.Seal(context.Background(), baseSeal()); statekeys.ReasonOf(err) != statekeys.ReasonFormNoPolicy {
		t.Fatalf("guard without policies: got %s", statekeys.ReasonOf(err))
	}
}

func TestStandaloneFormGuard(t *testing.T) {
	p, err := VerifyFormPolicy(signedPolicy(t, contactSchema, t0.Add(time.Hour), contactFields), trustedReviewers)
	if err != nil {
		t.Fatal(err)
	}
	params := json.RawMessage(`{"mode":"form","message":"How to reach you","requestedSchema":` + contactSchema + `}`)
	a, err := CheckFormRequest(params, []*FormPolicy{p}, t0)
	if err != nil {
		t.Fatalf("CheckFormRequest: %s", statekeys.ReasonOf(err))
	}
	tests := []struct {
		name, resp string
		at         time.Time
		want       statekeys.Reason
	}{
		{"accept", `{"action":"accept","content":{"name":"Ada"}}`, t0, statekeys.ReasonNone},
		{"decline", `{"action":"decline"}`, t0, statekeys.ReasonNone},
		{"cancel", `{"action":"cancel"}`, t0, statekeys.ReasonNone},
		{"accept-after-expiry", `{"action":"accept","content":{"name":"Ada"}}`, t0.Add(time.Hour), statekeys.ReasonPolicyExpired},
		{"decline-after-expiry", `{"action":"decline"}`, t0.Add(time.Hour), statekeys.ReasonNone},
		{"float-for-integer", `{"action":"accept","content":{"name":"Ada","age":36.5}}`, t0, statekeys.ReasonResponseSchema},
		{"bool-as-string", `{"action":"accept","content":{"name":"true","age":true}}`, t0, statekeys.ReasonResponseSchema},
		{"no-action", `{"content":{"name":"Ada"}}`, t0, statekeys.ReasonResponseAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateFormResponse(json.RawMessage(tt.resp), json.RawMessage(contactSchema), a, tt.at)
			if statekeys.ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, statekeys.ReasonOf(err), tt.want)
			}
		})
	}
	// A different schema than the approved one is refused.
	other := strings.Replace(contactSchema, `"maxLength":100`, `"maxLength":101`, 1)
	if _, err := ValidateFormResponse(json.RawMessage(`{"action":"decline"}`), json.RawMessage(other), a, t0); statekeys.ReasonOf(err) != statekeys.ReasonSchemaChanged {
		t.Fatalf("got %s", statekeys.ReasonOf(err))
	}
}

func TestURLGuard(t *testing.T) {
	tests := []struct {
		name, url string
		want      statekeys.Reason
	}{
		{"spec-example", "https://mcp.example.com/ui/set_api_key", statekeys.ReasonNone},
		{"with-flow-query", "https://auth.example.com/connect?flow=elic-0123456789&lang=en", statekeys.ReasonNone},
		{"uuid-path", "https://auth.example.com/flows/3f2b8c1e-4d5a-4b7e-9c3f-1a2b3c4d5e6f", statekeys.ReasonNone},
		{"http", "http://auth.example.com/connect", statekeys.ReasonURLNotHTTPS},
		{"javascript", "javascript:alert(1)", statekeys.ReasonURLNotHTTPS},
		{"data", "data:text/html,hi", statekeys.ReasonURLNotHTTPS},
		{"userinfo", "https://user:pass@auth.example.com/", statekeys.ReasonURLCredentials},
		{"user-only", "https://user@auth.example.com/", statekeys.ReasonURLCredentials},
		{"token-param", "https://auth.example.com/connect?access_token=abc", statekeys.ReasonURLSecret},
		{"code-param", "https://auth.example.com/cb?code=abc", statekeys.ReasonURLSecret},
		{"sig-param", "https://bucket.example.com/o?X-Amz-Signature=abc", statekeys.ReasonURLSecret},
		{"api-key-param-camel", "https://auth.example.com/connect?apiKey=abc", statekeys.ReasonURLSecret},
		{"jwt-value", "https://auth.example.com/connect?x=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", statekeys.ReasonURLSecret},
		{"github-token-path", "https://auth.example.com/ghp_abcdefghijklmnopqrstuvwxyz0123456789", statekeys.ReasonURLSecret},
		{"high-entropy-value", "https://auth.example.com/connect?x=fJ3kQ9zX2mV7pL0sT8wR4yB6nH1cD5gA", statekeys.ReasonURLSecret},
		{"hex-token-value", "https://auth.example.com/connect?x=0123456789abcdef0123456789abcdef01234567", statekeys.ReasonURLSecret},
		{"fragment-token", "https://auth.example.com/#access_token=abc", statekeys.ReasonURLSecret},
		{"no-host", "https:///path", statekeys.ReasonURLInvalid},
		{"space", "https://auth.example.com/a b", statekeys.ReasonURLInvalid},
		{"control", "https://auth.example.com/\u0007", statekeys.ReasonURLInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params, _ := json.Marshal(map[string]string{"mode": "url", "message": "Continue in the browser", "url": tt.url, "elicitationId": "elic-0123456789"})
			_, err := CheckURLRequest(params)
			if statekeys.ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, statekeys.ReasonOf(err), tt.want)
			}
		})
	}
	for _, id := range []string{"", "short", "has space 12345", strings.Repeat("a", 129)} {
		params, _ := json.Marshal(map[string]string{"mode": "url", "message": "m", "url": "https://a.example.com/", "elicitationId": id})
		if _, err := CheckURLRequest(params); statekeys.ReasonOf(err) != statekeys.ReasonURLNoID {
			t.Errorf("elicitationId %q: %s", id, statekeys.ReasonOf(err))
		}
	}
}
