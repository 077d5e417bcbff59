package peertest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OwnPrefix starts every _meta key the sanitizer writes (and drops when a
// server sends it).
const OwnPrefix = "dev.mcp-sanitize/"

// Options say which documented transforms Compare allows.
type Options struct {
	// Label is the text the sanitizer puts before each text block of a
	// tool result (the policy's template with the tool name filled in);
	// empty for other kinds.
	Label string
	// ToolResult: the message is a CallToolResult (bare or in a JSON-RPC
	// response), so content blocks, their labels, base64 data and mirror
	// texts of structuredContent have their tool-result treatment.
	ToolResult bool
	// Normalize maps a raw string to what the sanitizer should write for
	// it when it holds no secret and no tag; nil means Documented.
	Normalize func(string) string
}

// Diff is one member where the sanitized message differs from the raw one
// beyond the documented transforms.
type Diff struct {
	// Pointer is the JSON pointer (RFC 6901) in the raw message.
	Pointer string
	// What says how it differs, without quoting more than a short excerpt.
	What string
}

func (d Diff) String() string { return d.Pointer + ": " + d.What }

// Report is the outcome of Compare.
type Report struct {
	// Diffs are the differences beyond the documented transforms.
	Diffs []Diff
	// Withheld are the pointers of binary blocks (image, audio, a resource
	// blob) the sanitized message replaced by a text block (issue 18 item
	// 1): documented, but only right for a block that was not allowed,
	// which the caller checks.
	Withheld []string
	// Markers counts the redaction and neutralization markers the
	// sanitized strings hold in place of raw text.
	Markers int
}

// marker matches what the sanitizer writes in place of a secret or of a
// pseudo-instruction tag.
var marker = regexp.MustCompile(`\[REDACTED:[a-z0-9][a-z0-9-]*\]|\[REMOVED_PSEUDO_INSTRUCTION_TAG\]`)

// Compare walks a raw message and its sanitized form member by member and
// reports every difference the documented transforms do not explain:
// numbers must be written alike, literals equal, arrays of the same length,
// objects of the same members (keys normalized like text); base64 members
// (a content block's data, a resource's blob) must decode to the same
// bytes; every other string must equal Normalize of the raw string, with
// the tool-result label before a content block's text (and before an
// embedded resource's text), except that a
// marker may stand for a non-empty part of it. In _meta objects, keys
// under OwnPrefix are the sanitizer's: added ones are allowed, a raw one
// must be gone. A _meta object the raw message lacks may appear holding
// only such keys. A text block that mirrors structuredContent (its raw text
// is JSON equal to the raw structuredContent) is compared as JSON, with
// its label, since the sanitizer regenerates it from the sanitized
// structure.
func Compare(raw, sanitized []byte, o Options) (Report, error) {
	rv, err := decode(raw)
	if err != nil {
		return Report{}, fmt.Errorf("raw: %w", err)
	}
	sv, err := decode(sanitized)
	if err != nil {
		return Report{}, fmt.Errorf("sanitized: %w", err)
	}
	if o.Normalize == nil {
		o.Normalize = Documented
	}
	c := &comparer{o: o}
	root := rv
	if m, ok := rv.(map[string]any); ok && isEnvelope(m) {
		c.envelope = true
	}
	c.value("", root, sv, slotNone, true)
	return c.r, nil
}

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the value")
	}
	return v, nil
}

func isEnvelope(m map[string]any) bool {
	_, ok := m["jsonrpc"]
	return ok
}

// slot is the MCP role of a value, as far as Compare cares.
type slot int

const (
	slotNone     slot = iota
	slotResult        // the result object
	slotContent       // the content array of a tool result
	slotBlock         // a content block
	slotMeta          // a _meta object
	slotText          // a text block's text (labelled)
	slotBase64        // a base64 member
	slotBlobText      // a base64 member of a text/* resource: compared as text
	slotResource      // the resource of an embedded-resource block (its text is labelled)
)

type comparer struct {
	o        Options
	r        Report
	envelope bool
}

func (c *comparer) diff(ptr, format string, args ...any) {
	c.r.Diffs = append(c.r.Diffs, Diff{Pointer: ptr, What: fmt.Sprintf(format, args...)})
}

func (c *comparer) value(ptr string, r, s any, sl slot, top bool) {
	switch rv := r.(type) {
	case map[string]any:
		sv, ok := s.(map[string]any)
		if !ok {
			c.diff(ptr, "an object became %s", kindOf(s))
			return
		}
		c.object(ptr, rv, sv, sl, top)
	case []any:
		sv, ok := s.([]any)
		if !ok {
			c.diff(ptr, "an array became %s", kindOf(s))
			return
		}
		if len(rv) != len(sv) {
			c.diff(ptr, "%d items became %d", len(rv), len(sv))
		}
		for i := range min(len(rv), len(sv)) {
			p := ptr + "/" + strconv.Itoa(i)
			if sl == slotContent {
				c.value(p, rv[i], sv[i], slotBlock, false)
				continue
			}
			c.value(p, rv[i], sv[i], slotNone, false)
		}
	case string:
		sv, ok := s.(string)
		if !ok {
			c.diff(ptr, "a string became %s", kindOf(s))
			return
		}
		c.str(ptr, rv, sv, sl)
	case json.Number:
		sv, ok := s.(json.Number)
		if !ok {
			c.diff(ptr, "a number became %s", kindOf(s))
			return
		}
		if rv != sv {
			c.diff(ptr, "number %s became %s", excerpt(string(rv)), excerpt(string(sv)))
		}
	default: // bool, nil
		if r != s {
			c.diff(ptr, "%s became %s", kindOf(r), kindOf(s))
		}
	}
}

