package statekeys_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	. "github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// One state, one spelling: a token is refused as soon as it holds a byte
// outside its alphabet (CR and LF, which Go's base64 decoders skip, among
// them), or base64url that is not the canonical encoding of its bytes.
// Each variant below would open if the token were decoded leniently.
func TestTokenOneSpelling(t *testing.T) {
	f := newFixture(t)
	tok := f.seal(t, baseSeal()).RequestState
	blobAt := strings.LastIndexByte(tok, '.') + 1
	mid := blobAt + (len(tok)-blobAt)/2
	insert := func(at int, s string) string { return tok[:at] + s + tok[at:] }
	tests := []struct {
		name, token string
		want        Reason
	}{
		{"lf-in-blob", insert(mid, "\n"), ReasonTokenAlphabet},
		{"cr-in-blob", insert(mid, "\r"), ReasonTokenAlphabet},
		{"crlf-in-blob", insert(mid, "\r\n"), ReasonTokenAlphabet},
		{"lf-every-76", wrapEvery(tok, blobAt, 76), ReasonTokenAlphabet},
		{"lf-first-blob-byte", insert(blobAt, "\n"), ReasonTokenAlphabet},
		{"lf-at-end", tok + "\n", ReasonTokenAlphabet},
		{"crlf-at-end", tok + "\r\n", ReasonTokenAlphabet},
		{"lf-at-start", "\n" + tok, ReasonTokenAlphabet},
		{"lf-in-key-id", insert(len("mrs1.")+2, "\n"), ReasonTokenAlphabet},
		{"lf-after-key-id", insert(blobAt-1, "\n"), ReasonTokenAlphabet},
		{"space", insert(mid, " "), ReasonTokenAlphabet},
		{"tab", insert(mid, "\t"), ReasonTokenAlphabet},
		{"nul", insert(mid, "\x00"), ReasonTokenAlphabet},
		{"padding", tok + strings.Repeat("=", (4-(len(tok)-blobAt)%4)%4+4), ReasonTokenAlphabet},
		{"std-alphabet-plus", strings.NewReplacer("-", "+", "_", "/").Replace(tok), ReasonTokenAlphabet},
		{"non-ascii", insert(mid, "é"), ReasonTokenAlphabet},
		{"bom", "\ufeff" + tok, ReasonTokenAlphabet},
		{"invalid-utf8", insert(mid, "\xff"), ReasonTokenAlphabet},
		{"other-case-prefix", "MRS1." + tok[len("mrs1."):], ReasonTokenMalformed},
		{"extra-dot", insert(mid, "."), ReasonTokenMalformed},
		{"length-4n+1", trimTo4nPlus1(tok, blobAt), ReasonTokenMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.token == tok {
				t.Fatal("the variant is the token itself")
			}
			_, ev, err := f.keeper.Verify(context.Background(), baseVerify(tt.token))
			assertPublic(t, err, ev, tt.token, tt.want)
			if ev.StateDigest == sha256Hex(tok) {
				t.Fatal("the variant has the token's stateDigest")
			}
		})
	}
	// The lenient decoder reads every CR/LF variant as the same bytes:
	// these are other spellings of the one state, not damaged tokens.
	want, _ := base64.RawURLEncoding.DecodeString(tok[blobAt:])
	for _, v := range []string{insert(mid, "\n"), insert(mid, "\r\n"), wrapEvery(tok, blobAt, 76)} {
		got, err := base64.RawURLEncoding.Strict().DecodeString(v[blobAt:])
		if err != nil || string(got) != string(want) {
			t.Fatalf("the strict decoder does not skip CR/LF any more (%v); the test needs a new variant", err)
		}
	}
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(tok)); err != nil {
		t.Fatalf("the token itself: %s", ReasonOf(err))
	}
}

