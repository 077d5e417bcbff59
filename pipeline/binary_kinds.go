package pipeline

// This file gives the binary content rules of binary.go to the two other
// kinds of result that carry base64 (docs/pipeline.md, "Binary content"):
//
//   - a resources/read result's contents items
//     ({"contents":[{"uri","mimeType","blob"|"text"}]}): each item is
//     watched as a tool result's content block is, its blob checked,
//     judged by its mimeType, text types decoded, sanitized and
//     re-encoded. A replaced item becomes a TextResourceContents
//     {"uri":<the item's uri, sanitized>,"mimeType":"text/plain","text":<note>};
//   - a prompts/get result's messages[i].content: a content block, with
//     the binary roles and the watch of a tool result's block (its
//     embedded resource included). A replaced block becomes
//     {"type":"text","text":<note>}.
//
// Only the members these rules read get a role (kindMember); the others
// are as the generic path has them. The result level keeps its labels
// (_meta of the result); the items and blocks of these kinds carry no
// labels of their own, as before.

// The roles of these kinds, far from pass.go's list and roleBlockType.
const (
	roleResContents role = 201 // ReadResourceResult.contents
	roleResItem     role = 202 // one contents item: watched like a content block
	roleMessages    role = 203 // GetPromptResult.messages
	roleMessage     role = 204 // one prompt message: its content is a content block
	roleResURI      role = 205 // a contents item's uri: kept for its replacement
	// roleSamplingBlocks is a sampling message's content when it is an
	// array: each item is a content block. 206 is roleEnvelopeVersion.
	roleSamplingBlocks role = 207
	// roleNotifyParams is the params of an enveloped notification: its
	// message and statusMessage are text (kindMember).
	roleNotifyParams role = 208
)

// resultKind is which of the results with binary content a message is,
// besides a tool result (shaper.tool).
type resultKind uint8

const (
	rkOther        resultKind = iota
	rkResource                // KindResourceResult
	rkPrompt                  // KindPromptResult
	rkSampling                // KindSamplingRequest (guard_requests.go)
	rkNotification            // KindNotification (guard_misc.go)
)

func resultKindOf(k Kind) resultKind {
	switch k {
	case KindResourceResult:
		return rkResource
	case KindPromptResult:
		return rkPrompt
	case KindSamplingRequest:
		return rkSampling
	case KindNotification:
		return rkNotification
	}
	return rkOther
}

// kindResultMember gives the role of a result's member that holds the
// items of a resource or prompt result. The containers keep the region of
// the generic path (regionOther).
func (s *shaper) kindResultMember(k string) (next, bool) {
	switch {
	case s.rk == rkResource && k == "contents":
		return next{role: roleResContents, region: regionOther}, true
	case (s.rk == rkPrompt || s.rk == rkSampling) && k == "messages":
		return next{role: roleMessages, region: regionOther}, true
	case s.rk == rkSampling && k == "systemPrompt",
		s.rk == rkNotification && (k == "message" || k == "statusMessage"):
		// Server-written text a model reads: bounded like a text block
		// (text-chars), a string.
		return next{role: roleResText, region: regionText}, true
	}
	return next{}, false
}

// kindItemRole gives the role of an item of a contents or messages array.
func kindItemRole(r role) (role, bool) {
	switch r {
	case roleResContents:
		return roleResItem, true
	case roleMessages:
		return roleMessage, true
	case roleSamplingBlocks:
		return roleBlock, true
	}
	return roleGeneric, false
}

