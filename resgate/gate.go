package resgate

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/internal/resultdoc"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

// _meta keys of a content. The receipt is the broker's (written by the
// server that relayed the broker result) and is consumed here; the two
// others are the seed's and are written only by the gate (a server's own
// are dropped).
const (
	MetaReceipt       = "aidefend_path_broker_receipt"
	MetaReceiptSha256 = "aidefend_path_broker_receipt_sha256"
	MetaPolicyVersion = "aidefend_resource_policy_version"
)

// Input is the context of one resources/read result.
type Input struct {
	Principal string
	Tenant    string
	Scopes    []string
	// Request is the JSON of the resources/read request's params
	// ({"uri": ...}); the requested URI is taken from it.
	Request []byte
	// Authorizer is the deployment's hook; nil denies every resource.
	Authorizer Authorizer
	// Now is the time of the check (time.Now when zero).
	Now time.Time
}

// Check guards one resources/read result (bare or a JSON-RPC response).
// It returns the result to hand to the normal pass, rewritten (canonical
// URIs, the root's MIME type, receipts replaced by their digest), or a
// Denial. A JSON-RPC error response is returned as it is (the pass
// sanitizes errors).
func (g *Gate) Check(ctx context.Context, in Input, body []byte) ([]byte, *Denial) {
	out, _, d := g.CheckAccepted(ctx, in, body)
	return out, d
}

// Accepted is what the gate vouched for in a result it let through, for
// evidence: the canonical URI read (the caller records a keyed digest of
// it, never the URI) and the digest of each receipt verified, in content
// order.
type Accepted struct {
	CanonicalURI string
	// Receipts are the receiptSha256 of the local contents' receipts.
	Receipts []string
}

// CheckAccepted is Check that also reports what it accepted (nil with a
// Denial, and for a JSON-RPC error response).
func (g *Gate) CheckAccepted(ctx context.Context, in Input, body []byte) ([]byte, *Accepted, *Denial) {
	out, acc, d := g.check(ctx, in, body)
	if d != nil {
		return nil, nil, d
	}
	return out, acc, nil
}

