package statekeys

import (
	"bytes"
	"context"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"golang.org/x/crypto/chacha20poly1305"
)

// KeyState is the life-cycle state of one key in a ring.
type KeyState string

const (
	// KeyActive seals and opens. A ring has exactly one active key.
	KeyActive KeyState = "active"
	// KeyVerify opens but never seals: a previous key kept so that tokens
	// it sealed still open.
	KeyVerify KeyState = "verify"
	// KeyStaged opens but does not seal yet: the next key, distributed to
	// the fleet before it becomes active. A ring has at most one.
	KeyStaged KeyState = "staged"
	// KeyRetired neither seals nor opens; it stays in the file as a record.
	KeyRetired KeyState = "retired"
)

// RingFileVersion is the version of the key ring document.
const RingFileVersion = 1

// DefaultMaxRingBytes caps the size of a key ring document a Source reads.
const DefaultMaxRingBytes = 1 << 20

// keySize is the size of a ring secret (and of the derived AEAD key).
const keySize = 32

var keyIDPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$`)

// KeyInfo describes a key without its material. It is safe to log.
type KeyInfo struct {
	ID      string    `json:"id"`
	State   KeyState  `json:"state"`
	Created time.Time `json:"created"`
}

type ringKey struct {
	info   KeyInfo
	secret []byte
	aead   cipher.AEAD // XChaCha20-Poly1305 under a key derived from secret
}

// Ring is an immutable set of keys with exactly one active key. Build one
// with ParseRing or GenerateRing; derive a changed ring with Rotate and
// Retire. A Ring never prints or marshals its key material except through
// MarshalFile and WriteFile.
type Ring struct {
	keys   []*ringKey
	byID   map[string]*ringKey
	active *ringKey
	sum    [32]byte // fingerprint of the document, to detect changes
}

// ringFile is the on-disk (and in-KV, and in-environment) format.
type ringFile struct {
	Version int           `json:"version"`
	Keys    []ringFileKey `json:"keys"`
}

type ringFileKey struct {
	ID      string   `json:"id"`
	State   KeyState `json:"state"`
	Created string   `json:"created"`
	Secret  string   `json:"secret"` // base64url, no padding, 32 bytes
}

// ParseRing parses a key ring document (see docs/statekeys.md). Errors never
// contain any part of the document.
func ParseRing(data []byte) (*Ring, error) {
	var f ringFile
	if err := strictUnmarshal(data, &f); err != nil {
		return nil, ringError(ReasonRingMalformed)
	}
	if f.Version != RingFileVersion {
		return nil, ringError(ReasonRingMalformed)
	}
	keys := make([]*ringKey, 0, len(f.Keys))
	for _, fk := range f.Keys {
		created, err := time.Parse(time.RFC3339Nano, fk.Created)
		if err != nil {
			return nil, ringError(ReasonRingKey)
		}
		secret, err := base64.RawURLEncoding.Strict().DecodeString(fk.Secret)
		if err != nil || len(secret) != keySize || !canonicalBase64(secret, fk.Secret) {
			return nil, ringError(ReasonRingKey)
		}
		k, err := newRingKey(KeyInfo{ID: fk.ID, State: fk.State, Created: created.UTC()}, secret)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	r, err := newRing(keys)
	if err != nil {
		return nil, err
	}
	r.sum = sha256.Sum256(data)
	return r, nil
}

func newRingKey(info KeyInfo, secret []byte) (*ringKey, error) {
	if !keyIDPattern.MatchString(info.ID) {
		return nil, ringError(ReasonRingKey)
	}
	switch info.State {
	case KeyActive, KeyVerify, KeyStaged, KeyRetired:
	default:
		return nil, ringError(ReasonRingKey)
	}
	if len(secret) != keySize {
		return nil, ringError(ReasonRingKey)
	}
	k := &ringKey{info: info, secret: append([]byte(nil), secret...)}
	if info.State != KeyRetired {
		dk, err := hkdf.Key(sha256.New, secret, nil, "mcp-sanitize/statekeys/v1/xchacha20poly1305/"+info.ID, chacha20poly1305.KeySize)
		if err != nil {
			return nil, ringError(ReasonRingKey)
		}
		aead, err := chacha20poly1305.NewX(dk)
		if err != nil {
			return nil, ringError(ReasonRingKey)
		}
		k.aead = aead
	}
	return k, nil
}

func newRing(keys []*ringKey) (*Ring, error) {
	r := &Ring{keys: keys, byID: make(map[string]*ringKey, len(keys))}
	staged := 0
	for _, k := range keys {
		if k.info.State == KeyStaged {
			if staged++; staged > 1 {
				return nil, ringError(ReasonRingStaged)
			}
		}
		if _, dup := r.byID[k.info.ID]; dup {
			return nil, ringError(ReasonRingDuplicate)
		}
		r.byID[k.info.ID] = k
		if k.info.State == KeyActive {
			if r.active != nil {
				return nil, ringError(ReasonRingActive)
			}
			r.active = k
		}
	}
	if r.active == nil {
		return nil, ringError(ReasonRingActive)
	}
	return r, nil
}

// GenerateRing returns a new ring with one active key. rnd defaults to
// crypto/rand.Reader.
func GenerateRing(rnd io.Reader, now time.Time) (*Ring, error) {
	k, err := generateKey(rnd, now, KeyActive, nil)
	if err != nil {
		return nil, err
	}
	r, err := newRing([]*ringKey{k})
	if err != nil {
		return nil, err
	}
	r.refreshSum()
	return r, nil
}

func generateKey(rnd io.Reader, now time.Time, state KeyState, taken map[string]*ringKey) (*ringKey, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	for range 8 {
		var b [keySize + 4]byte
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return nil, unavailable(ReasonRandFailed)
		}
		id := "k" + now.UTC().Format("20060102") + "-" + hex.EncodeToString(b[keySize:])
		if _, dup := taken[id]; dup {
			continue
		}
		return newRingKey(KeyInfo{ID: id, State: state, Created: now.UTC().Truncate(time.Second)}, b[:keySize])
	}
	return nil, ringError(ReasonRingDuplicate)
}

// Rotate returns a new ring. Without stage, the staged key if there is one,
// else a new key, becomes active, and the previous active key is kept in
// state verify so that what it sealed still opens. With stage, a new key is
// added in state staged: it opens at once but seals only after a later
// Rotate promotes it, which lets every worker learn a key before any worker
// seals with it (a ring holds at most one staged key). The returned KeyInfo
// describes the added or promoted key.
func (r *Ring) Rotate(rnd io.Reader, now time.Time, stage bool) (*Ring, KeyInfo, error) {
	keys := make([]*ringKey, len(r.keys))
	copy(keys, r.keys)
	var staged *ringKey
	for _, k := range r.keys {
		if k.info.State == KeyStaged {
			staged = k
		}
	}
	if stage {
		if staged != nil {
			return nil, KeyInfo{}, ringError(ReasonRingStaged)
		}
		k, err := generateKey(rnd, now, KeyStaged, r.byID)
		if err != nil {
			return nil, KeyInfo{}, err
		}
		keys = append(keys, k)
		nr, err := newRing(keys)
		if err != nil {
			return nil, KeyInfo{}, err
		}
		nr.refreshSum()
		return nr, k.info, nil
	}
	next := staged
	if next == nil {
		k, err := generateKey(rnd, now, KeyActive, r.byID)
		if err != nil {
			return nil, KeyInfo{}, err
		}
		keys = append(keys, k)
		next = k
	}
	for i, k := range keys {
		switch k {
		case r.active:
			keys[i] = k.withState(KeyVerify)
		case next:
			keys[i] = k.withState(KeyActive)
			next = keys[i]
		}
	}
	nr, err := newRing(keys)
	if err != nil {
		return nil, KeyInfo{}, err
	}
	nr.refreshSum()
	return nr, next.info, nil
}

// Retire returns a new ring in which key id no longer opens anything. The
// active key cannot be retired; rotate first.
func (r *Ring) Retire(id string) (*Ring, error) {
	k, ok := r.byID[id]
	if !ok || k == r.active {
		return nil, ringError(ReasonRingKey)
	}
	keys := make([]*ringKey, len(r.keys))
	for i, rk := range r.keys {
		keys[i] = rk
		if rk == k {
			keys[i] = rk.withState(KeyRetired)
		}
	}
	nr, err := newRing(keys)
	if err != nil {
		return nil, err
	}
	nr.refreshSum()
	return nr, nil
}

func (k *ringKey) withState(s KeyState) *ringKey {
	info := k.info
	info.State = s
	nk, err := newRingKey(info, k.secret)
	if err != nil { // unreachable: the same key was valid a moment ago
		panic("statekeys: key became invalid on state change")
	}
	return nk
}

// Keys describes every key of the ring, in file order, without material.
func (r *Ring) Keys() []KeyInfo {
	out := make([]KeyInfo, len(r.keys))
	for i, k := range r.keys {
		out[i] = k.info
	}
	return out
}

// Active describes the active key.
func (r *Ring) Active() KeyInfo { return r.active.info }

// String describes the ring without key material.
func (r *Ring) String() string {
	return fmt.Sprintf("statekeys.Ring{active: %s, keys: %d}", r.active.info.ID, len(r.keys))
}

// GoString is String, so %#v cannot print key material either.
func (r *Ring) GoString() string { return r.String() }

// opener returns the AEAD for id, or the reason it cannot open.
func (r *Ring) opener(id string) (cipher.AEAD, Reason) {
	k, ok := r.byID[id]
	if !ok {
		return nil, ReasonUnknownKey
	}
	if k.info.State == KeyRetired || k.aead == nil {
		return nil, ReasonRetiredKey
	}
	return k.aead, ReasonNone
}

// MarshalFile returns the ring document, key material included. It is the
// only way key material leaves a Ring; write it only to a 0600 file or a
// protected KV bucket.
func (r *Ring) MarshalFile() ([]byte, error) {
	f := ringFile{Version: RingFileVersion, Keys: make([]ringFileKey, len(r.keys))}
	for i, k := range r.keys {
		f.Keys[i] = ringFileKey{
			ID:      k.info.ID,
			State:   k.info.State,
			Created: k.info.Created.UTC().Format(time.RFC3339),
			Secret:  base64.RawURLEncoding.EncodeToString(k.secret),
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, ringError(ReasonRingMalformed)
	}
	return append(b, '\n'), nil
}

func (r *Ring) refreshSum() {
	if b, err := r.MarshalFile(); err == nil {
		r.sum = sha256.Sum256(b)
	}
}

// WriteFile writes the ring document to path atomically (temporary file in
// the same directory, fsync, rename) with mode 0600.
func (r *Ring) WriteFile(path string) error {
	b, err := r.MarshalFile()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".statekeys-*.tmp")
	if err != nil {
		return ringError(ReasonRingFile)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return ringError(ReasonRingFile)
	}
	if _, err := tmp.Write(b); err != nil {
		return ringError(ReasonRingFile)
	}
	if err := tmp.Sync(); err != nil {
		return ringError(ReasonRingFile)
	}
	if err := tmp.Close(); err != nil {
		return ringError(ReasonRingFile)
	}
	if err := os.Rename(name, path); err != nil {
		return ringError(ReasonRingFile)
	}
	ok = true
	return nil
}

// Source yields the current key ring. Implementations: FileSource,
// EnvSource, and the worker's KV-bucket source.
type Source interface {
	// Load returns the ring as it is now. It must not return a partially
	// read ring; on error the caller keeps its previous ring.
	Load(ctx context.Context) (*Ring, error)
}

// FileSource reads a key ring document from a file. It refuses files that
// are readable or writable by others than owner and group (mode & 0o007),
// and files larger than MaxBytes.
type FileSource struct {
	Path string
	// MaxBytes caps the file size; 0 means DefaultMaxRingBytes.
	MaxBytes int64
}

// Load implements Source.
func (s FileSource) Load(context.Context) (*Ring, error) {
	max := s.MaxBytes
	if max <= 0 {
		max = DefaultMaxRingBytes
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, ringError(ReasonRingFile)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o007 != 0 {
		return nil, ringError(ReasonRingFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(b)) > max {
		return nil, ringError(ReasonRingFile)
	}
	return ParseRing(b)
}

// EnvSource reads a key ring document from an environment variable. The
// value is the ring document itself, or "base64:" followed by its standard
// base64 encoding. Environment values cannot change in a running process, so
// rotation with EnvSource needs a restart; prefer FileSource or the KV source.
type EnvSource struct {
	Name string
	// Lookup defaults to os.LookupEnv.
	Lookup func(string) (string, bool)
}

// Load implements Source.
func (s EnvSource) Load(context.Context) (*Ring, error) {
	lookup := s.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, ok := lookup(s.Name)
	if !ok || v == "" || len(v) > DefaultMaxRingBytes*2 {
		return nil, ringError(ReasonRingFile)
	}
	data := []byte(v)
	if rest, found := bytes.CutPrefix(data, []byte("base64:")); found {
		dec, err := base64.StdEncoding.DecodeString(string(rest))
		if err != nil {
			return nil, ringError(ReasonRingMalformed)
		}
		data = dec
	}
	return ParseRing(data)
}

// Keyring holds the current Ring and swaps it atomically, so that a rotation
// reaches every Seal and Verify without a restart. The zero value is not
// usable; use NewKeyring.
type Keyring struct {
	cur atomic.Pointer[Ring]
}

// NewKeyring returns a Keyring holding r.
func NewKeyring(r *Ring) (*Keyring, error) {
	if r == nil {
		return nil, ringError(ReasonRingActive)
	}
	k := &Keyring{}
	k.cur.Store(r)
	return k, nil
}

// Ring returns the current ring.
func (k *Keyring) Ring() *Ring { return k.cur.Load() }

// Swap replaces the current ring. It reports whether the ring changed (a
// ring with the same document fingerprint is not swapped).
func (k *Keyring) Swap(r *Ring) (bool, error) {
	if r == nil || r.active == nil {
		return false, ringError(ReasonRingActive)
	}
	old := k.cur.Load()
	if old != nil && old.sum == r.sum {
		return false, nil
	}
	return k.cur.CompareAndSwap(old, r), nil
}

// Reload loads src and swaps the ring if it changed. On error the previous
// ring stays in place.
func (k *Keyring) Reload(ctx context.Context, src Source) (bool, error) {
	r, err := src.Load(ctx)
	if err != nil {
		return false, err
	}
	return k.Swap(r)
}

// Watch calls Reload every interval until ctx is done. Errors go to onErr
// (which may be nil) and leave the previous ring in place. Use it with a
// FileSource; the worker's KV source pushes changes itself.
func (k *Keyring) Watch(ctx context.Context, src Source, every time.Duration, onErr func(error)) {
	if every <= 0 {
		every = DefaultReloadInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := k.Reload(ctx, src); err != nil && onErr != nil {
				onErr(err)
			}
		}
	}
}

// DefaultReloadInterval is how often Watch reloads a source by default.
const DefaultReloadInterval = 10 * time.Second
