package pipeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The member-name context: a string directly under an object member is
// redacted as the text `"key": "value"` would be (scanners.Redactor.
// ResetWithContext), so structured results lose the secrets that only their
// key names (password, client_secret, DD_API_KEY...).

const (
	mcPassword = "Xk29!vqLm#2pR7"
	mcSecret   = "q8Vf3kLz9PwX2mRt7YbN4cJh"
	mcAPIKey   = "a7Fk29QmZx83LpW0vB5nRt6Y"
	mcDatadog  = "3f9a1c0b7e2d4a6f8b1c3e5d7f9a0b2c"
	mcToken    = "eyQ7mP2xK9vL4nR8tW3zB6cF"
	mcUUID     = "123e4567-e89b-12d3-a456-426614174000"
	mcSHA      = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
	mcCursor   = "CiAKGjBpNDd2Nmp2Zml2cXRnYnB1OXQ"
)

// memberContextCases are the inputs of the member-context tests; the split
// and differential tests run them too.
func memberContextCases() []splitCase {
	return []splitCase{
		{name: named("member-secrets"), in: []byte(`{"content":[],"structuredContent":{"user":"alice","password":"` + mcPassword + `","client_secret":"` + mcSecret + `","api_key":"` + mcAPIKey + `","DD_API_KEY":"` + mcDatadog + `","token":"` + mcToken + `"}}`)},
		{name: named("member-decoys"), in: []byte(`{"content":[],"structuredContent":{"token_type":"bearer","password_hint":"the name of my first dog","nextPageToken":"` + mcCursor + `","id":"` + mcUUID + `","sha":"` + mcSHA + `","token":"` + mcUUID + `"}}`)},
		{name: named("member-nested-envelope"), in: []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"config":{"db":{"pass\u0077ord":"` + mcPassword + `","host":"db-1"}},"items":[{"clientSecret":"` + mcSecret + `"}]}}}`)},
		{name: named("member-not-array-items"), in: []byte(`{"content":[],"structuredContent":{"password":["` + mcPassword + `"],"token":{"value":"` + mcToken + `"}}}`)},
		{name: named("member-escaped-value"), in: []byte(`{"content":[],"structuredContent":{"password":"\u0058k29!vqLm#2pR7","note":"é ` + mcPassword + `","x-api-key":"` + mcAPIKey + `\"tail"}}`)},
		{name: named("member-schema"), schema: `{"type":"object","properties":{"id":{"type":"string"},"password":{"type":"string"}},"required":["id"]}`, in: []byte(`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"id":"a1","password":"` + mcPassword + `"}}`)},
	}
}

func TestMemberContext(t *testing.T) {
	e := engine(t, polDefault, 0)
	type finding struct{ rule, pointer string }
	for _, tc := range []struct {
		c        splitCase
		want     map[string]string // JSON pointer under the result -> value in the output
		findings []finding
	}{
		{memberContextCases()[0], map[string]string{
			"/structuredContent/user":          "alice",
			"/structuredContent/password":      "[REDACTED:password-assignment]",
			"/structuredContent/client_secret": "[REDACTED:secret-assignment]",
			"/structuredContent/api_key":       "[REDACTED:secret-assignment]",
			"/structuredContent/DD_API_KEY":    "[REDACTED:datadog-api-key]",
			"/structuredContent/token":         "[REDACTED:token-assignment]",
		}, []finding{
			{"password-assignment", "/structuredContent/password"},
			{"secret-assignment", "/structuredContent/client_secret"},
			{"secret-assignment", "/structuredContent/api_key"},
			{"datadog-api-key", "/structuredContent/DD_API_KEY"},
			{"token-assignment", "/structuredContent/token"},
		}},
		{memberContextCases()[1], map[string]string{
			"/structuredContent/token_type":    "bearer",
			"/structuredContent/password_hint": "the name of my first dog",
			"/structuredContent/nextPageToken": mcCursor,
			"/structuredContent/id":            mcUUID,
			"/structuredContent/sha":           mcSHA,
			"/structuredContent/token":         mcUUID, // the bare name "token" keeps UUIDs
		}, nil},
		{memberContextCases()[2], map[string]string{
			"/result/structuredContent/config/db/password":   "[REDACTED:password-assignment]",
			"/result/structuredContent/config/db/host":       "db-1",
			"/result/structuredContent/items/0/clientSecret": "[REDACTED:secret-assignment]",
		}, []finding{
			{"password-assignment", "/result/structuredContent/config/db/password"},
			{"secret-assignment", "/result/structuredContent/items/0/clientSecret"},
		}},
		// Array items have no member name; an object value's strings have
		// their own ("value" names nothing).
		{memberContextCases()[3], map[string]string{
			"/structuredContent/password/0":  mcPassword,
			"/structuredContent/token/value": mcToken,
		}, nil},
		// The value is what is decoded and normalized; a quote in it ends
		// the quoted value as in text, and only the value's bytes change.
		{memberContextCases()[4], map[string]string{
			"/structuredContent/password":  "[REDACTED:password-assignment]",
			"/structuredContent/note":      "é " + mcPassword,
			"/structuredContent/x-api-key": `[REDACTED:secret-assignment]"tail`,
		}, []finding{
			{"password-assignment", "/structuredContent/password"},
			{"secret-assignment", "/structuredContent/x-api-key"},
		}},
		{memberContextCases()[5], map[string]string{
			"/structuredContent/id":       "a1",
			"/structuredContent/password": "[REDACTED:password-assignment]",
		}, []finding{{"password-assignment", "/structuredContent/password"}}},
	} {
		t.Run(tc.c.name, func(t *testing.T) {
			out, _, ev := runCase(t, e, tc.c, 0, false)
			if msg := checkExpectation(tc.c, out, ev); msg != "" {
				t.Fatal(msg)
			}
			var doc any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			for ptr, want := range tc.want {
				if got, ok := lookupPointer(doc, ptr); !ok || got != want {
					t.Errorf("%s = %#v, want %q", ptr, got, want)
				}
			}
			var got []finding
			for _, f := range ev.Findings {
				got = append(got, finding{f.Rule, f.Pointer})
				if f.Offset != 0 || f.InKey {
					t.Errorf("finding %+v: want offset 0 in a value", f)
				}
			}
			if len(got) != len(tc.findings) {
				t.Fatalf("findings %v, want %v", got, tc.findings)
			}
			for i := range got {
				if got[i] != tc.findings[i] {
					t.Fatalf("findings %v, want %v", got, tc.findings)
				}
			}
			// No planted secret survives anywhere in the output.
			for _, s := range []string{mcPassword, mcSecret, mcAPIKey, mcDatadog, mcToken} {
				if bytes.Contains(out, []byte(s)) && !strings.Contains(tc.c.name, "decoys") && !strings.Contains(tc.c.name, "not-array") && !strings.Contains(tc.c.name, "escaped") {
					t.Errorf("%q survived: %s", s, out)
				}
			}
		})
	}
}