func (c *comparer) object(ptr string, r, s map[string]any, sl slot, top bool) {
	if c.withheld(ptr, r, s) {
		return
	}
	// Where this object's members stand.
	result := sl == slotResult
	if top && !c.envelope {
		result = true
	}
	matched := map[string]bool{}
	keys := sortedKeys(r)
	for _, k := range keys {
		p := ptr + "/" + escape(k)
		if sl == slotMeta && strings.HasPrefix(k, OwnPrefix) {
			// A server's key under our prefix is dropped; one of the
			// same name in the output is ours.
			continue
		}
		sk := c.o.Normalize(k)
		sm, ok := s[sk]
		if !ok {
			c.diff(p, "member is missing")
			continue
		}
		matched[sk] = true
		c.value(p, r[k], sm, c.childSlot(r, k, sl, result, top), false)
	}
	for _, k := range sortedKeys(s) {
		if matched[k] {
			continue
		}
		p := ptr + "/" + escape(k)
		switch {
		case sl == slotMeta && strings.HasPrefix(k, OwnPrefix):
		case k == "_meta" && (result || sl == slotBlock) && onlyOwn(s[k]):
		default:
			c.diff(p, "member was added")
		}
	}
	if c.o.ToolResult && result {
		c.mirrors(ptr, r, s)
	}
}

// childSlot is the slot of member k of an object in slot sl.
func (c *comparer) childSlot(r map[string]any, k string, sl slot, result, top bool) slot {
	switch {
	case k == "_meta":
		return slotMeta
	case top && c.envelope && k == "result":
		return slotResult
	case result && c.o.ToolResult && k == "content":
		return slotContent
	case result && c.o.ToolResult && k == "structuredContent":
		return slotNone
	}
	if sl == slotBlock {
		typ, _ := r["type"].(string)
		switch {
		case k == "text" && typ == "text":
			return slotText
		case k == "data" && (typ == "image" || typ == "audio"):
			return slotBase64
		case k == "resource" && typ == "resource":
			return slotResource
		}
	}
	if sl == slotResource && k == "text" {
		return slotText
	}
	if k == "blob" {
		if _, ok := r["uri"]; ok {
			if mt, _ := r["mimeType"].(string); strings.HasPrefix(mt, "text/") {
				return slotBlobText
			}
			return slotBase64
		}
	}
	return slotNone
}

func (c *comparer) str(ptr, r, s string, sl slot) {
	switch sl {
	case slotBase64, slotBlobText:
		rb, err1 := base64.StdEncoding.DecodeString(r)
		sb, err2 := base64.StdEncoding.DecodeString(s)
		switch {
		case err1 != nil:
			c.diff(ptr, "the raw value is not standard base64")
		case err2 != nil:
			c.diff(ptr, "the sanitized value is not standard base64")
		case sl == slotBlobText:
			c.text(ptr, string(rb), string(sb), "")
		case !bytes.Equal(rb, sb):
			c.diff(ptr, "base64 bytes differ (%d bytes became %d)", len(rb), len(sb))
		case r != s:
			// The same bytes written otherwise (padding bits): the
			// documented treatment copies binary data as it came.
			c.diff(ptr, "base64 data re-encoded")
		}
	case slotText:
		c.text(ptr, r, s, c.o.Label)
	default:
		c.text(ptr, r, s, "")
	}
}

// text checks that s is label + Normalize(r), markers aside.
func (c *comparer) text(ptr, r, s, label string) {
	if !strings.HasPrefix(s, label) {
		c.diff(ptr, "the label %q is missing", label)
		return
	}
	s = s[len(label):]
	want := c.o.Normalize(r)
	n, at, got := matchMarkers(want, s)
	c.r.Markers += n
	if at >= 0 {
		c.diff(ptr, "text differs at byte %d of the expected text: want %s, got %s", at, excerpt(want[at:]), excerpt(got))
	}
}

