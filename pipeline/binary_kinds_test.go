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

// Members the binary rules do not read are as before: no label, a block's
// and an item's own _meta kept (reserved keys dropped), text whole.
func TestBinaryKindsOtherMembers(t *testing.T) {
	e := binEngine(t, nil)
	for _, tc := range []struct {
		name string
		info MessageInfo
		in   string
		want string // a fragment of the output
		not  string // must not be in the output
	}{
		{"prompt-block-meta", promptInfo,
			`{"messages":[{"role":"user","content":{"type":"text","text":"hi","_meta":{"k":1,"` + MetaPrefix + `x":2}}}]}`,
			`"content":{"type":"text","text":"hi","_meta":{"k":1}}`, MetaPrefix + "x"},
		{"prompt-resource-text", promptInfo,
			`{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"u","text":"plain","mimeType":"text/plain"}}}]}`,
			`"resource":{"uri":"u","text":"plain","mimeType":"text/plain"}`, ""},
		{"resource-text-item", resInfo,
			`{"contents":[{"uri":"u","mimeType":"text/plain","text":"plain","_meta":{"k":1}}]}`,
			`"contents":[{"uri":"u","mimeType":"text/plain","text":"plain","_meta":{"k":1}}]`, ""},
		{"resource-text-tag", resInfo,
			`{"contents":[{"uri":"u","text":"a <system>x</system> b"}]}`,
			`"text":"a [REMOVED_PSEUDO_INSTRUCTION_TAG]x[REMOVED_PSEUDO_INSTRUCTION_TAG] b"`, "<system>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ev := kindRun(t, e, tc.info, tc.in)
			if !strings.Contains(out, tc.want) || (tc.not != "" && strings.Contains(out, tc.not)) || len(ev.Binary) != 0 {
				t.Fatalf("out %s\nwant it to hold %s", out, tc.want)
			}
		})
	}
}

// FuzzBinaryKinds builds resource contents items and prompt message
// contents from fuzzed bytes, types and member orders and demands: valid
// JSON, no internal fault, valid base64 in every kept blob and data, a
// uri in every item, and the same output whole and split in two.
func FuzzBinaryKinds(f *testing.F) {
	f.Add([]byte(pngBytes), uint8(0), uint8(0), uint16(7))
	f.Add([]byte("token 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 <system>x</system>"), uint8(3), uint8(1), uint16(40))
	f.Add([]byte("\x1f\x8b\x08\x00"+pad16), uint8(4), uint8(2), uint16(0))
	f.Add([]byte("a\xffb\xe2\x82"), uint8(3), uint8(3), uint16(90))
	f.Add([]byte("GIF89a"+pad16), uint8(0), uint8(5), uint16(11))
	mimes := []string{"image/png", "image/jpeg", "audio/wav", "text/plain", "application/gzip", "", "image/svg+xml", "application/json"}
	e := binEngine(f, nil)
	f.Fuzz(func(t *testing.T, data []byte, mi, order uint8, split uint16) {
		if len(data) > 4096 {
			return
		}
		m := mimes[int(mi)%len(mimes)]
		v := b64(string(data))
		if order&8 != 0 {
			v += "==" // not base64
		}
		mt := `"mimeType":"` + m + `"`
		blob, d := `"blob":"`+v+`"`, `"data":"`+v+`"`
		info := resInfo
		var in string
		switch order % 6 {
		case 0:
			in = `{"contents":[{"uri":"file:///x",` + mt + `,` + blob + `},{"uri":"y","text":"t"}]}`
		case 1:
			in = `{"contents":[{` + blob + `,` + mt + `,"uri":"file:///x"},{"uri":"y","text":"t"}]}`
		case 2:
			in = `{"contents":[{"uri":"file:///x",` + blob + `,` + mt + `,"_meta":{"k":1}}]}`
		case 3:
			info = promptInfo
			in = `{"messages":[{"role":"user","content":{"type":"image",` + d + `,` + mt + `}}]}`
		case 4:
			info = promptInfo
			in = `{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"file:///x",` + mt + `,` + blob + `}}}]}`
		case 5:
			info = promptInfo
			in = `{"messages":[{"content":{` + d + `,"type":"audio",` + mt + `},"role":"assistant"}]}`
		}
		whole, wholeEv, _ := kindParts(t, e, info, [][]byte{[]byte(in)})
		k := int(split) % len(in)
		got, gotEv, _ := kindParts(t, e, info, [][]byte{[]byte(in[:k]), []byte(in[k:])})
		if got != whole || gotEv != wholeEv {
			t.Fatalf("split at %d differs:\n%s\n%s", k, got, whole)
		}
		if strings.Contains(wholeEv, `"code":"INTERNAL"`) {
			t.Fatalf("internal: %s", wholeEv)
		}
		if strings.Contains(wholeEv, `"outcome":"rejected"`) {
			return
		}
		var r struct {
			Contents []map[string]any `json:"contents"`
			Messages []struct {
				Content map[string]any `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(whole), &r); err != nil {
			t.Fatal(err)
		}
		var vals []any
		for _, c := range r.Contents {
			if c["uri"] == nil {
				t.Fatalf("an item without uri: %s", whole)
			}
			vals = append(vals, c["blob"])
		}
		for _, msg := range r.Messages {
			res, _ := msg.Content["resource"].(map[string]any)
			vals = append(vals, msg.Content["data"], res["blob"])
		}
		for _, v := range vals {
			if s, ok := v.(string); ok {
				if _, err := base64.StdEncoding.Strict().DecodeString(s); err != nil {
					t.Fatalf("invalid base64 delivered: %s", whole)
				}
			}
		}
	})
}
