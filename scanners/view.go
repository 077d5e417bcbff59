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
// for '&' and one for a high bit (nextHigh); text its caller hints as
// ASCII (HintASCII) only the search for '&'. Text outside ASCII is walked
// rune by rune (skip) to the next look-alike; only a look-alike or a
// reference costs a record, and a stretch written as it was is copied back
// from the text given in one piece (restore).

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

	cum int64 // the cum of the last record (0 without one)

	// amp0 is 1 + the index of the first '&' of the next build's src when
	// Append has searched for it (nothing held then), or 0.
	amp0 int

	// During an Append: the text build made the view of (held bytes and
	// src), and the view offset of its first byte.
	in     []byte
	inBase int64
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
	w.cum = 0
	w.amp0 = 0
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
// It goes from one stop to the next: a '&' (found with bytes.IndexByte),
// and, reading look-alikes, a character with a target, which skip finds
// in the text before the next '&'. Only the stops cost more than the walk.
func (w *detView) build(src []byte, base int64, final bool) []byte {
	in := src
	if w.nhold > 0 {
		w.tmp = append(append(w.tmp[:0], w.hold[:w.nhold]...), src...)
		in = w.tmp
		w.nhold = 0
	}
	w.in, w.inBase = in, base
	// amp is the index of the first '&' from i on, or len(in).
	amp := w.amp0 - 1
	if w.amp0 == 0 {
		amp = bytes.IndexByte(in, '&')
	}
	w.amp0 = 0
	if amp < 0 {
		amp = len(in)
	}
	skel := w.skel
	t := skelTab()
	// high is the index of the first byte outside ASCII from where it was
	// last searched, or len(in): the text between a '&' and the next is
	// walked only when one lies in it.
	high := len(in)
	i, to, n := amp, byte(0), 0
	if skel {
		if high = nextHigh(in, 0); high < amp {
			i, to, n = t.skip(in[:amp], high)
		}
	}
	if i == len(in) {
		return in
	}
	s := w.sbuf[:0]
	if cap(s) < len(in)+16 {
		// The view is never longer than the text: with 16 bytes more
		// there is always room for a 16-byte copy at its end.
		s = make([]byte, 0, len(in)+len(in)/4+16)
		w.sbuf = s
	}
	lit := 0 // in[lit:i] is not in s yet
	for {
		ref := false // the stop was a '&'
		switch {
		case to != 0:
			// A character with a target. The text before it is most
			// often short (a letter or a word): up to 15 bytes go as two
			// eight-byte copies, the target right after them (s has room,
			// see above).
			if k := i - lit; k < 16 && lit+16 <= len(in) {
				d := len(s)
				b := s[d : d+16]
				store64(b, 0, load64(in, lit))
				store64(b, 8, load64(in, lit+8))
				b[k] = to
				s = s[:d+k+1]
			} else {
				s = append(s, in[lit:i]...)
				s = append(s, to)
			}
			// The record (see record), its original bytes in place.
			w.cum += int64(n - 1)
			w.recs = append(w.recs, viewRec{s: base + int64(len(s)-1), o: int32(len(w.orig)), n: uint8(n), cum: w.cum})
			switch n {
			case 2:
				w.orig = append(w.orig, in[i], in[i+1])
			case 3:
				w.orig = append(w.orig, in[i], in[i+1], in[i+2])
			default:
				w.orig = append(w.orig, in[i:i+n]...)
			}
			i += n
			lit = i
		case i < amp:
			// in[i:amp] is a UTF-8 sequence cut at amp.
			if amp < len(in) {
				i++ // by the '&': an invalid lead byte, on its own
				break
			}
			if !final {
				// The rest of the rune comes next (an unfinished rune is
				// shorter than viewMaxHold).
				s = append(s, in[lit:i]...)
				w.nhold = copy(w.hold[:], in[i:])
				lit = len(in)
			}
			i = len(in) // final: an unfinished rune ends the string, as it is
		case i == len(in):
		default:
			// A '&' at i.
			ref = true
			rto, rn, short := t.ref(in[i:], final)
			if short && len(in)-i <= viewMaxHold {
				s = append(s, in[lit:i]...)
				w.nhold = copy(w.hold[:], in[i:])
				lit, i = len(in), len(in)
				break
			}
			if rn > 1 {
				s = append(s, in[lit:i]...)
				w.record(base+int64(len(s)), in[i:i+rn])
				s = append(s, rto)
				i += rn
				lit = i
			} else {
				i++
			}
			amp = len(in)
			if k := bytes.IndexByte(in[i:], '&'); k >= 0 {
				amp = i + k
			}
		}
		if i >= len(in) {
			break
		}
		to = 0
		switch {
		case !skel:
			i = amp
		case !ref:
			// After a look-alike or a cut sequence: most often more text
			// outside ASCII follows.
			i, to, n = t.skip(in[:amp], i)
		default:
			if high < i {
				high = nextHigh(in, i)
			}
			if high < amp {
				i, to, n = t.skip(in[:amp], high)
			} else {
				i = amp
			}
		}
	}
	if lit == 0 {
		return in
	}
	s = append(s, in[lit:]...)
	w.sbuf = s
	return s
}

