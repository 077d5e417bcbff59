package pipeline_test

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// This file is the reference's model of the binary content rules
// (pipeline/binary.go, docs/pipeline.md "Binary content"): the same
// decision points in input order, on whole strings.

// refBin is the watched content block of the reference.
type refBin struct {
	on       bool
	block    *refFrame
	typ      int // 0 unknown, 1 binary, 2 text, 3 resource
	reason   string
	released bool
	ok       bool
	val      int // 0 none, 1 reading, 2 done
	valFrame *refFrame
	valKey   string
	raw      string
	checked  bool
	mime     string
	mimeOf   *refFrame
	item     bool // a resources/read contents item (reference_kinds_test.go)
}

const (
	rbUnknown = iota
	rbBinary
	rbText
	rbResource
)

func (b *refBin) mimeKnown() bool { return b.mimeOf != nil && b.mimeOf == b.valFrame }

// rBlockType is the role of a block's "type" (after the pass's roles).
const rBlockType refRole = 100

// refBinKind mirrors pipeline's binKind: 0 denied, 1 text, 2 allowed, 3 signed.
func (r *reference) refBinKind(m string) int {
	switch {
	case pipeline.TextMIME(m):
		return 1
	case !r.mimeListed(m):
		return 0
	case pipeline.SigKnown(m):
		return 3
	}
	return 2
}

func (r *reference) mimeListed(m string) bool {
	for _, a := range r.pol.AllowedMIME {
		if a == m {
			return true
		}
	}
	return false
}

