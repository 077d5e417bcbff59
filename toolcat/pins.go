package toolcat

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Pins keeps the pinned definitions of tools (docs/pinning.md) in the
// catalog's bucket, one entry per tool under the key pin.<server>.<tool>
// (the tool token as Key spells it): three tokens, so no pin key is ever a
// catalog key (always two). Each entry holds the pinned digest (SHA-256 of
// the RFC 8785 form of the sanitized definition), that definition, and the
// last definition seen that differs from it (the candidate, for tools
// diff and tools approve).
//
// The first pin of a tool is written with KV create (compare-and-set on
// "no entry"): of two workers that race to pin different definitions, one
// wins and the other reads the winner's pin and reports the change, so
// every worker gives the same verdict whichever saw the first list.
type Pins struct {
	kv jetstream.KeyValue
}

// NewPins returns the pins of a bucket (the catalog's, wire.BucketTools).
func NewPins(kv jetstream.KeyValue) *Pins { return &Pins{kv: kv} }

// Pins returns the pins kept in the catalog's bucket.
func (c *Catalog) Pins() *Pins { return NewPins(c.kv) }

// PinRecord is one tool's pin entry.
type PinRecord struct {
	// Digest is the pinned digest ("sha256:<hex>"); empty once revoked.
	Digest string `json:"digest,omitempty"`
	// Definition is the pinned definition (RFC 8785), sanitized.
	Definition json.RawMessage `json:"definition,omitempty"`
	// Revoked: no definition is trusted until one is approved.
	Revoked bool `json:"revoked,omitempty"`
	// Candidate is the last definition seen that differs from the pin.
	Candidate *PinCandidate `json:"candidate,omitempty"`
	// Updated is when the entry was last written (RFC 3339, UTC).
	Updated string `json:"updated"`
	// Revision is the KV revision the record was read at (not stored).
	Revision uint64 `json:"-"`
}

// PinCandidate is a definition seen that differs from the pin.
type PinCandidate struct {
	Digest     string          `json:"digest"`
	Definition json.RawMessage `json:"definition"`
	Seen       string          `json:"seen"`
}

// Verdicts of Pin, spelled like pipeline.PinState.
const (
	PinFirst   = "pinned"
	PinMatch   = "match"
	PinChanged = "changed"
)

// maxPinnedDefinition bounds the definition kept in a pin entry; a larger
// definition is pinned by digest only.
const maxPinnedDefinition = 256 << 10

// PinKey is the KV key of a tool's pin.
func PinKey(server, tool string) (string, error) {
	k, err := Key(server, tool)
	if err != nil {
		return "", err
	}
	return "pin." + k, nil
}

// Pin compares a definition's digest with the tool's pin, pins it when
// the tool has none, and keeps it as the candidate when it differs. It
// returns the verdict and, for PinChanged, the pinned digest ("" when
// revoked).
func (p *Pins) Pin(ctx context.Context, server, tool, digest string, def []byte) (verdict, pinned string, err error) {
	key, err := PinKey(server, tool)
	if err != nil {
		return "", "", err
	}
	if len(def) > maxPinnedDefinition {
		def = nil
	}
	for range 4 {
		rec, err := p.get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			b, _ := json.Marshal(PinRecord{Digest: digest, Definition: def, Updated: now()})
			if _, err := p.kv.Create(ctx, key, b); err == nil {
				return PinFirst, "", nil
			} else if !errors.Is(err, jetstream.ErrKeyExists) {
				return "", "", fail(CodeUnavailable, -1)
			}
			continue // another worker pinned first: read its pin
		case err != nil:
			return "", "", err
		}
		if !rec.Revoked && rec.Digest == digest {
			return PinMatch, "", nil
		}
		if rec.Candidate == nil || rec.Candidate.Digest != digest {
			// Best effort: the verdict does not depend on the write.
			rec.Candidate = &PinCandidate{Digest: digest, Definition: def, Seen: now()}
			rec.Updated = now()
			b, _ := json.Marshal(rec)
			_, _ = p.kv.Update(ctx, key, b, rec.Revision)
		}
		return PinChanged, rec.Digest, nil
	}
	return "", "", fail(CodeUnavailable, -1)
}

// Get returns a tool's pin entry (ErrNotFound when it has none).
func (p *Pins) Get(ctx context.Context, server, tool string) (*PinRecord, error) {
	key, err := PinKey(server, tool)
	if err != nil {
		return nil, err
	}
	rec, err := p.get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fail(CodeNotFound, -1)
	}
	return rec, err
}

func (p *Pins) get(ctx context.Context, key string) (*PinRecord, error) {
	e, err := p.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fail(CodeUnavailable, -1)
	}
	var rec PinRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, fail(CodeInvalid, -1)
	}
	rec.Revision = e.Revision()
	return &rec, nil
}

// Approve pins a definition: the candidate's when digest is empty or names
// it, else (pre-approval) the given digest and definition. A tool without
// an entry gets one (approval before first use).
func (p *Pins) Approve(ctx context.Context, server, tool, digest string, def []byte) (*PinRecord, error) {
	key, err := PinKey(server, tool)
	if err != nil {
		return nil, err
	}
	rec, err := p.get(ctx, key)
	var rev uint64
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		rec = &PinRecord{}
	case err != nil:
		return nil, err
	default:
		rev = rec.Revision
	}
	switch {
	case rec.Candidate != nil && (digest == "" || digest == rec.Candidate.Digest) && def == nil:
		rec.Digest, rec.Definition = rec.Candidate.Digest, rec.Candidate.Definition
	case digest != "":
		rec.Digest, rec.Definition = digest, def
	default:
		return nil, fail(CodeNotFound, -1) // nothing to approve
	}
	rec.Candidate, rec.Revoked, rec.Updated = nil, false, now()
	b, _ := json.Marshal(rec)
	if rev == 0 {
		_, err = p.kv.Create(ctx, key, b)
	} else {
		_, err = p.kv.Update(ctx, key, b, rev)
	}
	if err != nil {
		return nil, fail(CodeUnavailable, -1)
	}
	return rec, nil
}

// Revoke withdraws a tool's pin: until a definition is approved, every
// definition of it is a change (held under pinning: hold).
func (p *Pins) Revoke(ctx context.Context, server, tool string) error {
	key, err := PinKey(server, tool)
	if err != nil {
		return err
	}
	rec := PinRecord{Revoked: true, Updated: now()}
	b, _ := json.Marshal(rec)
	if _, err := p.kv.Put(ctx, key, b); err != nil {
		return fail(CodeUnavailable, -1)
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
