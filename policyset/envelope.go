package policyset

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"sigs.k8s.io/yaml"
)

// Format is the envelope format this package writes and reads.
const Format = 1

// MaxPolicyBytes caps the policy document of an envelope (as
// pipeline.LoadPolicy caps a policy file).
const MaxPolicyBytes = 4 << 20

// MaxEnvelopeBytes caps an envelope: its policy and a few hundred bytes of
// members, with room for the policy's JSON being written with escapes.
const MaxEnvelopeBytes = 2*MaxPolicyBytes + 4096

// maxDepth bounds the nesting of an envelope (the policy's deepest member
// is four levels down).
const maxDepth = 32

// signingContext is prefixed to the signed bytes so that a signature over
// an envelope can never be taken for a signature over anything else the
// same key might sign.
const signingContext = "mcp-sanitize policy envelope v1\n"

// versionRE is the policy version's form (pipeline: version).
var versionRE = lazyre.New(`^[A-Za-z0-9._:-]{1,64}$`)

// digestRE is the form of Envelope.Digest.
var digestRE = lazyre.New(`^sha256:[0-9a-f]{64}$`)

// Envelope is a signed policy as written by `policy sign` and kept in the
// policy bucket. Signature is an Ed25519 signature, by the key KeyID names,
// over signingContext and the RFC 8785 form of every other member, so
// neither the policy nor its version, digest, time or key id can change
// without the signature failing.
type Envelope struct {
	Format int `json:"format"`
	// Version is the policy's version (its "version" member).
	Version string `json:"version"`
	// Digest is "sha256:<hex>" of Policy's RFC 8785 form: the policy's
	// identity in listings, evidence and diffs.
	Digest string `json:"digest"`
	// SignedAt is when it was signed, RFC 3339 in UTC.
	SignedAt string `json:"signedAt"`
	KeyID    string `json:"keyId"`
	// Policy is the policy document (docs/policy.md) as JSON.
	Policy json.RawMessage `json:"policy"`
	// Signature is the 64-byte signature in unpadded base64url.
	Signature string `json:"signature"`
}

// Signed is an envelope that verified, with its policy validated.
type Signed struct {
	Envelope Envelope
	// Policy is the envelope's policy with its defaults filled.
	Policy *pipeline.Policy
}

// Sign signs a policy document (JSON or YAML, docs/policy.md) with key.
// version, when not empty, becomes the policy's version; else the document
// must name one. "default", the name of the built-in policy, is refused,
// and so is a document that pipeline.ParsePolicy refuses
// (ReasonInvalidPolicy). It returns the envelope's JSON (one line and a
// newline) and what Verify would return for it.
func Sign(key SigningKey, doc []byte, version string, now time.Time) ([]byte, *Signed, error) {
	if len(doc) > MaxPolicyBytes {
		return nil, nil, refused(ReasonTooLarge, "")
	}
	if !keyIDRE.MatchString(key.ID) || len(key.Key) != ed25519.PrivateKeySize {
		return nil, nil, refused(ReasonBadKeyFile, "")
	}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, nil, refused(ReasonInvalidPolicy, "")
	}
	v, err := jcs.Parse(js, maxDepth)
	if err != nil {
		return nil, nil, refused(ReasonInvalidPolicy, "")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, refused(ReasonInvalidPolicy, "")
	}
	if version != "" {
		m["version"] = version
	}
	ver, _ := m["version"].(string)
	if !versionRE.MatchString(ver) || ver == "default" {
		return nil, nil, refused(ReasonInvalidPolicy, "")
	}
	canon, err := jcs.Append(nil, m)
	if err != nil {
		return nil, nil, refused(ReasonInvalidPolicy, ver)
	}
	p, err := pipeline.ParsePolicy(canon)
	if err != nil {
		return nil, nil, refused(ReasonInvalidPolicy, ver)
	}
	env := Envelope{
		Format:   Format,
		Version:  ver,
		Digest:   digestOf(canon),
		SignedAt: now.UTC().Truncate(time.Second).Format(time.RFC3339),
		KeyID:    key.ID,
		Policy:   canon,
	}
	msg, err := signingInput(&env)
	if err != nil {
		return nil, nil, refused(ReasonInvalidPolicy, ver)
	}
	env.Signature = base64.RawURLEncoding.EncodeToString(ed25519.Sign(key.Key, msg))
	out, err := json.Marshal(&env)
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), &Signed{Envelope: env, Policy: p}, nil
}