// Non-zero trailing bits spell the same bytes another way; they are
// refused as non-canonical. The app state's length is varied until the
// blob's length leaves trailing bits in its last character.
func TestTokenNonCanonicalTrailingBits(t *testing.T) {
	f := newFixture(t)
	for n := range 12 {
		req := baseSeal()
		req.AppState = []byte(`{"step":2}` + strings.Repeat(" ", n))
		tok := f.seal(t, req).RequestState
		blobAt := strings.LastIndexByte(tok, '.') + 1
		if (len(tok)-blobAt)%4 == 0 {
			continue
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, tok[len(tok)-1])
		variant := tok[:len(tok)-1] + string(alphabet[last^1])
		same, err := base64.RawURLEncoding.DecodeString(variant[blobAt:])
		orig, _ := base64.RawURLEncoding.DecodeString(tok[blobAt:])
		if err != nil || string(same) != string(orig) {
			t.Fatalf("variant does not decode to the same bytes leniently: %v", err)
		}
		v := baseVerify(variant)
		v.InputResponses = baseVerify(tok).InputResponses
		_, ev, err := f.keeper.Verify(context.Background(), v)
		assertPublic(t, err, ev, variant, ReasonTokenNonCanonical)
		if _, _, err := f.keeper.Verify(context.Background(), baseVerify(tok)); err != nil {
			t.Fatalf("the token itself: %s", ReasonOf(err))
		}
		return
	}
	t.Fatal("no app state length gave a blob with trailing bits")
}

// Inserting or deleting characters never yields a token that opens: at
// every position, the bytes decoders skip or confuse (CR, LF, space, tab,
// '=', NUL, 0xff, U+00A0) and one character of each class of the alphabet
// are inserted, and each byte and each pair of bytes is deleted; the whole
// alphabet is inserted at a dense sample of positions (every seventh and
// the ends), and deleting one character and inserting another elsewhere (a
// shift, same length) at a dense grid.
func TestVerifyTamperInsertDelete(t *testing.T) {
	f := newFixture(t)
	tok := f.seal(t, baseSeal()).RequestState
	ring := f.ring.Ring()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	everywhere := []string{"\n", "\r", "\r\n", " ", "\t", "=", "\x00", "\xff", "\xc2\xa0", "A", "z", "7", "-", "_", "."}
	opens := func(s string) bool {
		_, _, r := OpenToken(ring, s, DefaultMaxTokenBytes)
		return r == ReasonNone
	}
	for i := 0; i <= len(tok); i++ {
		ins := everywhere
		if i%7 == 0 || i < 8 || i > len(tok)-8 {
			ins = append(slices.Clip(ins), strings.Split(alphabet, "")...)
		}
		for _, s := range ins {
			if opens(tok[:i] + s + tok[i:]) {
				t.Fatalf("token with %q inserted at %d opened", s, i)
			}
		}
	}
	for i := range len(tok) {
		if opens(tok[:i] + tok[i+1:]) {
			t.Fatalf("token with byte %d deleted opened", i)
		}
		if i+2 <= len(tok) && opens(tok[:i]+tok[i+2:]) {
			t.Fatalf("token with bytes %d..%d deleted opened", i, i+1)
		}
	}
	for i := 0; i < len(tok); i += 5 {
		d := tok[:i] + tok[i+1:]
		for j := 0; j < len(d); j += 11 {
			if v := d[:j] + "A" + d[j:]; v != tok && opens(v) {
				t.Fatalf("token with byte %d deleted and 'A' inserted at %d opened", i, j)
			}
		}
	}
	// Through Verify, a sample gives the one public error.
	for _, i := range []int{0, 4, 5, len(tok) / 2, len(tok)} {
		for _, v := range []string{tok[:i] + "\n" + tok[i:], tok[:i] + "A" + tok[i:]} {
			_, ev, err := f.keeper.Verify(context.Background(), baseVerify(v))
			if err == nil || err.Error() != "request state rejected" || ev.Decision != DecisionReject {
				t.Fatalf("insert at %d: %v", i, err)
			}
		}
	}
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(tok)); err != nil {
		t.Fatalf("original after tampering attempts: %s", ReasonOf(err))
	}
}

// Text that is not UTF-8 in the retry's identity or name is refused, not
// compared.
func TestVerifyIdentityNotUTF8(t *testing.T) {
	f := newFixture(t)
	tok := f.seal(t, baseSeal()).RequestState
	tests := []struct {
		name string
		edit func(*VerifyRequest)
		want Reason
	}{
		{"subject", func(v *VerifyRequest) { v.Identity.Subject += "\xff" }, ReasonIdentityInvalid},
		{"client", func(v *VerifyRequest) { v.Identity.ClientID = "client-\xc3" }, ReasonIdentityInvalid},
		{"name", func(v *VerifyRequest) { v.Operation.Name += "\xed\xa0\x80" }, ReasonNameInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := baseVerify(tok)
			tt.edit(&v)
			_, ev, err := f.keeper.Verify(context.Background(), v)
			assertPublic(t, err, ev, tok, tt.want)
		})
	}
	if _, _, err := f.keeper.Verify(context.Background(), baseVerify(tok)); err != nil {
		t.Fatalf("the retry itself: %s", ReasonOf(err))
	}
}

