package statekeys

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Token format (see docs/statekeys.md):
//
//	mrs1.<key id>.<base64url(nonce[24] || XChaCha20-Poly1305(payload))>
//
// The associated data is tokenAAD + key id, which fixes the purpose and the
// version and ties the key id in the clear to the key that opens it.
const (
	tokenPrefix = "mrs1."
	tokenAAD    = "mcp-sanitize/statekeys/request-state/v1\x00"
	nonceSize   = chacha20poly1305.NonceSizeX
	tagSize     = chacha20poly1305.Overhead
)

var b64 = base64.RawURLEncoding.Strict()

// Keeper seals and verifies MRTR request state. It is safe for concurrent
// use. The key ring may be swapped at any time through the Keyring.
type Keeper struct {
	ring  *Keyring
	store Store
	o     options
}

// New returns a Keeper that seals with ring's active key and enforces single
// use through store.
func New(ring *Keyring, store Store, opts ...Option) (*Keeper, error) {
	if ring == nil || ring.Ring() == nil || store == nil {
		return nil, errOption
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	return &Keeper{ring: ring, store: store, o: o}, nil
}

// MaxLifetime is how long a single-use record must be able to live: the
// longest state lifetime plus the replay margin. A Store with its own
// retention limit (a KV bucket's MaxAge) must keep records at least this
// long.
func (k *Keeper) MaxLifetime() time.Duration { return k.o.maxTTL + k.o.replayMargin }

// SealRequest asks for the requestState of one InputRequiredResult.
type SealRequest struct {
	Identity  Identity
	Operation Operation
	// InputRequests is the inputRequests map the server returns with the
	// state (absent for a state-only result). Every elicitation must pass
	// the Keeper's Guard (WithGuard): in package elicit, form-mode ones must
	// be covered by a signed form policy, URL-mode ones must pass the URL
	// guard and carry an elicitationId.
	InputRequests json.RawMessage
	// FormPolicy optionally brings a signed form policy for this request,
	// in addition to the Guard's own.
	FormPolicy *SignedFormPolicy
	// TTL is the lifetime; 0 means the default. It is shortened to the
	// earliest expiry of the form policies involved.
	TTL time.Duration
	// AppState is opaque server continuation state, sealed and returned by
	// Verify. Keep it small (DefaultMaxAppStateBytes).
	AppState []byte
}

// Sealed is the result of Seal.
type Sealed struct {
	RequestState string
	FlowID       string
	KeyID        string
	ExpiresAt    time.Time
}

// Seal checks req and returns a sealed requestState. The Evidence describes
// the decision either way.
func (k *Keeper) Seal(ctx context.Context, req SealRequest) (Sealed, Evidence, error) {
	now := k.o.now()
	ev := Evidence{Rule: RuleMRTR, Action: "seal", Time: now.UTC()}
	if tenantPattern.MatchString(req.Identity.Tenant) {
		ev.Tenant = req.Identity.Tenant
	}
	if methodAllowed(req.Operation.Method) {
		ev.Method = req.Operation.Method
	}
	fail := func(e *Error) (Sealed, Evidence, error) {
		ev.reject(e)
		return Sealed{}, ev, e
	}
	if r := req.Identity.validate(); r != ReasonNone {
		return fail(invalidRequest(r))
	}
	if !methodAllowed(req.Operation.Method) {
		return fail(invalidRequest(ReasonMethodNotAllowed))
	}
	if !validText(req.Operation.Name, maxNameBytes) {
		return fail(invalidRequest(ReasonNameInvalid))
	}
	argDigest, r := argumentsDigest(req.Operation.Arguments, k.o.maxArgumentsBytes)
	if r != ReasonNone {
		return fail(invalidRequest(r))
	}
	ev.ArgumentsDigest = argDigest
	ttl := req.TTL
	if ttl == 0 {
		ttl = k.o.defaultTTL
	}
	if ttl < time.Second || ttl > k.o.maxTTL {
		return fail(invalidRequest(ReasonTTLInvalid))
	}
	if len(req.AppState) > k.o.maxAppStateBytes {
		return fail(invalidRequest(ReasonAppStateTooLarge))
	}
	exp := now.Add(ttl)

	inputs, e := parseInputRequests(req.InputRequests, k.o.maxInputBytes, k.o.maxInputRequests)
	if e != nil {
		return fail(e)
	}
	var bindings []inputBinding
	for _, ir := range inputs {
		b := inputBinding{Key: ir.key, Kind: ir.kind, Req: ir.reqDigest}
		switch ir.kind {
		case kindForm:
			ev.Rule = RuleForm
			if k.o.guard == nil {
				return fail(formRefused(ReasonFormNoPolicy, ir.key, ""))
			}
			a, err := k.o.guard.SealForm(ir.elicitation(), req.FormPolicy, now)
			if err != nil {
				return fail(guardError(err, CodeFormRefused, ReasonFormSchemaInvalid, ir.key))
			}
			if !equalDigest(a.SchemaDigest, ir.schemaDigest) || a.MaxResponseBytes <= 0 || a.ExpiresAt.IsZero() {
				return fail(formRefused(ReasonFormNotCovered, ir.key, ""))
			}
			b.Sch, b.Max, b.Pex = a.SchemaDigest, a.MaxResponseBytes, a.ExpiresAt.UnixMilli()
			b.Pol = a.PolicyID + "/" + a.FormID
			if a.ExpiresAt.Before(exp) {
				exp = a.ExpiresAt
			}
		case kindURL:
			if k.o.guard == nil {
				return fail(urlRefused(ReasonURLInvalid, ir.key))
			}
			if err := k.o.guard.SealURL(ir.elicitation()); err != nil {
				return fail(guardError(err, CodeURLRefused, ReasonURLInvalid, ir.key))
			}
			b.Eid = ir.elicitationID
		}
		bindings = append(bindings, b)
		ev.Inputs = append(ev.Inputs, EvidenceInput{Key: ir.key, Kind: ir.kind, SchemaDigest: ir.schemaDigest})
	}

	var rnd [16 + 16 + nonceSize]byte
	if _, err := io.ReadFull(k.o.rand, rnd[:]); err != nil {
		return fail(unavailable(ReasonRandFailed))
	}
	p := payload{
		V:   payloadVersion,
		Sub: sha256Hex([]byte(req.Identity.Subject)),
		Ten: req.Identity.Tenant,
		Cli: sha256Hex([]byte(req.Identity.ClientID)),
		Mth: req.Operation.Method,
		Nam: sha256Hex([]byte(req.Operation.Name)),
		Arg: argDigest,
		Inp: bindings,
		Iat: now.UnixMilli(),
		Exp: exp.UnixMilli(),
		Fid: hex.EncodeToString(rnd[:16]),
		Non: b64.EncodeToString(rnd[16:32]),
		App: req.AppState,
	}
	pt, err := json.Marshal(p)
	if err != nil {
		return fail(invalidRequest(ReasonPayload))
	}
	ring := k.ring.Ring()
	active := ring.active
	token := sealToken(active.info.ID, active.aead, rnd[32:], pt)
	if len(token) > k.o.maxTokenBytes {
		return fail(invalidRequest(ReasonTokenTooLarge))
	}
	ev.Decision, ev.KeyID, ev.FlowID = DecisionAccept, active.info.ID, p.Fid
	ev.StateDigest = sha256Hex([]byte(token))
	expT := time.UnixMilli(p.Exp).UTC()
	ev.ExpiresAt = &expT
	return Sealed{RequestState: token, FlowID: p.Fid, KeyID: active.info.ID, ExpiresAt: expT}, ev, nil
}

type aeadSealer interface {
	Seal(dst, nonce, plaintext, additionalData []byte) []byte
}

func sealToken(kid string, aead aeadSealer, nonce, pt []byte) string {
	aad := make([]byte, 0, len(tokenAAD)+len(kid))
	aad = append(append(aad, tokenAAD...), kid...)
	blob := make([]byte, 0, nonceSize+len(pt)+tagSize)
	blob = append(blob, nonce...)
	blob = aead.Seal(blob, nonce, pt, aad)
	var sb strings.Builder
	sb.Grow(len(tokenPrefix) + len(kid) + 1 + b64.EncodedLen(len(blob)))
	sb.WriteString(tokenPrefix)
	sb.WriteString(kid)
	sb.WriteByte('.')
	sb.WriteString(b64.EncodeToString(blob))
	return sb.String()
}

// parseToken splits a token into its key id and sealed blob. It checks
// shape only; nothing in it is trusted until the AEAD opens. A token has
// one spelling: every byte is in the token alphabet, and the blob's
// base64url is the canonical encoding of the blob.
func parseToken(token string, maxBytes int) (string, []byte, Reason) {
	if len(token) > maxBytes {
		return "", nil, ReasonTokenTooLarge
	}
	if !inTokenAlphabet(token) {
		return "", nil, ReasonTokenAlphabet
	}
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", nil, ReasonTokenMalformed
	}
	kid, enc, ok := strings.Cut(rest, ".")
	if !ok || !keyIDPattern.MatchString(kid) {
		return "", nil, ReasonTokenMalformed
	}
	// The alphabet check above leaves the lenient decoder one freedom,
	// non-zero trailing bits; the re-encoding check below takes it away, so
	// the one spelling of the blob is the only one that decodes.
	blob, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", nil, ReasonTokenMalformed
	}
	if !canonicalBase64(blob, enc) {
		return "", nil, ReasonTokenNonCanonical
	}
	if len(blob) < nonceSize+tagSize+2 {
		return "", nil, ReasonTokenMalformed
	}
	return kid, blob, ReasonNone
}

