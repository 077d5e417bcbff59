package scanners

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The detection view. A model reads "‹Ꮪystem›" (U+2039, Cherokee S,
// U+203A), "ghρ_" (Greek rho) and "&#0060;system&gt" as "<system>" and
// "ghp_", but none of them is the ASCII a rule looks for. So the Redactor
// does not scan the text it is given as it is: it scans a view of it in
// which
//
//   - every character that skeleton.go lists (its UTS #39 skeleton is one
//     ASCII letter, digit or marker punctuation) is that ASCII character,
//   - every HTML character reference to such a character (or to one whose
//     NFKC form is one) is that character: decimal and hexadecimal
//     references with any case of x and any number of leading zeros up to
//     viewMaxRef bytes, with or without the ';' (HTML5 decodes both), and
//     named references as HTML5 accepts them in text: with ';', and the
//     legacy names (&lt, &gt, &times ...) also without it, even when
//     letters follow (&ltsystem is "<system").
//
// Each such character or reference becomes one byte of the view. Rules,
// keywords, repeats and fingerprints all work on the view; what the
// Redactor writes is the text it was given, except the matches, which are
// replaced by markers as before: a stretch of text written as it was gets
// its original characters back, and Spans, Released and the Findings'
// offsets and lengths are counted in the text given, not in the view.
// '&' is not a target, so a reference never makes another one ("&amp;lt;"
// stays as written in the view), and ASCII is never changed.
//
// Streaming, a character reference or a UTF-8 sequence cut by the end of
// a call is held (at most viewMaxHold bytes) and finished by the next one;
// the view, and so the output, does not depend on how the text is split.
// Text without '&' and without a byte outside ASCII costs a vector search
// for '&' and an eight-byte-lane search for a high bit; text its caller
// hints as ASCII (HintASCII) only the search for '&'.

// viewMaxRef bounds the length of a character reference the view decodes,
// from the '&' to the ';' or the last digit or letter: 32 leading zeros fit.
// Longer references are left as they are.
const viewMaxRef = 40

// viewMaxHold bounds what the view holds between calls: an unfinished
// reference or UTF-8 sequence.
const viewMaxHold = viewMaxRef + 1

// viewTargets is skeldata.IsTarget: the ASCII characters a reference may
// stand for in the view.
var viewTargets = func() (s byteSet) {
	for _, c := range []byte("<>/\\|[]_-:=") {
		s[c] = true
	}
	for c := byte('0'); c <= 'z'; c++ {
		if setWord[c] && c != '_' {
			s[c] = true
		}
	}
	return s
}()

// viewRec is one byte of the view that stands for more text: the view byte
// at string offset s stands for orig[o:o+n].
type viewRec struct {
	s   int64
	o   int32
	n   uint8
	cum int64 // the extra bytes (n-1) of this record and all before it since the last prune
}

// detView is a Redactor's detection view of the current string.
type detView struct {
	hold  [viewMaxHold]byte
	nhold int
	recs  []viewRec
	orig  []byte
	delta int64 // text offset minus view offset before recs[0]
	sbuf  []byte
	tmp   []byte
	out   []byte
	spans []Span
	keep  bool // a final Append restores before the view is reset
	skel  bool // look-alike characters are read as their skeleton
	ascii bool // the next Append's input is ASCII (HintASCII)
}

// HintASCII tells the Redactor that the src of the next Append holds no
// byte outside ASCII, which spares the detection view its search for
// look-alike characters. A caller that knows it (the pipeline tracks it
// for every string) calls it before that Append; the hint holds for one
// Append. A wrong hint is a caller's bug: look-alikes in that src would
// be read as they are.
func (r *Redactor) HintASCII() { r.vw.ascii = true }

func (w *detView) reset() {
	if w.keep {
		return
	}
	w.nhold = 0
	w.recs = w.recs[:0]
	w.orig = w.orig[:0]
	w.delta = 0
}

// mapped reports whether view offsets differ from text offsets anywhere
// from the oldest record kept.
func (w *detView) mapped() bool { return w.delta != 0 || len(w.recs) > 0 }

// textOff returns the text offset of view offset s (a string offset, the
// synthetic prefix of a member-name context included).
func (w *detView) textOff(s int64) int64 {
	k := sort.Search(len(w.recs), func(i int) bool { return w.recs[i].s >= s })
	if k == 0 {
		return s + w.delta
	}
	return s + w.delta + w.recs[k-1].cum
}

// build returns the view of src, whose first byte is at view offset base,
// holding an unfinished reference or rune at the end unless final. It
// returns src itself when the view of it is src.
//
// It walks from one stop to the next: a '&' (found with bytes.IndexByte)
// or, reading look-alikes, a byte outside ASCII (nextHigh, or by hand for
// the few bytes between two words of a non-Latin script). A non-ASCII rune
// is decoded only when its first two bytes are those of a listed
// character (lead2).
func (w *detView) build(src []byte, base int64, final bool) []byte {
	in := src
	if w.nhold > 0 {
		w.tmp = append(append(w.tmp[:0], w.hold[:w.nhold]...), src...)
		in = w.tmp
		w.nhold = 0
	}
	// amp is the index of the first '&' from i on, or len(in).
	amp := bytes.IndexByte(in, '&')
	if amp < 0 {
		amp = len(in)
	}
	skel := w.skel
	// high is the index of the first byte outside ASCII from where it was
	// last searched (at or before i), or len(in): none lies before it.
	high := len(in)
	if skel {
		high = nextHigh(in, 0)
	}
	i := min(amp, high)
	if i == len(in) {
		return in
	}
	t := skelTab()
	s := w.sbuf[:0]
	lit := 0
	changed := false
	for i < len(in) {
		c := in[i]
		if c == '&' {
			to, n, short := t.ref(in[i:], final)
			if short && len(in)-i <= viewMaxHold {
				s = append(s, in[lit:i]...)
				w.nhold = copy(w.hold[:], in[i:])
				lit = len(in)
				changed = true
				break
			}
			if n > 1 {
				s = append(s, in[lit:i]...)
				w.record(base+int64(len(s)), in[i:i+n])
				s = append(s, to)
				i += n
				lit = i
				changed = true
			} else {
				i++
			}
			amp = len(in)
			if k := bytes.IndexByte(in[i:], '&'); k >= 0 {
				amp = i + k
			}
			if !skel {
				i = amp
			}
			continue
		}
		if c < utf8.RuneSelf {
			// ASCII up to the next stop. high is behind when a non-ASCII
			// stretch was passed: a few bytes by hand (most often the
			// space between two words), then the search.
			if high < i {
				j, e := i+1, min(len(in), i+8)
				for j < e && in[j] < utf8.RuneSelf {
					j++
				}
				if j == e && j < len(in) {
					j = nextHigh(in, j)
				}
				high = j
			}
			i = min(amp, high)
			continue
		}
		if c >= 0xC2 && c <= 0xDF {
			// A stretch of two-byte runes (Cyrillic, Greek, Latin
			// extensions): t.low is their table.
			for i+1 < len(in) {
				c1 := in[i+1]
				if c1&0xC0 != 0x80 {
					break
				}
				if to := t.low[rune(c&0x1F)<<6|rune(c1&0x3F)]; to != 0 {
					s = append(s, in[lit:i]...)
					w.record(base+int64(len(s)), in[i:i+2])
					s = append(s, to)
					lit = i + 2
					changed = true
				}
				i += 2
				if i >= len(in) {
					break
				}
				if c = in[i]; c < 0xC2 || c > 0xDF {
					break
				}
			}
			if i >= len(in) || in[i] < 0xC2 || in[i] > 0xDF || i+1 < len(in) && in[i+1]&0xC0 == 0x80 {
				continue
			}
			// in[i] leads a two-byte rune that is cut or invalid: below.
		}
		if c >= 0xE0 && c <= 0xEF && i+2 < len(in) && in[i+1]&0xC0 == 0x80 && in[i+2]&0xC0 == 0x80 {
			// A three-byte sequence, decoded only when lead2 lists its
			// first two bytes. An overlong form or a surrogate is an
			// error to utf8.DecodeRune: no target.
			c1 := in[i+1]
			if t.lead2[c]>>(c1&0x3F)&1 != 0 {
				r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(in[i+2]&0x3F)
				if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
					if to := t.target(r); to != 0 {
						s = append(s, in[lit:i]...)
						w.record(base+int64(len(s)), in[i:i+3])
						s = append(s, to)
						lit = i + 3
						changed = true
					}
				}
			}
			i += 3
			continue
		}
		size := runeLen(c)
		if i+size > len(in) {
			if !final {
				// The rest of the rune comes next (an unfinished rune is
				// shorter than viewMaxHold).
				s = append(s, in[lit:i]...)
				w.nhold = copy(w.hold[:], in[i:])
				lit = len(in)
				changed = true
			}
			break // final: an unfinished rune ends the string, as it is
		}
		if size > 1 && !continuation(in[i+1:i+size]) {
			size = 1 // an invalid lead byte stands alone, as utf8.DecodeRune reads it
		}
		if size > 1 && t.lead2[c]>>(in[i+1]&0x3F)&1 != 0 {
			var to byte
			if size == 2 {
				// lead2 has no bit for the overlong leads 0xC0 and 0xC1.
				to = t.low[rune(c&0x1F)<<6|rune(in[i+1]&0x3F)]
			} else {
				r, _ := decodeRune(in, i)
				to = t.target(r)
			}
			if to != 0 {
				s = append(s, in[lit:i]...)
				w.record(base+int64(len(s)), in[i:i+size])
				s = append(s, to)
				lit = i + size
				changed = true
			}
		}
		i += size
	}
	if !changed {
		return in
	}
	s = append(s, in[lit:]...)
	w.sbuf = s
	return s
}