// matchMarkers reports whether s equals want with some parts of want
// replaced by markers, and the number of markers. A marker stands for a
// non-empty part: a redaction for one without white space (a private key
// block may span lines), a neutralized tag for one that starts as a tag
// does ("<", "[", "&", "\\") and holds no newline. On a mismatch, at is the
// offset in want where matching failed and got the part of s found there
// instead; at is -1 on a match.
func matchMarkers(want, s string) (n, at int, got string) {
	locs := marker.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		if want == s {
			return 0, -1, ""
		}
		i := commonPrefix(want, s)
		return 0, i, s[i:]
	}
	// Literal pieces around the markers. A gap's constraints hold for a
	// part exactly when they hold for each of its prefixes, so placing each
	// piece leftmost is optimal and no backtracking is needed.
	pieces := make([]string, 0, len(locs)+1)
	prev := 0
	for _, l := range locs {
		pieces = append(pieces, s[prev:l[0]])
		prev = l[1]
	}
	pieces = append(pieces, s[prev:])
	n = len(locs)
	if !strings.HasPrefix(want, pieces[0]) {
		i := commonPrefix(want, pieces[0])
		return n, i, pieces[0][i:]
	}
	pos := len(pieces[0])
	for i, p := range pieces[1:] {
		m := s[locs[i][0]:locs[i][1]]
		from := pos + 1 // a gap is never empty
		if from > len(want) || !gapStart(m, want[pos]) {
			return n, pos, m + p
		}
		rest := want[from:]
		j := -1
		if i == len(pieces)-2 {
			// The last piece ends the text.
			if len(rest) >= len(p) && strings.HasSuffix(rest, p) {
				j = len(rest) - len(p)
			}
		} else {
			j = strings.Index(rest, p)
		}
		if j >= 0 && gapOK(m, want[pos:from+j]) {
			pos = from + j + len(p)
			continue
		}
		if j >= 0 {
			return n, pos, m + p
		}
		// Where it went wrong: the longest start of p found after the gap.
		k, x := 0, 0
		for k < len(p) {
			y := strings.Index(rest, p[:k+1])
			if y < 0 {
				break
			}
			k, x = k+1, y
		}
		return n, from + x + k, p[k:]
	}
	return n, -1, ""
}

const tagMarker = "[REMOVED_PSEUDO_INSTRUCTION_TAG]"

// gapStart: a gap replaced by marker m may start with byte b.
func gapStart(m string, b byte) bool {
	if m == tagMarker {
		return strings.IndexByte("<[&\\", b) >= 0
	}
	return true
}

// gapOK: marker m may stand for gap.
func gapOK(m, gap string) bool {
	if m == tagMarker {
		return !strings.Contains(gap, "\n")
	}
	if strings.Contains(m, "private-key") {
		return true
	}
	return !strings.ContainsAny(gap, " \t\r\n")
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// withheld reports whether the sanitized object replaces a raw binary
// one — a content block of type image or audio, an embedded resource with
// a blob, a resource's contents with a blob — by text, and records it.
func (c *comparer) withheld(ptr string, r, s map[string]any) bool {
	binary := false
	switch r["type"] {
	case "image", "audio":
		_, binary = r["data"]
	case "resource":
		res, _ := r["resource"].(map[string]any)
		_, binary = res["blob"]
	default:
		_, hasURI := r["uri"]
		_, hasBlob := r["blob"]
		binary = hasURI && hasBlob
	}
	if !binary {
		return false
	}
	_, data := s["data"]
	_, blob := s["blob"]
	res, _ := s["resource"].(map[string]any)
	_, resBlob := res["blob"]
	_, text := s["text"].(string)
	if data || blob || resBlob || !text {
		return false
	}
	c.r.Withheld = append(c.r.Withheld, ptr)
	return true
}

// mirrors compares the text blocks that mirror structuredContent as JSON.
func (c *comparer) mirrors(ptr string, r, s map[string]any) {
	rsc, ok := r["structuredContent"]
	if !ok {
		return
	}
	rc, _ := r["content"].([]any)
	sc, _ := s["content"].([]any)
	for i := range min(len(rc), len(sc)) {
		rb, _ := rc[i].(map[string]any)
		sb, _ := sc[i].(map[string]any)
		rt, _ := rb["text"].(string)
		st, _ := sb["text"].(string)
		if rb["type"] != "text" || sb == nil {
			continue
		}
		rj, err := decode([]byte(rt))
		if err != nil || !jsonEqual(rj, rsc) {
			continue
		}
		// A mirror: the text was compared as text above; undo that
		// verdict and compare the JSON instead.
		p := ptr + "/content/" + strconv.Itoa(i) + "/text"
		c.r.Diffs = slices.DeleteFunc(c.r.Diffs, func(d Diff) bool { return d.Pointer == p })
		if !strings.HasPrefix(st, c.o.Label) {
			c.diff(p, "the label %q is missing", c.o.Label)
			continue
		}
		sj, err := decode([]byte(st[len(c.o.Label):]))
		if err != nil {
			c.diff(p, "a mirror of structuredContent is no longer JSON")
			continue
		}
		c.value(p, rj, sj, slotNone, false)
	}
}

// jsonEqual: the same JSON value, members in any order, numbers by value.
func jsonEqual(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !jsonEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bv, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, err1 := av.Float64()
		y, err2 := bv.Float64()
		return err1 == nil && err2 == nil && x == y
	default:
		return a == b
	}
}

// onlyOwn: a _meta object holding only the sanitizer's keys.
func onlyOwn(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, OwnPrefix) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// excerpt quotes at most 40 bytes of s.
func excerpt(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
