package pipeline

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/mcp-sanitize/mcp-sanitize/resgate"
)

// The evidence of the seed guards on success: a guarded resources/read
// that passes records what the gate vouched for, so that an audit can
// tie a delivered content to the broker's receipt (receiptSha256 is the
// seed's digest of the receipt, which the broker logs) and tell reads of
// one resource apart from reads of others, without the resource's URI (a
// path) being in evidence.

// ResourceRecord is what the resources guard vouched for.
type ResourceRecord struct {
	// URIFingerprint is the keyed fingerprint of the canonical URI read:
	// the first 16 bytes of HMAC-SHA256 under the fingerprint key of
	// "resource-uri", NUL, the URI, in hex. Equal URIs give equal
	// fingerprints under one key; the URI cannot be read back, nor
	// confirmed by a guess without the key.
	URIFingerprint string `json:"uriFingerprint"`
	// ReceiptSha256 lists the receiptSha256 of each broker receipt
	// verified, in content order (at most maxRecordedReceipts).
	ReceiptSha256 []string `json:"receiptSha256,omitempty"`
}

// DroppedRecord is one list item a guard removed.
type DroppedRecord struct {
	// Index is the item's position in the list as the server sent it;
	// Item its name, restricted like Tool.
	Index int    `json:"index"`
	Item  string `json:"item,omitempty"`
	// Reason is the stable reason (a resuri reason for a template).
	Reason string `json:"reason"`
}

// maxRecordedReceipts bounds ResourceRecord.ReceiptSha256 (the gate's
// default cap of contents).
const maxRecordedReceipts = resgate.DefaultMaxContents

// resourceRecord is the evidence of an accepted resources/read.
func (e *Engine) resourceRecord(acc *resgate.Accepted) *ResourceRecord {
	m := hmac.New(sha256.New, e.fpKey)
	m.Write([]byte("resource-uri\x00"))
	m.Write([]byte(acc.CanonicalURI))
	sum := m.Sum(nil)
	r := &ResourceRecord{URIFingerprint: hex.EncodeToString(sum[:16])}
	for _, d := range acc.Receipts {
		if len(r.ReceiptSha256) == maxRecordedReceipts {
			break
		}
		r.ReceiptSha256 = append(r.ReceiptSha256, d)
	}
	return r
}
