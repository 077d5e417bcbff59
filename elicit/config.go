package elicit

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// Documents that configure a Guard from files (sanitize-worker state
// --policy-keys and --form-policies; see docs/statekeys.md). Both are read
// as strict I-JSON with exact member names and carry a version.

// ConfigVersion is the version of the policy keys and form policies
// documents.
const ConfigVersion = 1

// MaxConfigBytes caps a policy keys or form policies document.
const MaxConfigBytes = 1 << 20

// maxPolicyKeys caps the reviewer keys of one document.
const maxPolicyKeys = 256

// maxInstalledPolicies caps the policies of one document.
const maxInstalledPolicies = 1024

// policyKeysDoc is the trusted reviewer keys document:
//
//	{"version": 1, "keys": [{"id": "reviewer-1", "publicKey": "<base64url Ed25519 public key>"}]}
type policyKeysDoc struct {
	Version int             `json:"version"`
	Keys    []policyKeyJSON `json:"keys"`
}

type policyKeyJSON struct {
	ID string `json:"id"`
	// PublicKey is the 32-byte Ed25519 public key, unpadded base64url (43
	// characters), in its one spelling.
	PublicKey string `json:"publicKey"`
}

// ParsePolicyKeys parses a trusted reviewer keys document for
// WithPolicyKeys: a version, and one or more keys, each an id (as a form
// policy's keyId names it) and an Ed25519 public key. Unknown members,
// other letter case, duplicate members or ids, a key that is not 32 bytes
// of canonical unpadded base64url are refused. The error is an
// *statekeys.Error with CodeFormRefused and ReasonFormPolicyKeys; it
// carries no part of the document.
func ParsePolicyKeys(data []byte) (map[string]ed25519.PublicKey, error) {
	bad := formRefused(statekeys.ReasonFormPolicyKeys, "", "")
	if len(data) > MaxConfigBytes {
		return nil, bad
	}
	var doc policyKeysDoc
	if err := strictUnmarshal(data, &doc); err != nil || doc.Version != ConfigVersion ||
		len(doc.Keys) == 0 || len(doc.Keys) > maxPolicyKeys {
		return nil, bad
	}
	keys := make(map[string]ed25519.PublicKey, len(doc.Keys))
	for _, k := range doc.Keys {
		pub, err := base64.RawURLEncoding.Strict().DecodeString(k.PublicKey)
		if err != nil || len(pub) != ed25519.PublicKeySize || base64.RawURLEncoding.EncodeToString(pub) != k.PublicKey {
			return nil, bad
		}
		if _, dup := keys[k.ID]; dup || !policyIDPattern.MatchString(k.ID) {
			return nil, bad
		}
		keys[k.ID] = ed25519.PublicKey(pub)
	}
	return keys, nil
}

// MarshalPolicyKeys writes a trusted reviewer keys document (for reviewer
// tooling and tests); ParsePolicyKeys reads it back.
func MarshalPolicyKeys(keys map[string]ed25519.PublicKey) ([]byte, error) {
	doc := policyKeysDoc{Version: ConfigVersion}
	for id, pub := range keys {
		doc.Keys = append(doc.Keys, policyKeyJSON{ID: id, PublicKey: base64.RawURLEncoding.EncodeToString(pub)})
	}
	slices.SortFunc(doc.Keys, func(a, b policyKeyJSON) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := ParsePolicyKeys(b); err != nil {
		return nil, err
	}
	return b, nil
}

// formPoliciesDoc is the installed form policies document:
//
//	{"version": 1, "policies": [{"policy": {…}, "keyId": "reviewer-1", "signature": "…"}]}
type formPoliciesDoc struct {
	Version  int                `json:"version"`
	Policies []SignedFormPolicy `json:"policies"`
}

// ParseFormPolicies parses an installed form policies document for
// WithFormPolicies: a version and one or more signed form policies as
// SignFormPolicy returns them. It checks the document's shape only (with
// exact member names); WithFormPolicies verifies each signature against
// the policy keys when New runs. The error is an *statekeys.Error with
// CodeFormRefused and ReasonFormPolicyInvalid; it carries no part of the
// document.
func ParseFormPolicies(data []byte) ([]SignedFormPolicy, error) {
	bad := formRefused(statekeys.ReasonFormPolicyInvalid, "", "")
	if len(data) > MaxConfigBytes {
		return nil, bad
	}
	var doc formPoliciesDoc
	if err := strictUnmarshal(data, &doc); err != nil || doc.Version != ConfigVersion ||
		len(doc.Policies) == 0 || len(doc.Policies) > maxInstalledPolicies {
		return nil, bad
	}
	return doc.Policies, nil
}

// MarshalFormPolicies writes an installed form policies document (for
// reviewer tooling and tests); ParseFormPolicies reads it back.
func MarshalFormPolicies(p ...SignedFormPolicy) ([]byte, error) {
	b, err := json.MarshalIndent(formPoliciesDoc{Version: ConfigVersion, Policies: p}, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := ParseFormPolicies(b); err != nil {
		return nil, err
	}
	return b, nil
}