// refEssence is the media type as the pass reads it (mimeEssence): no
// parameters, no blanks, lower case, at most 128 bytes; a value longer
// than 256 bytes is not captured at all.
func refEssence(s string) string {
	if len(s) > 256 {
		return ""
	}
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	var b []byte
	for i := 0; i < len(s) && len(b) < 128; i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func (r *reference) binDoom(reason string) {
	b := &r.bin
	if b.reason != "" {
		return
	}
	if r.pol.Binary.Disallowed == pipeline.BinaryReject || b.released {
		code := pipeline.CodeInvalidContent
		if reason == "binary-hold-bytes" {
			code = pipeline.CodeBoundExceeded
		}
		r.fail(code, reason)
	}
	b.reason = reason
}

func refHead(s string) []byte {
	h := s[:min(len(s), 24)]
	out, _ := base64.StdEncoding.DecodeString(h[:len(h)/4*4])
	return out
}

// binValueStart is the start of a binary value held by parent.
func (r *reference) binValueStart(parent *refFrame, key string) {
	b := &r.bin
	if !b.on {
		return
	}
	second := b.val != 0
	b.ok = false
	b.val, b.valFrame, b.valKey, b.checked = 1, parent, key, false
	switch {
	case b.reason != "":
	case second:
		r.binDoom("binary-type-mismatch")
	case !b.mimeKnown():
	default:
		switch r.refBinKind(b.mime) {
		case 0:
			r.binDoom("mime-not-allowed")
		case 1, 2:
			r.binOK()
		}
	}
}

// binHead is the point where 24 characters of the value s were read.
func (r *reference) binHead(s string) {
	b := &r.bin
	if !b.on || b.reason != "" || b.released || !b.mimeKnown() || b.checked || r.refBinKind(b.mime) != 3 {
		return
	}
	b.checked = true
	if !pipeline.SigMatch(b.mime, refHead(s)) {
		r.binDoom("binary-type-mismatch")
		return
	}
	r.binOK()
}

func (r *reference) binJudge() {
	b := &r.bin
	switch r.refBinKind(b.mime) {
	case 0:
		r.binDoom("mime-not-allowed")
	case 3:
		if !b.checked {
			b.checked = true
			if !pipeline.SigMatch(b.mime, refHead(b.raw)) {
				r.binDoom("binary-type-mismatch")
				return
			}
		}
		r.binOK()
	case 2:
		r.binOK()
	}
}

// binValueEnd is the end of the binary value s.
func (r *reference) binValueEnd(s string) {
	b := &r.bin
	if !b.on {
		return
	}
	b.val, b.raw = 2, s
	if b.reason == "" && len(s) >= 24 && len(r.seenB64) < 32 {
		r.seenB64 = append(r.seenB64, s[:24])
	}
	if b.reason == "" && b.mimeKnown() {
		r.binJudge()
	}
}

// binMime takes a mimeType (sanitized, cut, without the note) of parent.
func (r *reference) binMime(parent *refFrame, clean string) {
	b := &r.bin
	if !b.on {
		return
	}
	b.mime, b.mimeOf = refEssence(clean), parent
	if b.val == 2 && b.valFrame == parent && b.reason == "" {
		r.binJudge()
	}
}

// binType takes a block's type.
func (r *reference) binType(parent *refFrame, clean string) {
	b := &r.bin
	if !b.on || parent != b.block {
		return
	}
	if len(clean) > 256 {
		clean = ""
	}
	switch clean {
	case "text", "resource_link":
		b.typ = rbText
		if b.val == 0 {
			b.released = true
		}
	case "resource":
		b.typ = rbResource
	default:
		b.typ = rbBinary
	}
	if b.ok && b.typ != rbText {
		b.released = true
	}
}

// binOK is the pass's binRelease: the block is kept, and let go once its
// type is known.
func (r *reference) binOK() {
	b := &r.bin
	b.ok = true
	if b.typ != rbUnknown {
		b.released = true
	}
}

// binClose is the close of an object f of a watched block, with its
// members. It returns the members to write, or the replacement block.
func (r *reference) binClose(f *refFrame, members []refMember) ([]refMember, map[string]any) {
	b := &r.bin
	if !b.on {
		return members, nil
	}
	if b.val != 0 && b.valFrame == f && b.reason == "" {
		switch {
		case !b.mimeKnown():
			r.binDoom("mime-not-allowed")
		case r.refBinKind(b.mime) == 1:
			for i := range members {
				if members[i].k == b.valKey {
					members[i].v = r.blobText(b.raw)
				}
			}
			r.binOK()
		}
	}
	if f != b.block {
		return members, nil
	}
	b.on = false
	if b.reason == "" && b.val != 0 && b.valFrame == f && (b.typ == rbText || b.typ == rbResource) {
		r.binDoom("binary-type-mismatch")
	}
	if b.reason == "" {
		return members, nil
	}
	mime := ""
	if b.mimeKnown() {
		mime = refNoteMIME(b.mime)
	}
	f.cut, f.held = false, nil
	return nil, r.binReplacement(f, members, pipeline.BinaryNote(b.reason, mime))
}

func refNoteMIME(m string) string {
	b := []byte(m[:min(len(m), 64)])
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(".+-/", c) >= 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// blobText is a text blob decoded, cleaned as a whole string (invalid
// UTF-8 a U+FFFD per byte) and encoded again.
func (r *reference) blobText(raw string) string {
	d, _ := base64.StdEncoding.DecodeString(raw)
	var sb strings.Builder
	for i := 0; i < len(d); {
		c, n := utf8.DecodeRune(d[i:])
		if c == utf8.RuneError && n == 1 {
			sb.WriteString("\uFFFD")
		} else {
			sb.Write(d[i : i+n])
		}
		i += n
	}
	return base64.StdEncoding.EncodeToString([]byte(r.clean(sb.String())))
}

// base64String reports whether a string over string-chars is bounded as
// binary instead (base64 whose bytes start with a binary signature); it
// fails as the pass does when it crosses binary-bytes or is not whole
// base64.
func (r *reference) base64String(s string) bool {
	pad := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '=':
			pad++
			if pad > 2 {
				return false
			}
		case pad > 0 || !b64Alphabet[c]:
			return false
		}
	}
	if !pipeline.SigAny(refHead(s)) && !r.seenBinary(s) {
		return false
	}
	if int64(len(s))/4*3 > r.lim[bounds.BinaryBytes] {
		r.fail(pipeline.CodeBoundExceeded, "binary-bytes")
	}
	if len(s)%4 != 0 {
		r.fail(pipeline.CodeBoundExceeded, "string-chars")
	}
	return true
}

// seenBinary: s starts with the first 24 characters of a content block's
// binary value kept earlier in the message (the pass's seenBinary).
func (r *reference) seenBinary(s string) bool {
	for _, h := range r.seenB64 {
		if strings.HasPrefix(s, h) {
			return true
		}
	}
	return false
}
