package scanners

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"unicode/utf8"
)

// Encoded secrets. Besides the keyword pass, a Redactor tracks runs of the
// bytes an encoded blob is made of, decodes the runs of a useful size and
// scans the decoded bytes with the same catalog (one more Redactor, one level
// deeper). When a secret is inside, the whole run is replaced by the marker
// of the inner rule, and the finding records the encoding.
//
// A run is a maximal sequence of [A-Za-z0-9+/_%-] followed by at most two
// '=' (base64 padding): "key=dGVzdA==x" holds the runs "key=", "dGVzdA=="
// and "x". A run of decodeMinRun..MaxDecodeRun bytes is decoded as:
//
//   - percent-encoding if it contains '%': every '%' must start %XX (else
//     the run is not decoded); '+' stays '+';
//   - hex if it is made only of hex digits, of even length and at least 32
//     bytes long;
//   - base64 otherwise: the standard alphabet (+ /) or the URL one (- _),
//     not both; padding optional; a body of length 1 mod 4 is not base64.
//
// Only decoded bytes that are printable text (valid UTF-8 without control
// characters other than tab, CR and LF) are scanned: images, compressed data
// and random ids decode to binary and cost one decode. A run longer than
// MaxDecodeRun is decoded in windows of that size that overlap by
// decodeWinOverlap (runWindows): only the current window is held, and a
// window with a secret is replaced (from where the last replaced window
// ended). Decoded text is decoded again
// up to MaxDecodeDepth levels (base64 of hex of a secret is found with depth 2).
//
// The finding of an encoded secret has the inner rule's id, checksum and
// fingerprint (HMAC of the decoded secret, so that the same secret plain or
// encoded has the same fingerprint), and the offset and length of the whole
// encoded run in the outer string.

// Encoding names the encoding a secret was found under.
type Encoding uint8

const (
	// EncodingNone: the secret was in the text as is.
	EncodingNone Encoding = iota
	// EncodingBase64: standard base64 alphabet (+ /).
	EncodingBase64
	// EncodingBase64URL: URL-safe base64 alphabet (- _).
	EncodingBase64URL
	// EncodingHex: hexadecimal digits.
	EncodingHex
	// EncodingPercent: URL percent-encoding.
	EncodingPercent
)

// String returns "", "base64", "base64url", "hex" or "percent".
func (e Encoding) String() string {
	switch e {
	case EncodingBase64:
		return "base64"
	case EncodingBase64URL:
		return "base64url"
	case EncodingHex:
		return "hex"
	case EncodingPercent:
		return "percent"
	}
	return ""
}

// Decoding limits and their defaults.
const (
	// decodeMinRun is the shortest run decoded: 24 bytes of base64-decoded
	// text ("password=" and a 15-byte value), 16 bytes of hex-decoded text.
	decodeMinRun = 32
	// DefaultMaxDecodeRun is the default of CatalogOptions.MaxDecodeRun.
	DefaultMaxDecodeRun = 4 << 10
	// MaxDecodeRunLimit is the largest MaxDecodeRun accepted; a run is held
	// while open, so this stays well under MaxHold.
	MaxDecodeRunLimit = 16 << 10
	// DefaultMaxDecodeDepth is the default of CatalogOptions.MaxDecodeDepth.
	DefaultMaxDecodeDepth = 2
	// MaxDecodeDepthLimit is the largest MaxDecodeDepth accepted.
	MaxDecodeDepthLimit = 4
)

var (
	// setRunBody: bytes of a run; '=' may only end one.
	setRunBody = makeSet("A-Za-z0-9+/_%-")
	// setRunAny: body and padding.
	setRunAny = makeSet("A-Za-z0-9+/_%=-")
)

// runOpen reports whether a run is being tracked.
func (r *Redactor) runOpen() bool { return r.rs >= 0 }

