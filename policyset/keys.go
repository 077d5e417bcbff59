package policyset

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
)

// KeyFileVersion is the version of the trusted keys and signing key files.
const KeyFileVersion = 1

// MaxKeyFileBytes caps a trusted keys or signing key file.
const MaxKeyFileBytes = 1 << 20

// maxTrustedKeys caps the keys of one trusted keys file.
const maxTrustedKeys = 256

// keyIDRE is the form of a key id: a token that may go into logs.
var keyIDRE = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)

// Trust is the set of public keys a worker accepts policies from, by key
// id. The zero Trust accepts nothing.
type Trust struct {
	keys map[string]ed25519.PublicKey
}

// Len returns the number of trusted keys.
func (t Trust) Len() int { return len(t.keys) }

// Key returns the trusted key of an id.
func (t Trust) Key(id string) (ed25519.PublicKey, bool) {
	k, ok := t.keys[id]
	return k, ok
}

// IDs returns the trusted key ids, sorted.
func (t Trust) IDs() []string {
	s := make([]string, 0, len(t.keys))
	for id := range t.keys {
		s = append(s, id)
	}
	slices.Sort(s)
	return s
}

// NewTrust returns a Trust of the given keys (tests and tooling).
func NewTrust(keys map[string]ed25519.PublicKey) (Trust, error) {
	t := Trust{keys: map[string]ed25519.PublicKey{}}
	for id, k := range keys {
		if !keyIDRE.MatchString(id) || len(k) != ed25519.PublicKeySize {
			return Trust{}, refused(ReasonBadKeyFile, "")
		}
		t.keys[id] = slices.Clone(k)
	}
	return t, nil
}

// AddTrusted returns t with one more key; an id t holds already is
// refused (ReasonBadKeyFile).
func AddTrusted(t Trust, id string, pub ed25519.PublicKey) (Trust, error) {
	if _, dup := t.keys[id]; dup {
		return Trust{}, refused(ReasonBadKeyFile, "")
	}
	m := map[string]ed25519.PublicKey{id: pub}
	for k, v := range t.keys {
		m[k] = v
	}
	return NewTrust(m)
}

// trustDoc is the trusted keys file (`--policy-trust FILE`):
//
//	{"version": 1, "keys": [{"id": "ops-1", "publicKey": "<base64url Ed25519 public key>"}]}
type trustDoc struct {
	Version int        `json:"version"`
	Keys    []trustKey `json:"keys"`
}

type trustKey struct {
	ID string `json:"id"`
	// PublicKey is the 32-byte key in unpadded base64url, its one spelling.
	PublicKey string `json:"publicKey"`
}

// ParseTrust reads a trusted keys file. Unknown members, duplicate ids, a
// key that is not 32 bytes in canonical unpadded base64url, or no key at
// all are refused (ReasonBadKeyFile).
func ParseTrust(data []byte) (Trust, error) {
	bad := refused(ReasonBadKeyFile, "")
	if len(data) > MaxKeyFileBytes {
		return Trust{}, bad
	}
	var doc trustDoc
	if err := strictjson.Unmarshal(data, 8, &doc); err != nil || doc.Version != KeyFileVersion ||
		len(doc.Keys) == 0 || len(doc.Keys) > maxTrustedKeys {
		return Trust{}, bad
	}
	t := Trust{keys: make(map[string]ed25519.PublicKey, len(doc.Keys))}
	for _, k := range doc.Keys {
		pub, ok := decodeKey(k.PublicKey, ed25519.PublicKeySize)
		if !ok || !keyIDRE.MatchString(k.ID) {
			return Trust{}, bad
		}
		if _, dup := t.keys[k.ID]; dup {
			return Trust{}, bad
		}
		t.keys[k.ID] = ed25519.PublicKey(pub)
	}
	return t, nil
}

// MarshalTrust writes the trusted keys file of t.
func MarshalTrust(t Trust) ([]byte, error) {
	doc := trustDoc{Version: KeyFileVersion}
	for _, id := range t.IDs() {
		doc.Keys = append(doc.Keys, trustKey{ID: id, PublicKey: base64.RawURLEncoding.EncodeToString(t.keys[id])})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SigningKey is an Ed25519 private key and the id that names it in
// envelopes and trusted keys files.
type SigningKey struct {
	ID  string
	Key ed25519.PrivateKey
}

// Public returns the public half.
func (k SigningKey) Public() ed25519.PublicKey { return k.Key.Public().(ed25519.PublicKey) }

// signingKeyDoc is the signing key file (`policy sign --key FILE`):
//
//	{"version": 1, "id": "ops-1", "seed": "<base64url 32-byte Ed25519 seed>"}
type signingKeyDoc struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	Seed    string `json:"seed"`
}

// GenerateKey draws a new signing key.
func GenerateKey(id string) (SigningKey, error) {
	if !keyIDRE.MatchString(id) {
		return SigningKey{}, refused(ReasonBadKeyFile, "")
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return SigningKey{}, err
	}
	return SigningKey{ID: id, Key: priv}, nil
}

// ParseSigningKey reads a signing key file.
func ParseSigningKey(data []byte) (SigningKey, error) {
	bad := refused(ReasonBadKeyFile, "")
	if len(data) > MaxKeyFileBytes {
		return SigningKey{}, bad
	}
	var doc signingKeyDoc
	if err := strictjson.Unmarshal(data, 4, &doc); err != nil || doc.Version != KeyFileVersion || !keyIDRE.MatchString(doc.ID) {
		return SigningKey{}, bad
	}
	seed, ok := decodeKey(doc.Seed, ed25519.SeedSize)
	if !ok {
		return SigningKey{}, bad
	}
	return SigningKey{ID: doc.ID, Key: ed25519.NewKeyFromSeed(seed)}, nil
}

// MarshalSigningKey writes the signing key file of k (secret: write it
// with mode 0600).
func MarshalSigningKey(k SigningKey) ([]byte, error) {
	if !keyIDRE.MatchString(k.ID) || len(k.Key) != ed25519.PrivateKeySize {
		return nil, refused(ReasonBadKeyFile, "")
	}
	b, err := json.MarshalIndent(signingKeyDoc{Version: KeyFileVersion, ID: k.ID, Seed: base64.RawURLEncoding.EncodeToString(k.Key.Seed())}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// LoadSigningKey reads a signing key file, refusing one that others than
// its owner and group may read or anyone but its owner may write (mode
// 0600, 0640 or narrower).
func LoadSigningKey(path string) (SigningKey, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o027 != 0 || fi.Size() > MaxKeyFileBytes {
		return SigningKey{}, refused(ReasonBadKeyFile, "")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return SigningKey{}, refused(ReasonBadKeyFile, "")
	}
	return ParseSigningKey(b)
}

// LoadTrust reads a trusted keys file.
func LoadTrust(path string) (Trust, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxKeyFileBytes {
		return Trust{}, refused(ReasonBadKeyFile, "")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Trust{}, refused(ReasonBadKeyFile, "")
	}
	return ParseTrust(b)
}

// decodeKey decodes unpadded base64url of n bytes in its one spelling (the
// decoder skips CR and LF, so the text is encoded again and compared).
func decodeKey(s string, n int) ([]byte, bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != n || base64.RawURLEncoding.EncodeToString(b) != s || strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	return b, true
}
