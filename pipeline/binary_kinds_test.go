package pipeline

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The binary content rules of resources/read and prompts/get results
// (binary_kinds.go): each case run whole, with reads of 1 to 64 bytes and
// (for small inputs) split in two at every offset; every split must give
// the same output and evidence.

var (
	resInfo    = MessageInfo{Kind: KindResourceResult}
	promptInfo = MessageInfo{Kind: KindPromptResult}
)

// kindParts sanitizes parts read one at a time as a message of info.
func kindParts(t testing.TB, e *Engine, info MessageInfo, parts [][]byte) (string, string, *Evidence) {
	t.Helper()
	var out Buffer
	ev, err := e.Sanitize(context.Background(), &pieces{parts: parts}, &out, info)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out.Bytes()) {
		t.Fatalf("output is not JSON: %q", out.String())
	}
	ev.DurationNanos = 0
	return out.String(), string(ev.AppendJSON(nil)), ev
}

// kindRun is binRun for a message of info.
func kindRun(t *testing.T, e *Engine, info MessageInfo, in string) (string, *Evidence) {
	t.Helper()
	want, wantEv, ev := kindParts(t, e, info, [][]byte{[]byte(in)})
	check := func(how string, parts [][]byte) {
		got, gotEv, _ := kindParts(t, e, info, parts)
		if got != want || gotEv != wantEv {
			t.Fatalf("%s: output differs:\n got %s\n     %s\nwant %s\n     %s", how, got, gotEv, want, wantEv)
		}
	}
	for size := 1; size <= 64; size++ {
		var parts [][]byte
		for i := 0; i < len(in); i += size {
			parts = append(parts, []byte(in[i:min(len(in), i+size)]))
		}
		check("reads of "+itoa(size), parts)
	}
	if len(in) <= 600 {
		for k := 1; k < len(in); k++ {
			check("split at "+itoa(k), [][]byte{[]byte(in[:k]), []byte(in[k:])})
		}
	}
	return want, ev
}

// bareNote is the note of a replaced item or block of a result that is
// not a tool result: no label.
func bareNote(mime, why string) string {
	return "[BINARY_REMOVED: binary content of type " + mime + " was removed: " + why + "]"
}

// decodeStrict decodes padded standard base64, failing on anything else.
func decodeStrict(t testing.TB, s string) string {
	t.Helper()
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || base64.StdEncoding.EncodeToString(b) != s {
		t.Fatalf("not valid base64 (%v): %q", err, s)
	}
	return string(b)
}

