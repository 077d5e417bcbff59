package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestResourceEvidenceOnSuccess: a resources/read that passes records the
// verified receipt's digest and a keyed fingerprint of the canonical URI;
// neither the URI, nor its path, nor the receipt's body is in evidence.
// Two spellings of one URI give one fingerprint; another URI another.
func TestResourceEvidenceOnSuccess(t *testing.T) {
	pol := resourcePolicy()
	e, err := NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	content := "# A\nhello\n"
	rec := guardReceipt(t, content)
	var signed struct {
		Receipt struct {
			ReceiptSha256 string `json:"receiptSha256"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal([]byte(rec), &signed); err != nil || len(signed.Receipt.ReceiptSha256) != 64 {
		t.Fatalf("receipt %s: %v", rec, err)
	}
	scan := func(reqURI, uri, body string) *Evidence {
		var out Buffer
		ev, err := e.Sanitize(context.Background(), strings.NewReader(body), &out, resourceInfo(reqURI, "ALLOW"))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	local := func(uri string) string {
		return `{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"` + uri + `","text":"# A\nhello\n","_meta":{"aidefend_path_broker_receipt":` + rec + `}}]}}`
	}
	ev := scan("aidefend-file://docs/a.md", "", local("aidefend-file://docs/a.md"))
	if ev.Outcome == OutcomeRejected || ev.Guard == nil || ev.Guard.Resource == nil {
		t.Fatalf("evidence %+v", ev)
	}
	r := ev.Guard.Resource
	if len(r.ReceiptSha256) != 1 || r.ReceiptSha256[0] != signed.Receipt.ReceiptSha256 || len(r.URIFingerprint) != 32 {
		t.Fatalf("resource record %+v", r)
	}
	j := string(ev.AppendJSON(nil))
	for _, leak := range []string{"a.md", "docs", "aidefend-file", "signature", "hello"} {
		if strings.Contains(j, leak) {
			t.Errorf("evidence holds %q: %s", leak, j)
		}
	}
	if !strings.Contains(j, `"receiptSha256":["`+signed.Receipt.ReceiptSha256+`"]`) || !strings.Contains(j, `"uriFingerprint":"`+r.URIFingerprint+`"`) {
		t.Fatalf("evidence JSON %s", j)
	}
	same := scan("AIDEFEND-FILE://Docs/a.md", "", local("aidefend-file://DOCS/a.md"))
	if same.Guard == nil || same.Guard.Resource == nil || same.Guard.Resource.URIFingerprint != r.URIFingerprint {
		t.Fatalf("another spelling of the URI: %+v", same.Guard)
	}
	other := scan("https://example.com/x", "", `{"contents":[{"uri":"https://example.com/x","text":"hi"}]}`)
	if other.Guard == nil || other.Guard.Resource == nil || other.Guard.Resource.URIFingerprint == r.URIFingerprint || len(other.Guard.Resource.ReceiptSha256) != 0 {
		t.Fatalf("https resource: %+v", other.Guard)
	}
	// A refusal has no resource record (the reason is the evidence).
	denied := scan("aidefend-file://docs/../a.md", "", local("aidefend-file://docs/a.md"))
	if denied.Outcome != OutcomeRejected || denied.Guard != nil && denied.Guard.Resource != nil {
		t.Fatalf("refused: %+v", denied)
	}
}