// kindMember gives the role of a member of a contents item, a prompt
// message, or a prompt message's content block and its embedded resource.
// Only the members the binary rules need get a role (the binary value,
// its mimeType, a block's type and resource, an item's uri); every other
// member is as the generic path has it (text bounded by string-chars, no
// label, a _meta not held for labels), so these kinds change nothing but
// their binary content.
func (s *shaper) kindMember(f *frame, k string) (next, bool) {
	var r role
	switch f.role {
	case roleNotifyParams:
		if k == "message" || k == "statusMessage" {
			return next{role: roleResText, region: regionText}, true
		}
		return next{}, false
	case roleMessage:
		if k == "content" {
			r = roleBlock
		}
	case roleBlock:
		switch k {
		case "text":
			if s.rk == rkSampling {
				// A sampling message's text: bounded like a tool's text
				// block (text-chars).
				return next{role: roleResText, region: regionText}, true
			}
		case "data":
			nx := s.blockData()
			nx.region = f.region
			return nx, true
		case "type":
			r = roleBlockType
		case "resource":
			r = roleResource
		case "mimeType":
			r = roleMime
		}
	case roleResource, roleResItem:
		switch k {
		case "blob":
			r = roleBinary
		case "mimeType":
			r = roleMime
		case "uri":
			if f.role == roleResItem {
				r = roleResURI
			}
		}
	default:
		return next{}, false
	}
	if r != roleGeneric {
		return next{role: r, region: f.region}, true
	}
	if k == "_meta" {
		return next{role: roleMeta, region: regionMeta}, true
	}
	return next{region: f.region}, true
}

// binOpenItem starts watching a contents item whose frame was just
// pushed: a block with no type member, its blob binary.
func (p *pass) binOpenItem() {
	p.binOpen()
	w := &p.bw
	if w.level == len(p.stack) {
		w.typ = btBinary
		w.item = true
	}
}

// maxKeptURI bounds the bytes of an item's uri (escaped) kept for its
// replacement: one of maxKeptURI bytes or more is written as "".
const maxKeptURI = 8 << 10

// binURIStart marks the start of a watched item's uri (its opening quote
// is written). While the item is held, its output stays in the held
// buffer until the string ends; once the item is being discarded, the
// uri is written into w.uri instead.
func (p *pass) binURIStart() {
	w := &p.bw
	w.uriStart = -1
	if w.level != len(p.stack) || !w.item {
		return
	}
	switch {
	case w.doomed:
		w.uri = w.uri[:0]
		p.em.pushSide(&w.uri, maxKeptURI)
		w.uriSide = true
		w.uriStart = 0
	case w.pinned:
		w.uriStart = len(*p.em.target())
	}
}

// binURIEnd keeps the sanitized, escaped text of a watched item's uri
// (its closing quote is written).
func (p *pass) binURIEnd() {
	w := &p.bw
	if w.uriStart < 0 || w.level != len(p.stack) {
		return
	}
	if w.uriSide {
		w.uriSide = false
		over := p.em.popSide()
		if n := len(w.uri); !over && n > 0 {
			w.uri = w.uri[:n-1]
			w.uriOK = true
		}
	} else if t := *p.em.target(); w.uriStart <= len(t)-1 && len(t)-1-w.uriStart < maxKeptURI {
		w.uri = append(w.uri[:0], t[w.uriStart:len(t)-1]...)
		w.uriOK = true
	}
	w.uriStart = -1
}

// binReplacement writes what takes the place of a replaced block or item.
func (p *pass) binReplacement(f *frame, note string) {
	w := &p.bw
	if w.item {
		// A TextResourceContents: uri is required, the note is text.
		p.em.rawString(`{"uri":"`)
		if w.uriOK {
			p.em.raw(w.uri)
		}
		p.em.rawString(`","mimeType":"text/plain","text":"`)
		p.em.escapedString(p.label)
		p.em.escapedString(note)
		p.em.rawString(`"}`)
		return
	}
	p.em.rawString(`{"type":"text","text":"`)
	p.em.escapedString(p.label)
	p.em.escapedString(note)
	if !p.tool {
		p.em.rawString(`"}`)
		return
	}
	p.em.rawString(`","_meta":{`)
	f.cut = false
	p.writeBlockLabels(f)
	p.em.rawString(`}}`)
}