// trackRuns finds the runs in src (the input at srcBase, all of this Append)
// and decodes the finished ones. Runs shorter than decodeMinRun do not
// matter, so the bytes are looked at eight at a time: a run of 31 bytes or
// more holds three consecutive full words of any tiling into 8-byte words,
// and a word is tested as a whole (eight table lookups and'ed, no branch per
// byte). The last word of a triple is tested first, so that a word that is
// not full skips three. Only around three consecutive full words does the
// exact state machine (runBytes) look at every byte.
func (r *Redactor) trackRuns(src []byte, final bool) {
	base := r.srcBase
	n := len(src)
	i := 0
	if r.runOpen() {
		i = r.runBytes(src, base, 0, 0)
	}
	for i < n {
		j := i
		found := false
		if haveRunWindow && n-i >= 64 {
			// With the vector kernel, the whole 32-byte blocks first: where
			// 24 run bytes start, or where a stretch of them that the
			// blocks end with begins; the word loop below does the rest.
			k, from := runWindow(src[i:])
			if k >= 0 {
				j, found = i+k, true
			} else {
				j = i + from
			}
		}
		for !found && j+24 <= n {
			if !fullWord(src[j+16 : j+24]) {
				j += 24
				continue
			}
			if !fullWord(src[j+8 : j+16]) {
				j += 16
				continue
			}
			if !fullWord(src[j : j+8]) {
				j += 8
				continue
			}
			found = true
			break
		}
		p := j
		for p > i && setRunAny[src[p-1]] {
			p--
		}
		if !found {
			// No three full words in src[i:]; a run may end the input and
			// go on in the next call: src[p:] holds its start. At the end
			// of the string it does not go on, and it is shorter than
			// decodeMinRun (src[p:] holds fewer than 31 run bytes: a byte
			// of no run lies in the 8 before the word loop's stop, or p is
			// where that loop began less than 24 bytes from the end), so
			// it would be closed undecoded: not tracked at all.
			if !final {
				r.runBytes(src, base, p, n)
			}
			break
		}
		i = r.runBytes(src, base, p, j+24)
	}
	if final && r.runOpen() {
		r.closeRun(base + int64(n))
	}
}

// runWord[b] is 1 for a byte of a run (body or padding), else 0.
var runWord = func() (t [256]uint8) {
	for c := range t {
		if setRunAny[c] {
			t[c] = 1
		}
	}
	return t
}()

// fullWord reports whether all 8 bytes of w belong to runs.
func fullWord(w []byte) bool {
	x := binary.LittleEndian.Uint64(w)
	t := &runWord
	return t[byte(x)]&t[byte(x>>8)]&t[byte(x>>16)]&t[byte(x>>24)]&t[byte(x>>32)]&t[byte(x>>40)]&t[byte(x>>48)]&t[byte(x>>56)] != 0
}

// runBodyWord[b] is 1 for a body byte of a run, else 0.
var runBodyWord = func() (t [256]uint8) {
	for c := range t {
		if setRunBody[c] {
			t[c] = 1
		}
	}
	return t
}()

// bodyWord reports whether all 8 bytes of w are body bytes of a run.
func bodyWord(w []byte) bool {
	x := binary.LittleEndian.Uint64(w)
	t := &runBodyWord
	return t[byte(x)]&t[byte(x>>8)]&t[byte(x>>16)]&t[byte(x>>24)]&t[byte(x>>32)]&t[byte(x>>40)]&t[byte(x>>48)]&t[byte(x>>56)] != 0
}