// ParseEnvelope reads an envelope's members without checking its
// signature (for listings). Verify is what decides whether it is used.
func ParseEnvelope(data []byte) (*Envelope, error) {
	if len(data) > MaxEnvelopeBytes {
		return nil, refused(ReasonTooLarge, "")
	}
	var env Envelope
	if err := strictjson.Unmarshal(data, maxDepth, &env); err != nil {
		return nil, refused(ReasonMalformed, "")
	}
	if env.Format != Format || !versionRE.MatchString(env.Version) {
		return nil, refused(ReasonMalformed, "")
	}
	ver := env.Version
	if env.Signature == "" || env.KeyID == "" {
		return nil, refused(ReasonUnsigned, ver)
	}
	if !keyIDRE.MatchString(env.KeyID) || !digestRE.MatchString(env.Digest) || len(env.Policy) == 0 {
		return nil, refused(ReasonMalformed, ver)
	}
	if t, err := time.Parse(time.RFC3339, env.SignedAt); err != nil || t.Format(time.RFC3339) != env.SignedAt {
		return nil, refused(ReasonMalformed, ver)
	}
	return &env, nil
}

// Verify checks an envelope against the trusted keys and returns it with
// its policy validated. Every refusal is an *Error (ErrRefused) whose
// Reason says why: malformed or too large, unsigned, a key not trusted, a
// signature that does not verify (a wrong key, or any signed member
// changed), a policy that does not hash to its digest, or one that does not
// validate or whose version is not the envelope's.
func Verify(data []byte, trust Trust) (*Signed, error) {
	env, err := ParseEnvelope(data)
	if err != nil {
		return nil, err
	}
	ver := env.Version
	pub, ok := trust.keys[env.KeyID]
	if !ok {
		return nil, refused(ReasonUntrustedKey, ver)
	}
	sig, ok := decodeKey(env.Signature, ed25519.SignatureSize)
	if !ok {
		return nil, refused(ReasonBadSignature, ver)
	}
	canon, err := jcs.Canonicalize(env.Policy)
	if err != nil {
		return nil, refused(ReasonMalformed, ver)
	}
	env.Policy = canon
	msg, err := signingInput(env)
	if err != nil {
		return nil, refused(ReasonMalformed, ver)
	}
	if !ed25519.Verify(pub, msg, sig) {
		return nil, refused(ReasonBadSignature, ver)
	}
	if digestOf(canon) != env.Digest {
		return nil, refused(ReasonDigestMismatch, ver)
	}
	p, err := pipeline.ParsePolicy(canon)
	if err != nil || p.Version != env.Version {
		return nil, refused(ReasonInvalidPolicy, ver)
	}
	return &Signed{Envelope: *env, Policy: p}, nil
}

// signingInput is what the signature covers: signingContext and the RFC
// 8785 form of the envelope without its signature.
func signingInput(env *Envelope) ([]byte, error) {
	u := *env
	u.Signature = ""
	b, err := json.Marshal(struct {
		Format   int             `json:"format"`
		Version  string          `json:"version"`
		Digest   string          `json:"digest"`
		SignedAt string          `json:"signedAt"`
		KeyID    string          `json:"keyId"`
		Policy   json.RawMessage `json:"policy"`
	}{u.Format, u.Version, u.Digest, u.SignedAt, u.KeyID, u.Policy})
	if err != nil {
		return nil, err
	}
	c, err := jcs.Canonicalize(b)
	if err != nil {
		return nil, err
	}
	return append([]byte(signingContext), c...), nil
}

func digestOf(canon []byte) string {
	h := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(h[:])
}