func (g *Gate) check(ctx context.Context, in Input, body []byte) ([]byte, *Accepted, *Denial) {
	if int64(len(body)) > g.maxResult {
		return nil, nil, deny(ReasonTooLarge, -1)
	}
	reqURI, ok := requestedURI(in.Request, g.uris.MaxLength())
	if !ok {
		return nil, nil, deny(ReasonNoRequest, -1)
	}
	want, err := g.uris.Parse(reqURI)
	if err != nil {
		return nil, nil, denyErr(err, -1)
	}
	local := want.Kind == resuri.KindRoot || want.Kind == resuri.KindFile
	if local && g.verifier == nil {
		return nil, nil, deny(ReasonBrokerUnavailable, -1)
	}
	areq := AuthzRequest{Principal: in.Principal, Tenant: in.Tenant, Scopes: in.Scopes, Action: "read",
		CanonicalURI: want.Canonical, PolicyVersion: g.version, Phase: PhaseRequested}
	if local {
		areq.RootID, areq.RelativePath = want.RootID, want.RelativePath
	}
	if d := g.authorize(ctx, in.Authorizer, areq, -1); d != nil {
		return nil, nil, d
	}
	doc, err := resultdoc.Decode(body)
	if err != nil {
		return nil, nil, deny(ReasonMalformed, -1)
	}
	if doc.IsError() {
		return body, nil, nil
	}
	items, ok := doc.Result["contents"].([]any)
	if !ok {
		return nil, nil, deny(ReasonMalformed, -1)
	}
	if len(items) > g.maxItems {
		return nil, nil, deny(ReasonTooLarge, -1)
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	changed := false
	acc := &Accepted{CanonicalURI: want.Canonical}
	for i, it := range items {
		item, ok := it.(map[string]any)
		if !ok {
			return nil, nil, deny(ReasonMalformed, i)
		}
		c, d := g.checkItem(ctx, in, want, local, item, i, now, acc)
		if d != nil {
			return nil, nil, d
		}
		changed = changed || c
	}
	if !changed {
		// Every URI was canonical already and nothing was removed: the
		// result goes on as it came (no re-encoding).
		return body, acc, nil
	}
	out, err := doc.Encode()
	if err != nil {
		return nil, nil, deny(ReasonMalformed, -1)
	}
	return out, acc, nil
}

// checkItem checks and rewrites one content, and reports whether it
// changed it.
func (g *Gate) checkItem(ctx context.Context, in Input, want resuri.URI, local bool, item map[string]any, i int, now time.Time, acc *Accepted) (changed bool, d *Denial) {
	raw, ok := item["uri"].(string)
	if !ok {
		return false, deny(ReasonMalformed, i)
	}
	u, err := g.uris.Parse(raw)
	if err != nil {
		return false, denyErr(err, i)
	}
	if u.Canonical != want.Canonical {
		return false, deny(ReasonURIMismatch, i)
	}
	changed = local || raw != u.Canonical
	item["uri"] = u.Canonical
	text, isText := item["text"].(string)
	blob, isBlob := item["blob"].(string)
	_, hasText := item["text"]
	_, hasBlob := item["blob"]
	if hasText == hasBlob || hasText && !isText || hasBlob && !isBlob {
		return false, deny(ReasonMalformed, i)
	}
	meta, _ := item["_meta"].(map[string]any)
	if _, present := item["_meta"]; present && meta == nil {
		return false, deny(ReasonMalformed, i)
	}
	var signed []byte
	if meta != nil {
		if env, ok := meta[MetaReceipt]; ok {
			signed, _ = json.Marshal(env)
		}
		// A server cannot set what the gate vouches for.
		for _, k := range []string{MetaReceipt, MetaReceiptSha256, MetaPolicyVersion} {
			if _, ok := meta[k]; ok {
				delete(meta, k)
				changed = true
			}
		}
	}
	if !local {
		return changed, nil
	}
	var content []byte
	if isText {
		content = []byte(text)
	} else {
		var err error
		// The re-encoding check refuses what the decoder skips (CR, LF),
		// so that one blob has one spelling.
		if content, err = base64.StdEncoding.Strict().DecodeString(blob); err != nil || base64.StdEncoding.EncodeToString(content) != blob {
			return false, deny(ReasonMalformed, i)
		}
	}
	if signed == nil {
		return false, deny(ReasonReceiptMissing, i)
	}
	r, err := g.verifier.Verify(signed, receipt.Expect{RootID: u.RootID, RelativePath: u.RelativePath,
		PolicyVersion: g.version, AdapterBuildSha256: g.adapter, MaxBytes: g.maxBytes,
		ContentBytes: int64(len(content)), ContentSHA256: sha256.Sum256(content), Now: now})
	if err != nil {
		return false, denyErr(err, i)
	}
	id := r.ObjectIdentity
	if d := g.authorize(ctx, in.Authorizer, AuthzRequest{Principal: in.Principal, Tenant: in.Tenant, Scopes: in.Scopes,
		Action: "read", CanonicalURI: u.Canonical, RootID: u.RootID, RelativePath: u.RelativePath,
		PolicyVersion: g.version, Phase: PhaseOpened, OpenedObject: &id, PathBrokerReceiptSha256: r.ReceiptSha256}, i); d != nil {
		return false, d
	}
	item["mimeType"] = g.roots[u.RootID].MIMEType
	if meta == nil {
		meta = map[string]any{}
		item["_meta"] = meta
	}
	meta[MetaReceiptSha256] = r.ReceiptSha256
	meta[MetaPolicyVersion] = g.version
	acc.Receipts = append(acc.Receipts, r.ReceiptSha256)
	return true, nil
}

// authorize asks the hook; anything but an explicit allow is a denial.
func (g *Gate) authorize(ctx context.Context, a Authorizer, req AuthzRequest, i int) *Denial {
	if a == nil {
		return deny(ReasonAuthzUnavailable, i)
	}
	if err := ctx.Err(); err != nil {
		return deny(ReasonAuthzUnavailable, i)
	}
	dec, err := a.Authorize(ctx, req)
	if err != nil {
		return deny(ReasonAuthzUnavailable, i)
	}
	if dec.Outcome != OutcomeAllow {
		return deny(ReasonAuthzDenied, i)
	}
	return nil
}

// requestedURI reads {"uri": "..."} from the request params (other
// members, such as _meta, are ignored).
func requestedURI(params []byte, max int) (string, bool) {
	if len(params) == 0 || len(params) > max+64<<10 {
		return "", false
	}
	v, err := strictjson.Decode(params, 16)
	if err != nil {
		return "", false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	s, ok := m["uri"].(string)
	return s, ok
}
