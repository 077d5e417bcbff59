package receipt

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// Fixed values of a receipt.
const (
	SchemaVersion = "aidefend.path-broker-receipt.v1"
	Control       = "AID-H-018.009"
	OutcomePass   = "PASS"
	OperationRead = "read"
	TypeRegular   = "regular"
)

// MaxReceiptBytes is the largest signed receipt accepted.
const MaxReceiptBytes = 8 << 10

// ObjectIdentity is the broker's identity of the opened object.
type ObjectIdentity struct {
	FileID    string `json:"fileId"`
	LinkCount int64  `json:"linkCount"`
	Size      int64  `json:"size"`
	Type      string `json:"type"`
	VolumeID  string `json:"volumeId"`
}

// Receipt is the broker's opened-object receipt: exactly these fields.
type Receipt struct {
	AdapterBuildSha256 string         `json:"adapterBuildSha256"`
	BytesSha256        string         `json:"bytesSha256"`
	Control            string         `json:"control"`
	ExpiresAt          string         `json:"expiresAt"`
	IssuedAt           string         `json:"issuedAt"`
	ObjectIdentity     ObjectIdentity `json:"objectIdentity"`
	Operation          string         `json:"operation"`
	Outcome            string         `json:"outcome"`
	PlatformProfile    string         `json:"platformProfile"`
	PolicyVersion      string         `json:"policyVersion"`
	ReceiptSha256      string         `json:"receiptSha256"`
	RelativePath       string         `json:"relativePath"`
	RootID             string         `json:"rootId"`
	SchemaVersion      string         `json:"schemaVersion"`
}

// Signed is the envelope a result carries: the receipt, the id of the
// broker key and the Ed25519 signature (base64url, no padding) over the
// receipt's RFC 8785 canonical JSON.
type Signed struct {
	KeyID     string          `json:"keyId"`
	Receipt   json.RawMessage `json:"receipt"`
	Signature string          `json:"signature"`
}

var (
	receiptKeys  = []string{"adapterBuildSha256", "bytesSha256", "control", "expiresAt", "issuedAt", "objectIdentity", "operation", "outcome", "platformProfile", "policyVersion", "receiptSha256", "relativePath", "rootId", "schemaVersion"}
	identityKeys = []string{"fileId", "linkCount", "size", "type", "volumeId"}
	envelopeKeys = []string{"keyId", "receipt", "signature"}
	hex64        = lazyre.New(`^[a-f0-9]{64}$`)
	keyIDPattern = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)
	uintLiteral  = lazyre.New(`^(0|[1-9][0-9]{0,14})$`)
)

// Expect is what a receipt must be bound to, and the content it vouches
// for.
type Expect struct {
	RootID             string
	RelativePath       string
	PolicyVersion      string
	AdapterBuildSha256 string
	// MaxBytes is the byte cap of the resource class (> 0).
	MaxBytes int64
	// ContentBytes and ContentSHA256 are the length and digest of the
	// content the result carries (decoded blob or UTF-8 text).
	ContentBytes  int64
	ContentSHA256 [32]byte
	// Now is the time of the check (time.Now when zero).
	Now time.Time
}

// Options are the verifier's limits; zero values mean the defaults.
type Options struct {
	// MaxLifetime is the longest expiresAt - issuedAt accepted
	// (DefaultMaxLifetime): a receipt that is valid for a day is not a
	// receipt of this read.
	MaxLifetime time.Duration
	// ClockSkew is how far issuedAt may lie in the future (default 0, as
	// in the seed).
	ClockSkew time.Duration
	// PlatformProfiles, when not empty, lists the platform profiles
	// accepted; otherwise any non-empty profile is.
	PlatformProfiles []string
	// AllowHardLinks accepts an object with more than one link; by default
	// linkCount must be 1 (a hard link makes one file reachable under
	// two paths, one of which may lie outside the root).
	AllowHardLinks bool
}

// DefaultMaxLifetime is the default of Options.MaxLifetime.
const DefaultMaxLifetime = 5 * time.Minute