// runeLen is the length of the UTF-8 sequence a byte >= 0x80 leads, 1
// for a continuation byte (invalid where it leads).
// continuation reports whether every byte of b is a UTF-8 continuation
// byte (10xxxxxx).
func continuation(b []byte) bool {
	for _, c := range b {
		if c&0xC0 != 0x80 {
			return false
		}
	}
	return true
}

func runeLen(c byte) int {
	switch {
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	case c >= 0xC0:
		return 2
	}
	return 1
}

// nextHigh returns the index of the first byte of b[i:] that is not ASCII,
// or len(b), 32 and 8 bytes at a time.
func nextHigh(b []byte, i int) int {
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32]
		x0 := binary.LittleEndian.Uint64(w)
		x1 := binary.LittleEndian.Uint64(w[8:])
		x2 := binary.LittleEndian.Uint64(w[16:])
		x3 := binary.LittleEndian.Uint64(w[24:])
		if (x0|x1|x2|x3)&swarHi != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) & swarHi; x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// record notes that the view byte at string offset s stands for orig.
func (w *detView) record(s int64, orig []byte) {
	var cum int64
	if k := len(w.recs); k > 0 {
		cum = w.recs[k-1].cum
	}
	w.recs = append(w.recs, viewRec{s: s, o: int32(len(w.orig)), n: uint8(len(orig)), cum: cum + int64(len(orig)-1)})
	w.orig = append(w.orig, orig...)
}

