package resgate

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

// Policy is the resources part of the policy file ("resources"). It is
// part of the signed policy: the alias to root id map, MIME types, byte
// cap, adapter digest and broker keys are what G003 asks to keep in
// signed configuration. The policy's version is the policy file's.
type Policy struct {
	// Schemes accepted in resource URIs (package resuri). Required.
	Schemes []resuri.Scheme `json:"schemes"`
	// Roots maps a root alias of a KindRoot scheme to its root.
	Roots map[string]Root `json:"roots,omitempty"`
	// FileRoots maps an absolute directory to its root, for file:// URIs.
	FileRoots map[string]Root `json:"fileRoots,omitempty"`
	// AdapterBuildSha256 is the digest of the broker adapter build that
	// receipts must name; required when local roots are configured.
	AdapterBuildSha256 string `json:"adapterBuildSha256,omitempty"`
	// BrokerKeys maps a broker key id to its Ed25519 public key (base64url,
	// no padding). Without any, local-file resources are refused.
	BrokerKeys map[string]string `json:"brokerKeys,omitempty"`
	// MaxResourceBytes caps the decoded bytes of one content
	// (DefaultMaxResourceBytes).
	MaxResourceBytes int64 `json:"maxResourceBytes,omitempty"`
	// MaxContents caps the contents of one result (DefaultMaxContents).
	MaxContents int `json:"maxContents,omitempty"`
	// MaxURIBytes caps a URI (resuri.DefaultMaxLength).
	MaxURIBytes int `json:"maxUriBytes,omitempty"`
	// Receipt tunes receipt verification.
	Receipt ReceiptPolicy `json:"receipt,omitempty"`
}

// Root is one local root.
type Root struct {
	RootID string `json:"rootId"`
	// MIMEType is the media type every content of the root is given.
	MIMEType string `json:"mimeType"`
}

// ReceiptPolicy tunes package receipt (receipt.Options).
type ReceiptPolicy struct {
	// MaxLifetime, a Go duration ("5m"), caps expiresAt - issuedAt.
	MaxLifetime string `json:"maxLifetime,omitempty"`
	// ClockSkew, a Go duration, is how far issuedAt may be in the future.
	ClockSkew string `json:"clockSkew,omitempty"`
	// PlatformProfiles lists the broker platform profiles accepted (any
	// non-empty one when empty).
	PlatformProfiles []string `json:"platformProfiles,omitempty"`
	// AllowHardLinks accepts objects with more than one link.
	AllowHardLinks bool `json:"allowHardLinks,omitempty"`
}

// Defaults.
const (
	DefaultMaxResourceBytes = 4 << 20
	DefaultMaxContents      = 16
)

// ErrPolicy is what an invalid resources policy's error wraps.
var ErrPolicy = errors.New("resgate: invalid resources policy")

var (
	hex64    = lazyre.New(`^[a-f0-9]{64}$`)
	mimeType = lazyre.New(`^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$`)
)

// Gate is a compiled resources policy. It is immutable and safe for
// concurrent use.
type Gate struct {
	version   string
	uris      *resuri.Parser
	roots     map[string]Root // by root id
	adapter   string
	verifier  *receipt.Verifier // nil: local files disabled
	maxBytes  int64
	maxResult int64
	maxItems  int
}

