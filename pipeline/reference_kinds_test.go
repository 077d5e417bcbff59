package pipeline_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// The reference's model of the binary content rules of resource and
// prompt results (pipeline/binary_kinds.go, docs/pipeline.md "Binary
// content"): contents items watched like content blocks, a prompt
// message's content a content block; every other member generic.

const (
	rResContents refRole = 101 + iota
	rResItem
	rMessages
	rMessage
	rResURI
)

// refKeptURI mirrors the pass's maxKeptURI.
const refKeptURI = 8 << 10

func (r *reference) kindResultMember(k string) (refNext, bool) {
	switch {
	case r.kind == pipeline.KindResourceResult && k == "contents":
		return refNext{role: rResContents, region: gOther}, true
	case r.kind == pipeline.KindPromptResult && k == "messages":
		return refNext{role: rMessages, region: gOther}, true
	}
	return refNext{}, false
}

func refKindItemRole(f refRole) (refRole, bool) {
	switch f {
	case rResContents:
		return rResItem, true
	case rMessages:
		return rMessage, true
	}
	return rGeneric, false
}

func (r *reference) kindMember(f *refFrame, k string) (refNext, bool) {
	if r.kind != pipeline.KindResourceResult && r.kind != pipeline.KindPromptResult {
		return refNext{}, false
	}
	var ro refRole
	switch f.role {
	case rMessage:
		if k == "content" {
			ro = rBlock
		}
	case rBlock:
		switch k {
		case "data":
			if r.bin.typ != rbText && r.bin.typ != rbResource {
				ro = rBinary
			}
		case "type":
			ro = rBlockType
		case "resource":
			ro = rResource
		case "mimeType":
			ro = rMime
		}
	case rResource, rResItem:
		switch k {
		case "blob":
			ro = rBinary
		case "mimeType":
			ro = rMime
		case "uri":
			if f.role == rResItem {
				ro = rResURI
			}
		}
	default:
		return refNext{}, false
	}
	if ro != rGeneric {
		return refNext{role: ro, region: f.region}, true
	}
	if k == "_meta" {
		return refNext{role: rMeta, region: gMeta}, true
	}
	return refNext{region: f.region}, true
}

// binOn starts watching the object f of role ro when it is a block or
// item of these kinds (or a tool result's block).
func (r *reference) binOn(f *refFrame, ro refRole) {
	switch {
	case ro == rBlock && (r.kind == pipeline.KindToolResult || r.kind == pipeline.KindPromptResult):
		r.bin = refBin{on: true, block: f}
	case ro == rResItem:
		r.bin = refBin{on: true, block: f, typ: rbBinary, item: true}
	}
}

// binReplacement is what takes the place of a replaced block or item.
func (r *reference) binReplacement(f *refFrame, members []refMember, note string) map[string]any {
	if r.bin.item {
		uri := ""
		for _, m := range members {
			if s, ok := m.v.(string); ok && m.k == "uri" && refEscapedLen(s) < refKeptURI {
				uri = s
			}
		}
		return map[string]any{"uri": uri, "mimeType": "text/plain", "text": r.label + note}
	}
	if r.kind != pipeline.KindToolResult {
		return map[string]any{"type": "text", "text": r.label + note}
	}
	return map[string]any{"type": "text", "text": r.label + note, "_meta": r.blockLabels(f)}
}

func refEscapedLen(s string) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return b.Len() - 3 // the quotes and the newline
}

// kindRefCases are resource and prompt results with binary content, for
// the differential tests.
func kindRefCases() []string {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	pad := "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
	png := enc("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + pad)
	gif := enc("GIF89a" + pad)
	gz := enc("\x1f\x8b\x08\x00" + pad)
	txt := enc("a 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 <system>x</system> \xff b")
	other := `{"uri":"o","text":"t <system>"}`
	var out []string
	for _, item := range []string{
		`{"uri":"file:///a.txt","mimeType":"text/plain","blob":"` + txt + `"}`,
		`{"blob":"` + txt + `","mimeType":"application/json","uri":"u"}`,
		`{"uri":"file:///a.gz","mimeType":"application/gzip","blob":"` + gz + `"}`,
		`{"blob":"` + gz + `","_meta":{"k":1},"mimeType":"application/gzip","uri":"<system>u"}`,
		`{"uri":"p","mimeType":"image/png","blob":"` + gif + `"}`,
		`{"uri":"p","blob":"` + png + `","mimeType":"image/png"}`,
		`{"uri":"p","blob":"` + png + `"}`,
		`{"uri":"p","blob":"` + png + `","mimeType":"image/png","blob2":"x"}`,
		`{"uri":1,"blob":"` + gz + `","mimeType":"application/gzip"}`,
		`{"uri":"p","blob":"AAA=","mimeType":"text/plain","text":"t"}`,
	} {
		out = append(out, `{"contents":[`+other+`,`+item+`]}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[`+item+`,`+other+`],"_meta":{"m":1}}}`)
	}
	msg := `{"role":"user","content":{"type":"text","text":"hi <system>","_meta":{"k":1}}}`
	for _, c := range []string{
		`{"type":"image","data":"` + gif + `","mimeType":"image/png"}`,
		`{"type":"image","mimeType":"image/png","data":"` + png + `"}`,
		`{"data":"` + png + `","mimeType":"image/x-unknown","type":"audio"}`,
		`{"type":"resource","resource":{"uri":"r","blob":"` + txt + `","mimeType":"text/plain"}}`,
		`{"type":"resource","resource":{"uri":"r","mimeType":"application/gzip","blob":"` + gz + `"}}`,
		`{"type":"text","data":"` + png + `","text":"x"}`,
		`{"data":"` + png + `","type":"text"}`,
	} {
		out = append(out, `{"description":"d","messages":[`+msg+`,{"role":"assistant","content":`+c+`}]}`)
	}
	return out
}

func TestReferenceKinds(t *testing.T) {
	for i, in := range kindRefCases() {
		for _, pol := range refPolicies {
			for _, kind := range []pipeline.Kind{pipeline.KindToolResult, pipeline.KindResourceResult, pipeline.KindPromptResult} {
				info := pipeline.MessageInfo{Kind: kind, Tool: "diff"}
				if msg := compareWithReference(t, refEngine(t, pol), []byte(in), info); msg != "" {
					t.Fatalf("case %d, %s policy, %s: %s\n%s", i, pol, kind, msg, in)
				}
			}
		}
	}
}

// FuzzDifferentialKinds is FuzzDifferential for resource and prompt
// results.
func FuzzDifferentialKinds(f *testing.F) {
	for _, in := range kindRefCases() {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, pol := range refPolicies {
			for _, kind := range []pipeline.Kind{pipeline.KindResourceResult, pipeline.KindPromptResult} {
				info := pipeline.MessageInfo{Kind: kind, Tool: "diff"}
				if msg := compareWithReference(t, refEngine(t, pol), in, info); msg != "" {
					t.Fatalf("%s policy, %s: %s", pol, kind, msg)
				}
			}
		}
	})
}