// prune drops the records before view offset low, which no later output,
// Span or Finding of the string reaches.
func (w *detView) prune(low int64) {
	k := sort.Search(len(w.recs), func(i int) bool { return w.recs[i].s >= low })
	if k == 0 {
		return
	}
	gone := w.recs[k-1].cum
	w.delta += gone
	o := int32(len(w.orig))
	if k < len(w.recs) {
		o = w.recs[k].o
	}
	n := copy(w.recs, w.recs[k:])
	w.recs = w.recs[:n]
	for i := range w.recs {
		w.recs[i].cum -= gone
		w.recs[i].o -= o
	}
	m := copy(w.orig, w.orig[o:])
	w.orig = w.orig[:m]
}

// restore rewrites what an Append wrote from d0 on (view text and markers,
// as spans describe it, with value offsets from ctxLo) to the text as
// given, and the spans and the findings fs to text offsets.
func (w *detView) restore(dst []byte, d0 int, spans []Span, marks []Mark, fs []Finding, ctxLo int64) []byte {
	out := w.out[:0]
	pos := 0 // in dst[d0:]
	wrote := dst[d0:]
	mk := 0 // the first mark not yet moved (they lie between spans)
	for i := range spans {
		sp := &spans[i]
		mk = moveMarks(marks, mk, sp.Out, len(out)-pos)
		out = append(out, wrote[pos:sp.Out]...)
		lo, hi := sp.Lo+ctxLo, sp.Hi+ctxLo
		nOut := len(out)
		k := sort.Search(len(w.recs), func(i int) bool { return w.recs[i].s >= lo })
		p := lo
		base := int64(sp.Out) - lo // wrote index of view offset x is base+x
		for ; k < len(w.recs) && w.recs[k].s < hi; k++ {
			rc := &w.recs[k]
			out = append(out, wrote[base+p:base+rc.s]...)
			out = append(out, w.orig[rc.o:rc.o+int32(rc.n)]...)
			p = rc.s + 1
		}
		out = append(out, wrote[base+p:base+hi]...)
		pos = sp.Out + int(sp.Hi-sp.Lo)
		sp.Out = nOut
		sp.Lo, sp.Hi = w.textOff(lo)-ctxLo, w.textOff(hi)-ctxLo
	}
	moveMarks(marks, mk, len(wrote)+1, len(out)-pos)
	out = append(out, wrote[pos:]...)
	for i := range marks {
		marks[i].At = w.textOff(marks[i].At+ctxLo) - ctxLo
	}
	for i := range fs {
		f := &fs[i]
		s := f.Offset + ctxLo
		e := s + int64(f.Length)
		ts := w.textOff(s)
		f.Offset, f.Length = ts-ctxLo, int(w.textOff(e)-ts)
	}
	w.out = out
	return append(dst[:d0], out...)
}