// skip returns the index of the first character of b[i:] that the view
// reads as an ASCII character, that character and the character's length;
// or, with to 0, the index of a UTF-8 sequence that the end of b cuts
// (its lead byte, then only continuation bytes), or len(b). b holds no
// '&'. Every byte it passes stands for itself in the view: ASCII, runes
// without a target, and bytes that are no valid UTF-8 (utf8.DecodeRune
// reads each on its own, and a continuation byte starts nothing).
//
// It is the view's walk over text outside ASCII: two-byte runes (Latin
// accents, Greek, Cyrillic) are read from the low table, longer ones are
// decoded only when lead2 lists their first two bytes, and ASCII between
// them goes a few bytes by hand (most often a space between two words),
// then eight at a time.
func (t *skelTables) skip(b []byte, i int) (_ int, to byte, n int) {
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			if i+8 > len(b) {
				for i < len(b) && b[i] < utf8.RuneSelf {
					i++
				}
			} else if x := binary.LittleEndian.Uint64(b[i:]) & swarHi; x != 0 {
				i += bits.TrailingZeros64(x) >> 3
			} else {
				i = nextHigh(b, i+8)
			}
			continue
		}
		if c < 0xE0 {
			if i+1 < len(b) {
				if c1 := b[i+1]; c1&0xC0 == 0x80 && c >= 0xC2 {
					if to := t.low[rune(c&0x1F)<<6|rune(c1&0x3F)]; to != 0 {
						return i, to, 2
					}
					i += 2
					continue
				}
			} else if c >= 0xC2 {
				return i, 0, 0
			}
			i++
			continue
		}
		if c < 0xF0 {
			if i+2 < len(b) {
				c1, c2 := b[i+1], b[i+2]
				if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
					if t.lead2[c]>>(c1&0x3F)&1 != 0 {
						// An overlong form or a surrogate is an error to
						// utf8.DecodeRune: no target.
						r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
						if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
							if to := t.target(r); to != 0 {
								return i, to, 3
							}
						}
					}
					i += 3
					continue
				}
			} else if continuation(b[i+1:]) {
				return i, 0, 0
			}
			i++
			continue
		}
		if i+3 < len(b) {
			if continuation(b[i+1 : i+4]) {
				if t.lead2[c]>>(b[i+1]&0x3F)&1 != 0 {
					if r, size := utf8.DecodeRune(b[i:]); size == 4 {
						if to := t.target(r); to != 0 {
							return i, to, 4
						}
					}
				}
				i += 4
				continue
			}
		} else if continuation(b[i+1:]) {
			return i, 0, 0
		}
		i++
	}
	return len(b), 0, 0
}

// load64 reads the little-endian word at b[i] and store64 writes one
// there: one load or store (the compiler combines the bytes), without
// making the slice b[i:].
func load64(b []byte, i int) uint64 {
	_ = b[i+7]
	return uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
		uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
}

func store64(b []byte, i int, v uint64) {
	_ = b[i+7]
	b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	b[i+4], b[i+5], b[i+6], b[i+7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

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

// nextHighWords returns the index of the first byte of b[i:] that is not
// ASCII, or len(b), 32 and 8 bytes at a time. nextHigh is it, with a
// vector kernel for long stretches where there is one.
func nextHighWords(b []byte, i int) int {
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
	w.cum += int64(len(orig) - 1)
	w.recs = append(w.recs, viewRec{s: s, o: int32(len(w.orig)), n: uint8(len(orig)), cum: w.cum})
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
	w.cum -= gone
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
// given, and the spans and the findings fs to text offsets. A span's view
// text stands for one stretch of the text: what of it lies in the text of
// this Append (w.in) is copied from there at once; the part before it
// (held from an earlier Append) is put back record by record.
func (w *detView) restore(dst []byte, d0 int, spans []Span, marks []Mark, fs []Finding, ctxLo int64) []byte {
	out := w.out[:0]
	pos := 0 // in dst[d0:]
	wrote := dst[d0:]
	mk := 0 // the first mark not yet moved (they lie between spans)
	inBase := w.inBase
	tIn := w.textOff(inBase) // the text offset of w.in[0]
	for i := range spans {
		sp := &spans[i]
		mk = moveMarks(marks, mk, sp.Out, len(out)-pos)
		out = append(out, wrote[pos:sp.Out]...)
		lo, hi := sp.Lo+ctxLo, sp.Hi+ctxLo
		tlo, thi := w.textOff(lo), w.textOff(hi)
		nOut := len(out)
		if lo < inBase {
			out = w.appendRecs(out, wrote, int64(sp.Out)-lo, lo, min(hi, inBase))
		}
		if hi > inBase {
			from := tlo
			if lo < inBase {
				from = tIn
			}
			out = append(out, w.in[from-tIn:thi-tIn]...)
		}
		pos = sp.Out + int(sp.Hi-sp.Lo)
		sp.Out = nOut
		sp.Lo, sp.Hi = tlo-ctxLo, thi-ctxLo
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

// appendRecs appends the text that view offsets lo to hi stand for, the
// view text being wrote[base+lo:base+hi], with the records' original bytes.
func (w *detView) appendRecs(out, wrote []byte, base, lo, hi int64) []byte {
	k := sort.Search(len(w.recs), func(i int) bool { return w.recs[i].s >= lo })
	p := lo
	for ; k < len(w.recs) && w.recs[k].s < hi; k++ {
		rc := &w.recs[k]
		out = append(out, wrote[base+p:base+rc.s]...)
		out = append(out, w.orig[rc.o:rc.o+int32(rc.n)]...)
		p = rc.s + 1
	}
	return append(out, wrote[base+p:base+hi]...)
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
		w.in = nil
		return r.appendScan(dst, src, final, fs)
	}
	d0, f0, ctxLo := len(dst), len(fs), r.ctxLo // a final Append resets ctxLo
	w.keep = true
	dst, fs = r.appendScan(dst, s, final, fs)
	w.keep = false
	if w.mapped() {
		dst = w.restore(dst, d0, r.spans, r.marks, fs[f0:], ctxLo)
	}
	w.in = nil // not kept past the Append
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