// testEnvelope has the shape of the worker's seal and verify requests.
type testEnvelope struct {
	RequestState   string              `json:"requestState,omitempty"`
	Identity       Identity            `json:"identity"`
	Operation      Operation           `json:"operation"`
	InputRequests  json.RawMessage     `json:"inputRequests,omitempty"`
	FormPolicy     *SignedFormPolicy   `json:"formPolicy,omitempty"`
	TTLSeconds     int                 `json:"ttlSeconds,omitempty"`
	AppState       []byte              `json:"appState,omitempty"`
	URLCompletions map[string]Identity `json:"urlCompletions,omitempty"`
}

func TestDecodeEnvelope(t *testing.T) {
	const id = `"identity":{"subject":"user-alice","tenant":"acme","clientId":"client-1"}`
	const op = `"operation":{"method":"tools/call","name":"book_meeting","arguments":{"room":"A"}}`
	tests := []struct {
		name, doc string
		want      Reason // ReasonNone: accepted
	}{
		{"valid", `{` + id + `,` + op + `,"ttlSeconds":60,"appState":"AQI=","inputRequests":{"a":{"method":"roots/list"}},"formPolicy":{"policy":{"v":1},"keyId":"r","signature":"x"},"urlCompletions":{"elic-1":{"subject":"s","tenant":"t","clientId":"c"}}}`, ReasonNone},
		{"invalid-utf8-subject", "{\"identity\":{\"subject\":\"user-\xff\",\"tenant\":\"acme\",\"clientId\":\"c\"}," + op + "}", ReasonRequestInvalidUTF8},
		{"invalid-utf8-other-byte", "{\"identity\":{\"subject\":\"user-\xfe\",\"tenant\":\"acme\",\"clientId\":\"c\"}," + op + "}", ReasonRequestInvalidUTF8},
		{"invalid-utf8-member-name", "{\"identity\xc0\":{}}", ReasonRequestInvalidUTF8},
		{"invalid-utf8-in-arguments", "{" + id + ",\"operation\":{\"method\":\"tools/call\",\"name\":\"n\",\"arguments\":{\"k\":\"\xed\xa0\x80\"}}}", ReasonRequestInvalidUTF8},
		{"lone-surrogate", `{"identity":{"subject":"user-\ud800","tenant":"acme","clientId":"c"},` + op + `}`, ReasonRequestInvalidUTF8},
		{"duplicate-top", `{` + id + `,` + op + `,` + op + `}`, ReasonRequestDuplicate},
		{"duplicate-subject", `{"identity":{"subject":"mallory","subject":"user-alice","tenant":"acme","clientId":"c"},` + op + `}`, ReasonRequestDuplicate},
		{"duplicate-escaped", `{"identity":{"subject":"a","\u0073ubject":"b","tenant":"acme","clientId":"c"},` + op + `}`, ReasonRequestDuplicate},
		{"duplicate-in-input-requests", `{` + id + `,` + op + `,"inputRequests":{"a":{"method":"roots/list"},"a":{"method":"roots/list"}}}`, ReasonRequestDuplicate},
		{"other-case-top", `{"Identity":{"subject":"u","tenant":"acme","clientId":"c"},` + op + `}`, ReasonRequestUnknown},
		{"other-case-nested", `{"identity":{"subject":"u","tenant":"acme","clientID":"c"},` + op + `}`, ReasonRequestUnknown},
		{"other-case-operation", `{` + id + `,"operation":{"Method":"tools/call","name":"n"}}`, ReasonRequestUnknown},
		{"other-case-policy", `{` + id + `,` + op + `,"formPolicy":{"policy":{},"keyID":"r","signature":"x"}}`, ReasonRequestUnknown},
		{"other-case-completion", `{` + id + `,` + op + `,"urlCompletions":{"e":{"Subject":"s"}}}`, ReasonRequestUnknown},
		{"other-case-ttl", `{` + id + `,` + op + `,"ttlseconds":60}`, ReasonRequestUnknown},
		{"unknown-member", `{` + id + `,` + op + `,"bogus":1}`, ReasonRequestUnknown},
		{"unknown-nested", `{"identity":{"subject":"u","tenant":"acme","clientId":"c","role":"admin"},` + op + `}`, ReasonRequestUnknown},
		{"not-json", `{`, ReasonRequestMalformed},
		{"trailing-data", `{` + id + `,` + op + `} {}`, ReasonRequestMalformed},
		{"wrong-type", `{` + id + `,` + op + `,"ttlSeconds":"60"}`, ReasonRequestMalformed},
		{"number-range", `{` + id + `,` + op + `,"ttlSeconds":1e400}`, ReasonRequestMalformed},
		{"too-deep", `{` + id + `,"operation":{"method":"tools/call","name":"n","arguments":` + strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70) + `}}`, ReasonRequestMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env testEnvelope
			err := DecodeEnvelope([]byte(tt.doc), &env)
			if tt.want == ReasonNone {
				if err != nil {
					t.Fatalf("refused: %s", ReasonOf(err))
				}
				if env.Identity.ClientID != "client-1" || env.Operation.Name != "book_meeting" || env.TTLSeconds != 60 || env.FormPolicy.KeyID != "r" {
					t.Fatalf("decoded %+v", env)
				}
				return
			}
			if err == nil || ReasonOf(err) != tt.want || CodeOf(err) != CodeInvalidRequest {
				t.Fatalf("got %v (%s), want %s", err, ReasonOf(err), tt.want)
			}
			if err.Error() != PublicMessage(CodeInvalidRequest) {
				t.Fatalf("public message %q", err.Error())
			}
		})
	}
}