// ref reads a character reference at the start of b ('&'): the character
// the view reads it as and its length (n 0: not one the view decodes), or
// short when b ends before that is known and more may come.
func (t *skelTables) ref(b []byte, final bool) (to byte, n int, short bool) {
	if len(b) < 2 {
		return 0, 0, !final
	}
	if b[1] == '#' {
		return numericRef(b, final)
	}
	// A name: letters and digits, starting with a letter.
	i := 1
	for i < len(b) && i <= t.maxEnt && setAlnum[b[i]] {
		i++
	}
	if i == 1 {
		return 0, 0, false
	}
	if i == len(b) && !final && i <= t.maxEnt {
		return 0, 0, true
	}
	if i < len(b) && b[i] == ';' {
		if c, ok := t.ents[string(b[1:i+1])]; ok {
			return c, i + 1, false
		}
	}
	// HTML5 legacy names: the longest one that starts the name, with no ';'.
	best := 0
	for _, l := range t.legacy {
		if len(l) > best && len(l) < i && string(b[1:1+len(l)]) == l {
			best = len(l)
			to = t.ents[l]
		}
	}
	if best == 0 {
		return 0, 0, false
	}
	return to, 1 + best, false
}

// numericRef reads &#digits or &#x hex digits, an optional ';' after them.
func numericRef(b []byte, final bool) (to byte, n int, short bool) {
	i := 2
	hex := false
	if i < len(b) && b[i]|0x20 == 'x' {
		hex = true
		i++
	}
	d := i
	v := rune(0)
	for i < len(b) && i <= viewMaxRef {
		c := b[i]
		var x rune
		switch {
		case '0' <= c && c <= '9':
			x = rune(c - '0')
		case hex && 'a' <= c|0x20 && c|0x20 <= 'f':
			x = rune(c|0x20-'a') + 10
		default:
			goto done
		}
		if hex {
			v = v<<4 | x
		} else {
			v = v*10 + x
		}
		if v > unicode.MaxRune {
			return 0, 0, false
		}
		i++
	}
	if i > viewMaxRef {
		return 0, 0, false // longer than viewMaxRef
	}
done:
	if i == len(b) && !final {
		return 0, 0, true // more digits or the ';' may follow
	}
	if i == d {
		return 0, 0, false
	}
	if to = refTarget(v); to == 0 {
		return 0, 0, false
	}
	if i < len(b) && b[i] == ';' {
		i++
	}
	return to, i, false
}

// refTarget is skeldata.RefTarget: the character the view reads a
// reference to r as, or 0.
func refTarget(r rune) byte {
	if r < utf8.RuneSelf {
		if viewTargets[byte(r)] {
			return byte(r)
		}
		return 0
	}
	if r > unicode.MaxRune || 0xD800 <= r && r <= 0xDFFF {
		return 0
	}
	if _, strip := stripClass(r); strip {
		return 0
	}
	var b, nb [32]byte
	s := b[:utf8.EncodeRune(b[:], r)]
	if n := norm.NFKC.Append(nb[:0], s...); !bytes.Equal(n, s) {
		if len(n) == 1 && viewTargets[n[0]] {
			return n[0]
		}
		return 0
	}
	return skelTab().target(r)
}

// appendViewed is Append through the detection view: the rules scan the
// view of src, and what is written, Spans, Released and the Findings are
// put back in terms of src.
func (r *Redactor) appendViewed(dst, src []byte, final bool, fs []Finding) ([]byte, []Finding) {
	w := &r.vw
	held := w.nhold > 0
	skel := w.skel
	if w.ascii {
		w.skel, w.ascii = false, false // nothing to look up in ASCII
	}
	s := w.build(src, r.off, final)
	w.skel = skel
	if !held && w.nhold == 0 && !w.mapped() {
		// The view of this call is src and no earlier one differed.
		return r.appendScan(dst, src, final, fs)
	}
	d0, f0, ctxLo := len(dst), len(fs), r.ctxLo // a final Append resets ctxLo
	w.keep = true
	dst, fs = r.appendScan(dst, s, final, fs)
	w.keep = false
	if w.mapped() {
		dst = w.restore(dst, d0, r.spans, r.marks, fs[f0:], ctxLo)
	}
	if final {
		w.reset()
		return dst, fs
	}
	low := r.bufBase
	if r.cont {
		low = min(low, r.contStart)
	}
	w.prune(low)
	return dst, fs
}