func TestBinaryKindsResource(t *testing.T) {
	e := binEngine(t, nil)
	const gh = "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"
	txt := b64("line one\ntoken " + gh + " end\n")
	gz := b64("\x1f\x8b\x08\x00" + pad16)
	gif := b64("GIF89a" + pad16)
	png := b64(pngBytes)
	other := `{"uri":"file:///b.txt","mimeType":"text/plain","text":"kept"}`
	for _, tc := range []struct {
		name    string
		item    string
		env     bool   // in a JSON-RPC envelope
		blob    string // the item's blob is kept: its decoded text must hold this
		same    string // the item's blob is kept as written
		note    string // the item is replaced by this note
		uri     string
		reason  wire.Reason
		mimeOut string
	}{
		{name: "text-mime-first", item: `{"uri":"file:///a.txt","mimeType":"text/plain","blob":"` + txt + `"}`,
			blob: "token [REDACTED:", uri: "file:///a.txt", mimeOut: "text/plain"},
		{name: "text-blob-first", item: `{"uri":"file:///a.txt","blob":"` + txt + `","mimeType":"text/plain; charset=utf-8"}`,
			blob: "token [REDACTED:", uri: "file:///a.txt", mimeOut: "text/plain; charset=utf-8"},
		{name: "text-uri-last", item: `{"blob":"` + txt + `","mimeType":"text/markdown","uri":"file:///a.md"}`,
			blob: "token [REDACTED:", uri: "file:///a.md", mimeOut: "text/markdown"},
		{name: "text-envelope", env: true, item: `{"uri":"file:///a.txt","blob":"` + txt + `","mimeType":"text/plain"}`,
			blob: "token [REDACTED:", uri: "file:///a.txt", mimeOut: "text/plain"},
		{name: "gzip-mime-first", item: `{"uri":"file:///a.gz","mimeType":"application/gzip","blob":"` + gz + `"}`,
			note: bareNote("application/gzip", whyType), uri: "file:///a.gz", reason: wire.ReasonMIMENotAllowed, mimeOut: "text/plain"},
		{name: "gzip-blob-first", item: `{"uri":"file:///a.gz","blob":"` + gz + `","mimeType":"application/gzip","_meta":{"k":1}}`,
			note: bareNote("application/gzip", whyType), uri: "file:///a.gz", reason: wire.ReasonMIMENotAllowed, mimeOut: "text/plain"},
		{name: "gzip-uri-last", item: `{"blob":"` + gz + `","mimeType":"application/gzip","uri":"file:///a.gz"}`,
			note: bareNote("application/gzip", whyType), uri: "file:///a.gz", reason: wire.ReasonMIMENotAllowed, mimeOut: "text/plain"},
		{name: "gzip-envelope", env: true, item: `{"mimeType":"application/gzip","uri":"file:///a.gz","blob":"` + gz + `"}`,
			note: bareNote("application/gzip", whyType), uri: "file:///a.gz", reason: wire.ReasonMIMENotAllowed, mimeOut: "text/plain"},
		{name: "png-wrong-magic-mime-first", item: `{"uri":"file:///a.png","mimeType":"image/png","blob":"` + gif + `"}`,
			note: bareNote("image/png", whyMismatch), uri: "file:///a.png", reason: wire.ReasonBinaryTypeMismatch, mimeOut: "text/plain"},
		{name: "png-wrong-magic-blob-first", item: `{"uri":"file:///a.png","blob":"` + gif + `","mimeType":"image/png"}`,
			note: bareNote("image/png", whyMismatch), uri: "file:///a.png", reason: wire.ReasonBinaryTypeMismatch, mimeOut: "text/plain"},
		{name: "blob-no-mime", item: `{"uri":"file:///a","blob":"` + png + `"}`,
			note: "[BINARY_REMOVED: binary content without a type was removed: " + whyType + "]", uri: "file:///a",
			reason: wire.ReasonMIMENotAllowed, mimeOut: "text/plain"},
		{name: "png-kept-blob-first", item: `{"uri":"file:///a.png","blob":"` + png + `","mimeType":"image/png"}`,
			same: png, uri: "file:///a.png", mimeOut: "image/png"},
		{name: "png-kept-mime-first", item: `{"uri":"file:///a.png","mimeType":"image/png","blob":"` + png + `"}`,
			same: png, uri: "file:///a.png", mimeOut: "image/png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"contents":[` + other + `,` + tc.item + `,` + other + `]}`
			info := resInfo
			if tc.env {
				in = `{"jsonrpc":"2.0","id":7,"result":` + in + `}`
				info.Framing = FramingJSONRPC
			}
			out, ev := kindRun(t, e, info, in)
			var r struct {
				Result struct {
					Contents []map[string]any `json:"contents"`
				} `json:"result"`
				Contents []map[string]any `json:"contents"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			c := r.Contents
			if tc.env {
				c = r.Result.Contents
			}
			if len(c) != 3 || c[0]["text"] != "kept" || c[2]["text"] != "kept" {
				t.Fatalf("the rest is not delivered: %s", out)
			}
			it := c[1]
			if it["uri"] != tc.uri || it["mimeType"] != tc.mimeOut {
				t.Fatalf("item %v", it)
			}
			switch {
			case tc.note != "":
				want := map[string]any{"uri": tc.uri, "mimeType": "text/plain", "text": tc.note}
				if g := mustJSON(it); g != mustJSON(want) {
					t.Fatalf("item %s, want %s", g, mustJSON(want))
				}
				if ev.Outcome != OutcomeSanitized || len(ev.Binary) != 1 {
					t.Fatalf("outcome %s, binary %+v", ev.Outcome, ev.Binary)
				}
				ptr := "/contents/1"
				if tc.env {
					ptr = "/result" + ptr
				}
				if b := ev.Binary[0]; b.Reason != string(tc.reason) || b.Pointer != ptr || len(b.Fingerprint) != 32 {
					t.Fatalf("record %+v", b)
				}
				if strings.Contains(out, gz) || strings.Contains(out, gif) || strings.Contains(string(ev.AppendJSON(nil)), gz) {
					t.Fatal("the removed data is delivered")
				}
			case tc.same != "":
				if it["blob"] != tc.same || len(ev.Binary) != 0 {
					t.Fatalf("item %v, binary %+v", it, ev.Binary)
				}
			default:
				s, _ := it["blob"].(string)
				d := decodeStrict(t, s)
				if !strings.Contains(d, tc.blob) || strings.Contains(d, gh) || !strings.HasPrefix(d, "line one\n") {
					t.Fatalf("decoded blob %q", d)
				}
				if _, ok := it["text"]; ok || len(ev.Binary) != 0 || ev.Outcome != OutcomeSanitized {
					t.Fatalf("item %v, outcome %s, binary %+v", it, ev.Outcome, ev.Binary)
				}
			}
		})
	}
}

func TestBinaryKindsPrompt(t *testing.T) {
	e := binEngine(t, nil)
	const gh = "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"
	gif := b64("GIF89a" + pad16)
	png := b64(pngBytes)
	gz := b64("\x1f\x8b\x08\x00" + pad16)
	txt := b64("see " + gh + "\n")
	other := `{"role":"user","content":{"type":"text","text":"kept"}}`
	for _, tc := range []struct {
		name    string
		content string
		note    string // the block is replaced by a text block with this note
		reason  wire.Reason
		same    string // the block's data is kept as written
		blob    string // the embedded resource's decoded blob holds this
	}{
		{name: "png-wrong-magic-data-first", content: `{"type":"image","data":"` + gif + `","mimeType":"image/png"}`,
			note: bareNote("image/png", whyMismatch), reason: wire.ReasonBinaryTypeMismatch},
		{name: "png-wrong-magic-mime-first", content: `{"type":"image","mimeType":"image/png","data":"` + gif + `"}`,
			note: bareNote("image/png", whyMismatch), reason: wire.ReasonBinaryTypeMismatch},
		{name: "image-type-not-allowed", content: `{"data":"` + png + `","mimeType":"image/x-unknown","type":"image"}`,
			note: bareNote("image/x-unknown", whyType), reason: wire.ReasonMIMENotAllowed},
		{name: "gzip-resource", content: `{"type":"resource","resource":{"uri":"file:///a.gz","blob":"` + gz + `","mimeType":"application/gzip"}}`,
			note: bareNote("application/gzip", whyType), reason: wire.ReasonMIMENotAllowed},
		{name: "png-kept-data-first", content: `{"type":"image","data":"` + png + `","mimeType":"image/png"}`, same: png},
		{name: "png-kept-mime-first", content: `{"type":"image","mimeType":"image/png","data":"` + png + `"}`, same: png},
		{name: "text-resource-blob-first", content: `{"type":"resource","resource":{"uri":"file:///a.txt","blob":"` + txt + `","mimeType":"text/plain"}}`,
			blob: "see [REDACTED:"},
		{name: "text-resource-mime-first", content: `{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","blob":"` + txt + `"}}`,
			blob: "see [REDACTED:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"description":"d","messages":[` + other + `,{"role":"assistant","content":` + tc.content + `},` + other + `]}`
			out, ev := kindRun(t, e, promptInfo, in)
			var r struct {
				Messages []struct {
					Role    string         `json:"role"`
					Content map[string]any `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			m := r.Messages
			if len(m) != 3 || m[0].Content["text"] != "kept" || m[2].Content["text"] != "kept" || m[1].Role != "assistant" {
				t.Fatalf("the rest is not delivered: %s", out)
			}
			c := m[1].Content
			switch {
			case tc.note != "":
				want := map[string]any{"type": "text", "text": tc.note}
				if g := mustJSON(c); g != mustJSON(want) {
					t.Fatalf("block %s, want %s", g, mustJSON(want))
				}
				if ev.Outcome != OutcomeSanitized || len(ev.Binary) != 1 {
					t.Fatalf("outcome %s, binary %+v", ev.Outcome, ev.Binary)
				}
				if b := ev.Binary[0]; b.Reason != string(tc.reason) || b.Pointer != "/messages/1/content" {
					t.Fatalf("record %+v", b)
				}
			case tc.same != "":
				if c["data"] != tc.same || c["mimeType"] != "image/png" || len(ev.Binary) != 0 {
					t.Fatalf("block %v, binary %+v", c, ev.Binary)
				}
			default:
				res, _ := c["resource"].(map[string]any)
				s, _ := res["blob"].(string)
				d := decodeStrict(t, s)
				if !strings.Contains(d, tc.blob) || strings.Contains(d, gh) || res["uri"] != "file:///a.txt" {
					t.Fatalf("resource %v, decoded %q", res, d)
				}
			}
		})
	}
}

// Rejecting the whole result stays available for these kinds, and a
// member named like theirs in another kind is data.
func TestBinaryKindsRejectAndOtherKinds(t *testing.T) {
	pol := DefaultPolicy()
	pol.Binary.Disallowed = BinaryReject
	e := binEngine(t, pol)
	gz := b64("\x1f\x8b\x08\x00" + pad16)
	for _, tc := range []struct {
		name string
		info MessageInfo
		in   string
	}{
		{"resource", resInfo, `{"contents":[{"uri":"u","mimeType":"application/gzip","blob":"` + gz + `"}]}`},
		{"prompt", promptInfo, `{"messages":[{"role":"user","content":{"type":"image","data":"` + gz + `","mimeType":"image/png"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, ev := kindParts(t, e, tc.info, [][]byte{[]byte(tc.in)})
			if ev.Code != CodeInvalidContent || strings.Contains(out, gz) {
				t.Fatalf("code %s, out %s", ev.Code, out)
			}
		})
	}
	// A tool result's "contents" and a resource result's "messages" are
	// not items of these kinds: their blobs are strings.
	d := binEngine(t, nil)
	for _, tc := range []struct {
		info MessageInfo
		in   string
	}{
		{MessageInfo{Kind: KindToolResult, Tool: "search"}, `{"content":[],"contents":[{"uri":"u","mimeType":"application/gzip","blob":"` + gz + `"}]}`},
		{resInfo, `{"messages":[{"role":"user","content":{"type":"image","data":"` + gz + `","mimeType":"image/png"}}]}`},
	} {
		out, _, ev := kindParts(t, d, tc.info, [][]byte{[]byte(tc.in)})
		if !strings.Contains(out, gz) || len(ev.Binary) != 0 {
			t.Fatalf("%s: out %s, binary %+v", tc.info.Kind, out, ev.Binary)
		}
	}
}