// Verifier checks receipts against trusted broker keys. It is immutable
// and safe for concurrent use.
type Verifier struct {
	keys map[string]ed25519.PublicKey
	o    Options
}

// NewVerifier returns a Verifier that trusts keys (key id to public key).
func NewVerifier(keys map[string]ed25519.PublicKey, o Options) (*Verifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("receipt: no trusted broker key")
	}
	for id, k := range keys {
		if !keyIDPattern.MatchString(id) || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("receipt: bad trusted key %q", id)
		}
	}
	if o.MaxLifetime == 0 {
		o.MaxLifetime = DefaultMaxLifetime
	}
	if o.MaxLifetime < 0 || o.ClockSkew < 0 {
		return nil, errors.New("receipt: negative duration")
	}
	return &Verifier{keys: keys, o: o}, nil
}

// Verify checks a signed receipt (the JSON of a Signed) against e. It
// returns the receipt when every check passes, else an *Error.
func (v *Verifier) Verify(signed []byte, e Expect) (*Receipt, error) {
	if len(signed) == 0 || len(signed) > MaxReceiptBytes {
		return nil, fail(ReasonMalformed)
	}
	env, ok := decodeObject(signed, envelopeKeys)
	if !ok {
		return nil, fail(ReasonMalformed)
	}
	keyID, _ := env["keyId"].(string)
	sigText, _ := env["signature"].(string)
	body, isObj := env["receipt"].(map[string]any)
	if !isObj || keyID == "" || sigText == "" {
		return nil, fail(ReasonMalformed)
	}
	pub, ok := v.keys[keyID]
	if !ok {
		return nil, fail(ReasonUnknownKey)
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(sigText)
	if err != nil || len(sig) != ed25519.SignatureSize || base64.RawURLEncoding.EncodeToString(sig) != sigText {
		return nil, fail(ReasonSignature)
	}
	canon, err := jcs.Append(nil, body)
	if err != nil {
		return nil, fail(ReasonMalformed)
	}
	if !ed25519.Verify(pub, canon, sig) {
		return nil, fail(ReasonSignature)
	}
	r, ok := decodeReceipt(body)
	if !ok {
		return nil, fail(ReasonMalformed)
	}
	if err := v.check(r, body, e); err != nil {
		return nil, err
	}
	return r, nil
}

// check runs the binding checks in the order of the seed.
func (v *Verifier) check(r *Receipt, body map[string]any, e Expect) error {
	switch {
	case r.SchemaVersion != SchemaVersion:
		return fail(ReasonSchemaVersion)
	case r.Control != Control:
		return fail(ReasonControl)
	case r.Outcome != OutcomePass:
		return fail(ReasonOutcome)
	case r.Operation != OperationRead:
		return fail(ReasonOperation)
	case r.RootID != e.RootID || e.RootID == "":
		return fail(ReasonRoot)
	case r.RelativePath != e.RelativePath || e.RelativePath == "":
		return fail(ReasonPath)
	case r.PolicyVersion != e.PolicyVersion || e.PolicyVersion == "":
		return fail(ReasonPolicyVersion)
	case r.AdapterBuildSha256 != e.AdapterBuildSha256 || !hex64.MatchString(e.AdapterBuildSha256):
		return fail(ReasonAdapter)
	case r.PlatformProfile == "" || len(v.o.PlatformProfiles) > 0 && !slices.Contains(v.o.PlatformProfiles, r.PlatformProfile):
		return fail(ReasonPlatform)
	case e.MaxBytes <= 0 || e.ContentBytes > e.MaxBytes:
		return fail(ReasonTooLarge)
	}
	now := e.Now
	if now.IsZero() {
		now = time.Now()
	}
	issued, err1 := time.Parse(time.RFC3339Nano, r.IssuedAt)
	expires, err2 := time.Parse(time.RFC3339Nano, r.ExpiresAt)
	if err1 != nil || err2 != nil || issued.After(now.Add(v.o.ClockSkew)) || !now.Before(expires) ||
		!expires.After(issued) || expires.Sub(issued) > v.o.MaxLifetime {
		return fail(ReasonStale)
	}
	if !hex64.MatchString(r.BytesSha256) || r.BytesSha256 != hex.EncodeToString(e.ContentSHA256[:]) {
		return fail(ReasonContent)
	}
	id := r.ObjectIdentity
	if id.Type != TypeRegular || id.Size != e.ContentBytes || id.FileID == "" || id.VolumeID == "" ||
		id.LinkCount < 1 || id.LinkCount > 1 && !v.o.AllowHardLinks {
		return fail(ReasonObject)
	}
	want, ok := digestOf(body)
	if !ok || r.ReceiptSha256 != want {
		return fail(ReasonDigest)
	}
	return nil
}

// digestOf is the receipt's own digest: the hex SHA-256 of the RFC 8785
// form of the receipt without its receiptSha256 member.
func digestOf(body map[string]any) (string, bool) {
	rest := make(map[string]any, len(body))
	for k, val := range body {
		if k != "receiptSha256" {
			rest[k] = val
		}
	}
	c, err := jcs.Append(nil, rest)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), true
}

