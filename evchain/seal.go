package evchain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
)

// A sealed record ends in its link, written exactly so:
//
//	…,"chain":{"id":"<chain>","seq":<n>,"prev":"sha256:<hex>","hash":"sha256:<hex>"}}
//
// hash is SHA-256 of the record's bytes up to the end of the prev member
// followed by "}}" (the record as it would end without the hash member),
// and prev is the hash of the record of sequence n-1 of the same chain
// (64 zeros for n = 1). A record is verified as its bytes are, so it must
// be kept as published (a JSON re-encoding breaks it).
const (
	linkOpen   = `,"chain":{"id":"`
	hashMember = `,"hash":"sha256:`
	// hashTail is the length of the hash member and the closing braces.
	hashTail = len(hashMember) + 64 + len(`"}}`)
)

// MaxChainID is the longest chain id.
const MaxChainID = 128

// MaxVoid caps the void sequences one checkpoint lists; more are counted.
const MaxVoid = 4096

// checkpointContext is prefixed to a checkpoint's signed bytes.
const checkpointContext = "mcp-sanitize evidence checkpoint v1\n"

// ErrRecord: Seal was given something that is not a JSON object.
var ErrRecord = errors.New("evchain: a record must be a JSON object")

// Sealer seals the records of one chain. Its zero value is not usable:
// NewSealer draws nothing, the chain id must be unique (a worker's name
// and its start time, or a random id), so a restarted worker starts a new
// chain.
type Sealer struct {
	chain string
	key   ed25519.PrivateKey
	keyID string

	mu       sync.Mutex
	seq      uint64
	prev     [32]byte
	cpSeq    uint64   // the head at the last checkpoint
	void     []uint64 // the latest MaxVoid void sequences of the chain
	voidMore int64    // void sequences dropped from void
	voidCP   int64    // voids counted at the last checkpoint
}

// NewSealer returns the sealer of a chain. key may be nil: records are then
// linked but Checkpoint returns nothing.
func NewSealer(chain string, keyID string, key ed25519.PrivateKey) (*Sealer, error) {
	if !validChainID(chain) || (key != nil && (len(key) != ed25519.PrivateKeySize || !validChainID(keyID))) {
		return nil, errors.New("evchain: chain id and key id must be [A-Za-z0-9._:-]{1,128} and the key an Ed25519 private key")
	}
	return &Sealer{chain: chain, key: key, keyID: keyID}, nil
}

// Chain returns the chain id.
func (s *Sealer) Chain() string { return s.chain }

// Seal appends rec (one JSON object) with its link to dst and returns the
// result and the record's sequence. Records are sealed one at a time.
func (s *Sealer) Seal(dst, rec []byte) ([]byte, uint64, error) {
	rec = bytes.TrimRight(rec, " \t\r\n")
	if len(rec) < 2 || rec[0] != '{' || rec[len(rec)-1] != '}' {
		return dst, 0, ErrRecord
	}
	start := len(dst)
	dst = append(dst, rec[:len(rec)-1]...)
	if len(rec) > 2 {
		dst = append(dst, linkOpen...)
	} else {
		dst = append(dst, linkOpen[1:]...)
	}
	dst = append(dst, s.chain...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	dst = strconv.AppendUint(append(dst, `","seq":`...), s.seq, 10)
	dst = append(dst, `,"prev":"sha256:`...)
	dst = hex.AppendEncode(dst, s.prev[:])
	dst = append(dst, `"}}`...)
	h := sha256.Sum256(dst[start:])
	dst = dst[:len(dst)-2]
	dst = append(dst, hashMember...)
	dst = hex.AppendEncode(dst, h[:])
	dst = append(dst, `"}}`...)
	s.prev = h
	return dst, s.seq, nil
}

// Unvouched returns how many records were sealed since the last
// checkpoint: the records a cut of the stream's tail could remove
// undetected until the next checkpoint.
func (s *Sealer) Unvouched() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq - s.cpSeq
}

// Void records that the record of sequence seq was not stored (its publish
// failed for good, or the stream dropped it as a duplicate of a record
// stored before). Every later checkpoint lists it (the latest MaxVoid of
// the chain), so a verifier does not report it as removed, even when a
// checkpoint is lost.
func (s *Sealer) Void(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.void) == MaxVoid {
		s.void = append(s.void[:0], s.void[1:]...)
		s.voidMore++
	}
	s.void = append(s.void, seq)
}

// Checkpoint is what a checkpoint vouches for: the head of a chain.
type Checkpoint struct {
	Chain string `json:"chain"`
	// Seq and Hash are the sequence and hash of the last record sealed.
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
	At   string `json:"at"`
	// Void lists the sequences of the chain that were sealed and not
	// stored, the latest MaxVoid; VoidMore counts the earlier ones.
	Void     []uint64 `json:"void,omitempty"`
	VoidMore int64    `json:"voidMore,omitempty"`
	KeyID    string   `json:"keyId"`
}

// checkpointDoc is a checkpoint as published: {"checkpoint":{…},"signature":"…"}.
type checkpointDoc struct {
	Checkpoint Checkpoint `json:"checkpoint"`
	Signature  string     `json:"signature"`
}

// Checkpoint returns a signed checkpoint of the chain's head, or nil when
// nothing was sealed or voided since the last one, or the sealer
// has no key.
func (s *Sealer) Checkpoint(now time.Time) []byte {
	if s.key == nil {
		return nil
	}
	s.mu.Lock()
	nv := int64(len(s.void)) + s.voidMore
	if s.seq == s.cpSeq && nv == s.voidCP {
		s.mu.Unlock()
		return nil
	}
	cp := Checkpoint{Chain: s.chain, Seq: s.seq, Hash: "sha256:" + hex.EncodeToString(s.prev[:]), At: now.UTC().Format(time.RFC3339Nano),
		Void: slices.Clone(s.void), VoidMore: s.voidMore, KeyID: s.keyID}
	s.cpSeq, s.voidCP = s.seq, nv
	s.mu.Unlock()
	msg, err := checkpointInput(&cp)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(checkpointDoc{Checkpoint: cp, Signature: base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.key, msg))})
	if err != nil {
		return nil
	}
	return b
}

func checkpointInput(cp *Checkpoint) ([]byte, error) {
	b, err := json.Marshal(cp)
	if err != nil {
		return nil, err
	}
	c, err := jcs.Canonicalize(b)
	if err != nil {
		return nil, err
	}
	return append([]byte(checkpointContext), c...), nil
}

func validChainID(s string) bool {
	if s == "" || len(s) > MaxChainID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