// tokenAlphabet marks the bytes a token may hold: the letters and digits,
// '-' and '_' of base64url, and the '.' that separates its parts.
var tokenAlphabet = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	return t
}()

// inTokenAlphabet reports whether every byte of s is in tokenAlphabet. Go's
// base64 decoders skip CR and LF even in strict mode, so without this check
// one state would have many spellings (and many stateDigests).
func inTokenAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenAlphabet[s[i]] {
			return false
		}
	}
	return true
}

// canonicalBase64 reports whether enc is exactly the unpadded base64url
// encoding of blob.
// It encodes 48 bytes (64 characters) at a time into a buffer on the
// stack, so the check allocates nothing.
func canonicalBase64(blob []byte, enc string) bool {
	if b64.EncodedLen(len(blob)) != len(enc) {
		return false
	}
	var buf [64]byte
	for len(blob) > 0 {
		n := min(len(blob), 48)
		m := b64.EncodedLen(n)
		b64.Encode(buf[:m], blob[:n])
		if string(buf[:m]) != enc[:m] {
			return false
		}
		blob, enc = blob[n:], enc[m:]
	}
	return true
}

// openToken authenticates and decodes a token with ring.
func openToken(ring *Ring, token string, maxBytes int) (*payload, string, Reason) {
	kid, blob, r := parseToken(token, maxBytes)
	if r != ReasonNone {
		return nil, "", r
	}
	aead, r := ring.opener(kid)
	if r != ReasonNone {
		return nil, kid, r
	}
	aad := make([]byte, 0, len(tokenAAD)+len(kid))
	aad = append(append(aad, tokenAAD...), kid...)
	pt, err := aead.Open(nil, blob[:nonceSize], blob[nonceSize:], aad)
	if err != nil {
		return nil, kid, ReasonAuthFailed
	}
	var p payload
	if err := decodePayload(pt, &p); err != nil {
		return nil, kid, ReasonPayload
	}
	if p.V != payloadVersion {
		return nil, kid, ReasonVersion
	}
	return &p, kid, ReasonNone
}
