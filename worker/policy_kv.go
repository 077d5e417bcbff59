package worker

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/policyset"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The policy bucket (wire.BucketPolicies) holds signed policy envelopes
// (package policyset):
//
//   - versions.<version>: every version ever pushed, written once (a
//     version is immutable: pushing it again with another digest is
//     refused). ':' in a version is written '=' (KV keys have no ':').
//   - active: the envelope every worker runs, a copy of one version's.
//   - shadow: the candidate run beside it for evidence only (absent: none).
//
// Workers verify every envelope they read against their trusted keys
// (PolicyWatcher); Push verifies before it writes, so a refused envelope
// never reaches the bucket through it.
const (
	PolicyKeyActive     = "active"
	PolicyKeyShadow     = "shadow"
	policyVersionPrefix = "versions."
)

// DefaultPolicyHistory is how many revisions of each key the bucket keeps:
// the previous actives Rollback can return to.
const DefaultPolicyHistory = 64

// Errors of the policy bucket. Their text carries no backend detail.
var (
	// ErrPolicyVersionExists: the version was pushed before with another
	// digest.
	ErrPolicyVersionExists = errors.New("worker: policy version exists with another digest")
	// ErrPolicyNotFound: no such version, or no earlier active to roll
	// back to.
	ErrPolicyNotFound = errors.New("worker: policy version not found")
	// ErrPolicyStore: the bucket could not be read or written.
	ErrPolicyStore = errors.New("worker: policy bucket unavailable")
)

// EnsurePolicyBucket creates or updates the policy bucket; replicas 0
// keeps an existing bucket as it is (a command that pushes a policy never
// scales down the fleet's replicated bucket) and creates a missing one
// with one replica. Restrict writes
// to it to the operators who push policies: a worker refuses an envelope
// it cannot verify, but whoever can delete "active" can make workers fall
// back to their configured policy.
func EnsurePolicyBucket(ctx context.Context, js jetstream.JetStream, bucket string, replicas int) (jetstream.KeyValue, error) {
	if bucket == "" {
		bucket = wire.BucketPolicies
	}
	if replicas == 0 {
		kv, err := js.KeyValue(ctx, bucket)
		switch {
		case err == nil:
			return kv, nil
		case !errors.Is(err, jetstream.ErrBucketNotFound):
			// Unreadable (no leader, an outage): never recreated
			// with one replica.
			return nil, ErrPolicyStore
		}
		replicas = 1
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:       bucket,
		Description:  "mcp-sanitize: signed sanitization policies",
		History:      DefaultPolicyHistory,
		MaxValueSize: policyset.MaxEnvelopeBytes,
		Storage:      jetstream.FileStorage,
		Replicas:     replicas,
	})
	if err != nil {
		return nil, ErrPolicyStore
	}
	return kv, nil
}

// PolicyVersionKey is the key of a version in the bucket.
func PolicyVersionKey(version string) string {
	return policyVersionPrefix + strings.ReplaceAll(version, ":", "=")
}

// PolicyStore pushes, lists and rolls back signed policies in the bucket.
type PolicyStore struct {
	KV    jetstream.KeyValue
	Trust policyset.Trust
}

// Push verifies env and makes it the active (or, with shadow, the shadow)
// policy: it writes versions.<version> if absent and then the role's key.
// A refused envelope (policyset.ErrRefused) writes nothing.
func (s PolicyStore) Push(ctx context.Context, env []byte, shadow bool) (*policyset.Signed, error) {
	sp, err := policyset.Verify(env, s.Trust)
	if err != nil {
		return nil, err
	}
	if err := s.putVersion(ctx, env, sp); err != nil {
		return nil, err
	}
	key := PolicyKeyActive
	if shadow {
		key = PolicyKeyShadow
	}
	if _, err := s.KV.Put(ctx, key, env); err != nil {
		return nil, ErrPolicyStore
	}
	return sp, nil
}

func (s PolicyStore) putVersion(ctx context.Context, env []byte, sp *policyset.Signed) error {
	key := PolicyVersionKey(sp.Envelope.Version)
	_, err := s.KV.Create(ctx, key, env)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, jetstream.ErrKeyExists):
		return ErrPolicyStore
	}
	e, err := s.KV.Get(ctx, key)
	if err != nil {
		return ErrPolicyStore
	}
	old, err := policyset.ParseEnvelope(e.Value())
	if err != nil || old.Digest != sp.Envelope.Digest {
		return ErrPolicyVersionExists
	}
	return nil
}