// decodeObject decodes strict JSON into an object with exactly keys.
func decodeObject(data []byte, keys []string) (map[string]any, bool) {
	v, err := strictjson.Decode(data, 8)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok && exactKeys(m, keys)
}

func exactKeys(m map[string]any, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// decodeReceipt reads the receipt's fields, each of its exact type.
func decodeReceipt(body map[string]any) (*Receipt, bool) {
	if !exactKeys(body, receiptKeys) {
		return nil, false
	}
	r := &Receipt{}
	for _, f := range []struct {
		dst *string
		key string
	}{
		{&r.AdapterBuildSha256, "adapterBuildSha256"}, {&r.BytesSha256, "bytesSha256"},
		{&r.Control, "control"}, {&r.ExpiresAt, "expiresAt"}, {&r.IssuedAt, "issuedAt"},
		{&r.Operation, "operation"}, {&r.Outcome, "outcome"}, {&r.PlatformProfile, "platformProfile"},
		{&r.PolicyVersion, "policyVersion"}, {&r.ReceiptSha256, "receiptSha256"},
		{&r.RelativePath, "relativePath"}, {&r.RootID, "rootId"}, {&r.SchemaVersion, "schemaVersion"},
	} {
		s, ok := body[f.key].(string)
		if !ok {
			return nil, false
		}
		*f.dst = s
	}
	idm, ok := body["objectIdentity"].(map[string]any)
	if !ok || !exactKeys(idm, identityKeys) {
		return nil, false
	}
	var ok1, ok2, ok3, ok4, ok5 bool
	r.ObjectIdentity.FileID, ok1 = idm["fileId"].(string)
	r.ObjectIdentity.VolumeID, ok2 = idm["volumeId"].(string)
	r.ObjectIdentity.Type, ok3 = idm["type"].(string)
	r.ObjectIdentity.LinkCount, ok4 = uintOf(idm["linkCount"])
	r.ObjectIdentity.Size, ok5 = uintOf(idm["size"])
	return r, ok1 && ok2 && ok3 && ok4 && ok5
}

// uintOf reads a non-negative integer written without fraction or
// exponent.
func uintOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || !uintLiteral.MatchString(string(n)) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// Sign fills r's receiptSha256 and returns the signed envelope as JSON.
// It is for brokers written in Go, tests and the worked example
// (sanitize-worker receipt sign).
func Sign(priv ed25519.PrivateKey, keyID string, r Receipt) ([]byte, error) {
	if !keyIDPattern.MatchString(keyID) || len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("receipt: bad signing key")
	}
	r.ReceiptSha256 = ""
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	dec := json.NewDecoder(bytesReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	d, ok := digestOf(body)
	if !ok {
		return nil, errors.New("receipt: receipt cannot be canonicalized")
	}
	body["receiptSha256"] = d
	canon, err := jcs.Append(nil, body)
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(priv, canon)
	return json.Marshal(Signed{KeyID: keyID, Receipt: canon, Signature: base64.RawURLEncoding.EncodeToString(sig)})
}