// The key ring document is read with exact member names too, and a secret
// has one spelling.
func TestParseRingOneSpelling(t *testing.T) {
	const sec = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	doc := func(keyJSON string) string { return `{"version":1,"keys":[` + keyJSON + `]}` }
	key := func(secret string) string {
		return fmt.Sprintf(`{"id":"k1","state":"active","created":"2026-12-01T00:00:00Z","secret":%q}`, secret)
	}
	tests := []struct {
		name, doc string
		want      Reason
	}{
		{"valid", doc(key(sec)), ReasonNone},
		{"secret-with-lf", doc(key(sec[:20] + "\n" + sec[20:])), ReasonRingKey},
		{"secret-with-crlf-at-end", doc(key(sec + "\r\n")), ReasonRingKey},
		{"secret-trailing-bits", doc(key(sec[:42] + "B")), ReasonRingKey},
		{"other-case-member", `{"Version":1,"keys":[` + key(sec) + `]}`, ReasonRingMalformed},
		{"other-case-key-member", doc(`{"ID":"k1","state":"active","created":"2026-12-01T00:00:00Z","secret":"` + sec + `"}`), ReasonRingMalformed},
		{"duplicate-member", `{"version":1,"version":1,"keys":[` + key(sec) + `]}`, ReasonRingMalformed},
		{"invalid-utf8", doc(`{"id":"k1","state":"active","created":"2026-12-01T00:00:00Z\xff","secret":"` + sec + `"}`), ReasonRingMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRing([]byte(tt.doc))
			if ReasonOf(err) != tt.want {
				t.Fatalf("got %v / %s, want %s", err, ReasonOf(err), tt.want)
			}
		})
	}
}

func sha256Hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

// wrapEvery inserts a LF every n characters of the blob, as a MIME encoder
// would.
func wrapEvery(tok string, blobAt, n int) string {
	var b strings.Builder
	b.WriteString(tok[:blobAt])
	for i := blobAt; i < len(tok); i += n {
		b.WriteString(tok[i:min(i+n, len(tok))])
		if i+n < len(tok) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// trimTo4nPlus1 cuts the blob to a length of 4n+1 characters, which no
// byte string encodes to.
func trimTo4nPlus1(tok string, blobAt int) string {
	n := len(tok) - blobAt
	return tok[:blobAt+n-((n-1)%4+4)%4]
}