// runBytes runs the exact run state machine over src[p:] and returns where
// it stopped: the first position at or after stop where no run is open, or
// len(src).
func (r *Redactor) runBytes(src []byte, base int64, p, stop int) int {
	n := len(src)
	k := p
	for k < n {
		if !r.runOpen() {
			if k >= stop {
				return k
			}
			if !setRunBody[src[k]] {
				k++
				continue
			}
			r.rs, r.rpad, r.rlong = base+int64(k), 0, false
			r.rwin, r.rcov = r.rs, r.rs
			k++
		}
		if r.rpad == 0 {
			for k+8 <= n && bodyWord(src[k:]) {
				k += 8
			}
			for k < n && setRunBody[src[k]] {
				k++
			}
			if base+int64(k)-r.rwin > int64(r.c.maxRun&^3) {
				r.runWindows(base + int64(k))
			}
			if k == n {
				return n
			}
		}
		c := src[k]
		switch {
		case c == '=' && r.rpad < 2:
			r.rpad++
			k++
		case setRunBody[c]:
			// A body byte after padding: a new run starts here.
			r.closeRun(base + int64(k))
		default:
			r.closeRun(base + int64(k))
			k++
		}
	}
	return n
}

// decodeWinOverlap is how many bytes two consecutive windows of a long run
// share (at most a quarter of the window): a secret of up to 3/4 of it,
// decoded, that a window boundary cuts is whole in the next window.
const decodeWinOverlap = 1 << 10

// runWindows decodes the full windows of the open run that end before end
// (all run body bytes): a run longer than MaxDecodeRun is decoded in
// windows of MaxDecodeRun bytes (rounded down to whole base64 quanta), each
// starting where the last one's final decodeWinOverlap bytes begin, so that
// its length never hides a secret (an env file base64'd into a Kubernetes
// Secret) while at most one window is held.
func (r *Redactor) runWindows(end int64) {
	r.rlong = true
	wl, step := decodeWindow(r.c.maxRun)
	for end-r.rwin > wl {
		r.decodeSpan(r.rwin, r.rwin+wl)
		r.rwin += step
	}
}

// decodeWindow returns the window length and the step between window
// starts for a MaxDecodeRun of maxRun: both multiples of 4.
func decodeWindow(maxRun int) (wl, step int64) {
	wl = int64(maxRun &^ 3)
	ov := min(int64(decodeWinOverlap), wl/4) &^ 3
	return wl, wl - ov
}

// decodeSpan decodes the window [start, end) of a long run and, if it holds
// a secret, replaces the part of it no earlier window replaced.
func (r *Redactor) decodeSpan(start, end int64) {
	if c, ok := r.decodeScan(start, end, true); ok {
		c.start = max(start, r.rcov)
		r.rcov = end
		r.addCand(c)
	}
}

// closeRun ends the open run at end and decodes it if its size is right;
// of a long run, the last window.
func (r *Redactor) closeRun(end int64) {
	start, long := r.rs, r.rlong
	if long {
		r.runWindows(end)
		r.decodeSpan(r.rwin, end)
	}
	r.rs, r.rpad, r.rlong = -1, 0, false
	if long || end-start < decodeMinRun || end-start > int64(r.c.maxRun) {
		return
	}
	if c, ok := r.decodeScan(start, end, false); ok {
		r.addCand(c)
	}
}

// decodeScan decodes [start, end) of the string and scans the decoded text:
// ok when it holds a secret, then c is the candidate for the whole span. A
// window of a long run may cut a character's UTF-8 bytes at either end:
// those bytes are left out.
func (r *Redactor) decodeScan(start, end int64, window bool) (c candidate, ok bool) {
	run := r.window(start, end)
	dec, enc := decodeRun(run, r.dec[:0])
	r.dec = dec[:0]
	if window {
		dec = trimPartialRunes(dec)
	}
	if enc == EncodingNone || !printable(dec) {
		return c, false
	}
	if r.inner == nil {
		r.inner = r.c.NewRedactor(r.key)
		r.inner.depth = r.depth + 1
	}
	r.innerOut, r.innerFs = r.inner.Append(r.innerOut[:0], dec, true, r.innerFs[:0])
	for _, f := range r.innerFs {
		if f.Kind == KindSecret {
			return candidate{start: start, end: end, rule: f.Rule, cs: f.Checksum, enc: enc, fp: f.Fingerprint}, true
		}
	}
	return c, false
}