// lookupPointer resolves a JSON pointer (no escapes) in a decoded document.
func lookupPointer(doc any, ptr string) (any, bool) {
	for _, tok := range strings.Split(ptr, "/")[1:] {
		switch v := doc.(type) {
		case map[string]any:
			x, ok := v[tok]
			if !ok {
				return nil, false
			}
			doc = x
		case []any:
			i := 0
			for _, c := range tok {
				i = i*10 + int(c-'0')
			}
			if i >= len(v) {
				return nil, false
			}
			doc = v[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// BenchmarkMemberValues measures structured results of 200 short string
// members: under names without a keyword (the context is not used: one
// automaton walk over the name), and under names of secrets (each value
// scanned with its synthetic prefix).
//
//	go test ./pipeline/ -run '^$' -bench BenchmarkMemberValues -benchtime 2s
func BenchmarkMemberValues(b *testing.B) {
	for _, bc := range []struct {
		name  string
		names []string
	}{
		{"plain-names", []string{"id", "name", "status", "region", "createdAt", "owner", "description", "sha"}},
		{"secret-names", []string{"password", "client_secret", "api_key", "DD_API_KEY", "accessToken", "x-api-key", "db.password", "auth"}},
	} {
		var sb strings.Builder
		sb.WriteString(`{"content":[],"structuredContent":{`)
		for i := 0; i < 200; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`"` + bc.names[i%len(bc.names)] + strings.Repeat("_", i/len(bc.names)) + `":"value ` + strings.Repeat("x", i%17) + ` ok"`)
		}
		sb.WriteString(`}}`)
		in := []byte(sb.String())
		e := engine(b, polDefault, 0)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				r := &kReader{b: in, k: len(in) + 1}
				run(b, e, r, splitCase{}.info(), nil)
			}
		})
	}
}