// ClearShadow removes the shadow policy.
func (s PolicyStore) ClearShadow(ctx context.Context) error {
	if err := s.KV.Delete(ctx, PolicyKeyShadow); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return ErrPolicyStore
	}
	return nil
}

// Get returns the envelope of a version as stored.
func (s PolicyStore) Get(ctx context.Context, version string) ([]byte, error) {
	e, err := s.KV.Get(ctx, PolicyVersionKey(version))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, ErrPolicyNotFound
	case err != nil:
		return nil, ErrPolicyStore
	}
	return e.Value(), nil
}

// Role returns the envelope under "active" or "shadow" (nil when absent).
func (s PolicyStore) Role(ctx context.Context, key string) ([]byte, error) {
	e, err := s.KV.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, nil
	case err != nil:
		return nil, ErrPolicyStore
	}
	return e.Value(), nil
}

// PolicyListing is one stored version.
type PolicyListing struct {
	Version  string `json:"version"`
	Digest   string `json:"digest"`
	SignedAt string `json:"signedAt"`
	KeyID    string `json:"keyId"`
	// Verified reports that the envelope verifies with the store's trusted
	// keys.
	Verified bool `json:"verified"`
	Active   bool `json:"active,omitempty"`
	Shadow   bool `json:"shadow,omitempty"`
	// Revision is the KV revision of the version's entry: the order of
	// pushes.
	Revision uint64 `json:"revision"`
}

// List returns every stored version in the order they were pushed.
func (s PolicyStore) List(ctx context.Context) ([]PolicyListing, error) {
	lister, err := s.KV.ListKeys(ctx)
	if err != nil {
		return nil, ErrPolicyStore
	}
	var keys []string
	for k := range lister.Keys() {
		if strings.HasPrefix(k, policyVersionPrefix) {
			keys = append(keys, k)
		}
	}
	roles := map[string]string{}
	for _, r := range []string{PolicyKeyActive, PolicyKeyShadow} {
		if b, err := s.Role(ctx, r); err != nil {
			return nil, err
		} else if env, err := policyset.ParseEnvelope(b); b != nil && err == nil {
			roles[r] = env.Version
		}
	}
	var out []PolicyListing
	for _, k := range keys {
		e, err := s.KV.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		env, err := policyset.ParseEnvelope(e.Value())
		if err != nil {
			out = append(out, PolicyListing{Version: strings.TrimPrefix(k, policyVersionPrefix), Revision: e.Revision()})
			continue
		}
		_, verr := policyset.Verify(e.Value(), s.Trust)
		out = append(out, PolicyListing{
			Version: env.Version, Digest: env.Digest, SignedAt: env.SignedAt, KeyID: env.KeyID,
			Verified: verr == nil, Revision: e.Revision(),
			Active: roles[PolicyKeyActive] == env.Version, Shadow: roles[PolicyKeyShadow] == env.Version,
		})
	}
	slices.SortFunc(out, func(a, b PolicyListing) int { return int(a.Revision) - int(b.Revision) })
	return out, nil
}

// Rollback makes a stored version active again: version, or when empty the
// most recent earlier active whose version differs from the current one
// (from the history of "active"). The envelope is verified as a push is.
func (s PolicyStore) Rollback(ctx context.Context, version string) (*policyset.Signed, error) {
	var env []byte
	if version != "" {
		b, err := s.Get(ctx, version)
		if err != nil {
			return nil, err
		}
		env = b
	} else {
		hist, err := s.KV.History(ctx, PolicyKeyActive)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			return nil, ErrPolicyNotFound
		case err != nil:
			return nil, ErrPolicyStore
		}
		cur := ""
		for i := len(hist) - 1; i >= 0 && env == nil; i-- {
			e := hist[i]
			if e.Operation() != jetstream.KeyValuePut {
				continue
			}
			pe, err := policyset.ParseEnvelope(e.Value())
			if err != nil {
				continue
			}
			if i == len(hist)-1 {
				cur = pe.Version
				continue
			}
			if pe.Version != cur {
				if _, err := policyset.Verify(e.Value(), s.Trust); err == nil {
					env = e.Value()
				}
			}
		}
		if env == nil {
			return nil, ErrPolicyNotFound
		}
	}
	sp, err := policyset.Verify(env, s.Trust)
	if err != nil {
		return nil, err
	}
	if _, err := s.KV.Put(ctx, PolicyKeyActive, env); err != nil {
		return nil, ErrPolicyStore
	}
	return sp, nil
}