// decodeRun decodes a run (see the file comment) appending to dst; enc is
// EncodingNone when the run is not decodable.
func decodeRun(run, dst []byte) ([]byte, Encoding) {
	var flags uint8
	for _, c := range run {
		flags |= runFlags[c]
	}
	pct, allHex, std, url := flags&flagPct != 0, flags&flagNotHex == 0, flags&flagStd != 0, flags&flagURL != 0
	switch {
	case pct:
		for i := 0; i < len(run); i++ {
			c := run[i]
			if c == '%' {
				if i+2 >= len(run) || !setHex[run[i+1]] || !setHex[run[i+2]] {
					return dst, EncodingNone
				}
				c = unhex(run[i+1])<<4 | unhex(run[i+2])
				i += 2
			}
			dst = append(dst, c)
		}
		return dst, EncodingPercent
	case allHex:
		if len(run)%2 != 0 || len(run) < 32 {
			break
		}
		// Most hex runs are hashes and ids: their first bytes already
		// show they are not text.
		var head [16]byte
		if _, err := hex.Decode(head[:], run[:32]); err != nil || hasControl(head[:]) {
			return dst, EncodingNone
		}
		n := len(run) / 2
		dst = grow(dst, n)
		if _, err := hex.Decode(dst[len(dst):len(dst)+n], run); err != nil {
			return dst, EncodingNone
		}
		return dst[:len(dst)+n], EncodingHex
	}
	if std && url {
		return dst, EncodingNone
	}
	body := run
	for len(body) > 0 && body[len(body)-1] == '=' {
		body = body[:len(body)-1]
	}
	enc, e := base64.RawStdEncoding, EncodingBase64
	if url {
		enc, e = base64.RawURLEncoding, EncodingBase64URL
	}
	if len(body)%4 == 1 {
		return dst, EncodingNone
	}
	// Most base64 runs are binary (images, keys, ids): the first 24
	// decoded bytes already show it.
	var head [24]byte
	hn := min(len(body), 32) &^ 3 // whole quanta decode alone
	if m, err := enc.Decode(head[:], body[:hn]); err != nil || hasControl(head[:m]) {
		return dst, EncodingNone
	}
	n := enc.DecodedLen(len(body))
	dst = grow(dst, n)
	m, err := enc.Decode(dst[len(dst):len(dst)+n], body)
	if err != nil {
		return dst, EncodingNone
	}
	return dst[:len(dst)+m], e
}

// grow makes room for n more bytes after len(b).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// Flags of run bytes for decodeRun.
const (
	flagPct = 1 << iota
	flagStd
	flagURL
	flagNotHex
)

var runFlags = func() (t [256]uint8) {
	for c := range t {
		if !setHex[c] {
			t[c] |= flagNotHex
		}
		switch c {
		case '%':
			t[c] |= flagPct
		case '+', '/':
			t[c] |= flagStd
		case '-', '_':
			t[c] |= flagURL
		}
	}
	return t
}()

// hasControl reports a byte that printable rejects whatever follows.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return true
		}
	}
	return false
}

// trimPartialRunes drops the continuation bytes that start b and an
// incomplete sequence that ends it (at most 3 bytes each).
func trimPartialRunes(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0 && b[0]&0xC0 == 0x80; i++ {
		b = b[1:]
	}
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			break
		}
		if c >= 0xC0 {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// printable: valid UTF-8 without control characters besides \t \n \r.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// runWindowGo looks at the whole 32-byte blocks of b for 24 consecutive
// bytes of a run (setRunAny). k is where the first such stretch starts, or
// -1; then from is where the stretch of run bytes that ends the blocks
// begins (the end of the blocks when none does). It is the specification
// of the vector kernel (runwindow_amd64.s) that trackRuns uses to skip
// text without runs.
func runWindowGo(b []byte) (k, from int) {
	end := len(b) &^ 31
	start := 0 // of the current stretch of run bytes
	for i := 0; i < end; i++ {
		if !setRunAny[b[i]] {
			start = i + 1
			continue
		}
		if i+1-start >= 24 {
			return start, 0
		}
	}
	return -1, start
}