// Compile checks p and builds a Gate; version is the policy's version,
// which receipts and authorization requests are bound to.
func Compile(p *Policy, version string) (*Gate, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: none", ErrPolicy)
	}
	if version == "" {
		return nil, fmt.Errorf("%w: no policy version", ErrPolicy)
	}
	g := &Gate{version: version, roots: map[string]Root{}, adapter: p.AdapterBuildSha256,
		maxBytes: p.MaxResourceBytes, maxItems: p.MaxContents}
	if g.maxBytes == 0 {
		g.maxBytes = DefaultMaxResourceBytes
	}
	if g.maxItems == 0 {
		g.maxItems = DefaultMaxContents
	}
	if g.maxBytes < 0 || g.maxItems < 0 || p.MaxURIBytes < 0 {
		return nil, fmt.Errorf("%w: negative limit", ErrPolicy)
	}
	if len(p.Schemes) == 0 {
		return nil, fmt.Errorf("%w: no scheme", ErrPolicy)
	}
	// Base64 of the largest content, plus room for the rest of the result.
	g.maxResult = (g.maxBytes+2)/3*4 + 64<<10
	o := resuri.Options{Schemes: p.Schemes, Roots: map[string]string{}, FileRoots: map[string]string{}, MaxLength: p.MaxURIBytes}
	add := func(where, key string, r Root) error {
		if r.RootID == "" || !mimeType.MatchString(r.MIMEType) {
			return fmt.Errorf("%w: %s %q needs a rootId and a lower-case mimeType", ErrPolicy, where, key)
		}
		if _, dup := g.roots[r.RootID]; dup {
			return fmt.Errorf("%w: root id %q twice", ErrPolicy, r.RootID)
		}
		g.roots[r.RootID] = r
		return nil
	}
	for alias, r := range p.Roots {
		if err := add("root", alias, r); err != nil {
			return nil, err
		}
		o.Roots[alias] = r.RootID
	}
	for dir, r := range p.FileRoots {
		if err := add("file root", dir, r); err != nil {
			return nil, err
		}
		o.FileRoots[dir] = r.RootID
	}
	var err error
	if g.uris, err = resuri.New(o); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	if len(g.roots) > 0 && !hex64.MatchString(p.AdapterBuildSha256) {
		return nil, fmt.Errorf("%w: adapterBuildSha256 must be 64 lower-case hex digits", ErrPolicy)
	}
	if len(p.BrokerKeys) > 0 {
		keys := map[string]ed25519.PublicKey{}
		for id, k := range p.BrokerKeys {
			pub, err := base64.RawURLEncoding.Strict().DecodeString(k)
			if err != nil || len(pub) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("%w: broker key %q is not a base64url Ed25519 public key", ErrPolicy, id)
			}
			keys[id] = pub
		}
		ro := receipt.Options{PlatformProfiles: p.Receipt.PlatformProfiles, AllowHardLinks: p.Receipt.AllowHardLinks}
		for _, f := range []struct {
			text string
			d    *time.Duration
		}{{p.Receipt.MaxLifetime, &ro.MaxLifetime}, {p.Receipt.ClockSkew, &ro.ClockSkew}} {
			if f.text == "" {
				continue
			}
			if *f.d, err = time.ParseDuration(f.text); err != nil || *f.d < 0 {
				return nil, fmt.Errorf("%w: receipt durations are Go durations", ErrPolicy)
			}
		}
		if g.verifier, err = receipt.NewVerifier(keys, ro); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
		}
	}
	return g, nil
}

// MaxResultBytes is the largest result the gate reads; a larger one is
// refused (ReasonTooLarge).
func (g *Gate) MaxResultBytes() int64 { return g.maxResult }

// URIs returns the gate's URI parser (for templates and tooling).
func (g *Gate) URIs() *resuri.Parser { return g.uris }

// TemplateAccepts reports whether the RFC 6570 template, expanded with
// vars, is a URI the policy accepts (package resuri's rules, applied after
// expansion). A template that does not parse, or puts an expression in
// its scheme or authority, accepts nothing.
func (g *Gate) TemplateAccepts(template string, vars map[string]any) bool {
	t, err := g.uris.ParseTemplate(template)
	if err != nil {
		return false
	}
	_, err = g.uris.Expand(t, vars)
	return err == nil
}

// VerifyReceipt checks a signed receipt for content of the given length
// and SHA-256 read as the canonical URI u, as Check does (for operator
// tooling: sanitize-worker resources verify).
func (g *Gate) VerifyReceipt(signed []byte, u resuri.URI, n int64, sum [32]byte) (*receipt.Receipt, error) {
	if g.verifier == nil {
		return nil, deny(ReasonBrokerUnavailable, -1)
	}
	return g.verifier.Verify(signed, receipt.Expect{RootID: u.RootID, RelativePath: u.RelativePath,
		PolicyVersion: g.version, AdapterBuildSha256: g.adapter, MaxBytes: g.maxBytes, ContentBytes: n, ContentSHA256: sum})
}
