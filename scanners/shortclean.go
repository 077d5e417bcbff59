package scanners

import "encoding/binary"

// ShortClean reports whether Append(dst, src, true, fs) right after a
// Reset, with the ASCII hint given (HintASCII: src is ASCII), would append
// src unchanged and report nothing through its short-string path
// (cleanWhole): src is shorter than an encoded run can be, no member-name
// context is set, no character reference can change the detection view
// ('&' absent), and no keyword ends in it or each one that does is ruled
// out by its form's pre-checks. When it reports true the Redactor is left
// as that Append leaves it (Spans holds one span over src), so the caller
// may write src itself; when false it changed nothing and the caller calls
// Append. A longer string is left to Append, whose whole-string path
// decides it in the walk its checks go on from (a second walk here would
// be wasted on every string with a keyword).
//
// It exists for the pipeline's short member names and values: the same
// decision as Append's, without its calls and copies.
func (r *Redactor) ShortClean(src []byte) bool {
	if r.off != 0 || r.ctxLo != 0 || len(src) >= decodeMinRun {
		return false
	}
	w := &r.vw
	if !r.c.noView {
		if w.nhold != 0 || w.mapped() {
			return false
		}
		if hasAmp(src) {
			return false
		}
	}
	if !r.keywordFree(src) {
		return false
	}
	r.shortDone(len(src))
	return true
}

// cleanMax is the longest whole string Append decides in one walk without
// its bookkeeping (cleanWhole). Up to it collect walks a
// block in one lane too (collectLanesMin), so a string the walk finds a
// keyword in costs one more walk over at most this many bytes; above it
// collect's interleaved lanes are faster than keywordFree's one.
const cleanMax = collectLanesMin - 1

// runFree reports whether the whole string src (final, from its start)
// holds no encoded run that Append would decode: decoding is off at this
// depth, src is shorter than a decoded run, or no three consecutive 8-byte
// words of src (from its start) are all run bytes. A run Append decodes is
// a stretch of at least decodeMinRun run bytes (setRunAny: its body and
// padding), and any stretch of 31 or more holds three consecutive full
// words of any tiling into 8-byte words (trackRuns' argument), all inside
// src.
func (r *Redactor) runFree(src []byte) bool {
	if len(src) < decodeMinRun || !r.c.decode || r.depth >= r.c.maxDepth {
		return true
	}
	// The last word of a triple first: a word that is not full skips three.
	for j := 0; j+24 <= len(src); {
		switch {
		case !fullWord(src[j+16 : j+24]):
			j += 24
		case !fullWord(src[j+8 : j+16]):
			j += 16
		case !fullWord(src[j : j+8]):
			j += 8
		default:
			return false
		}
	}
	return true
}

// shortDone leaves the Redactor as Append leaves it after writing a short
// ASCII string of n bytes unchanged: one span over it.
func (r *Redactor) shortDone(n int) {
	r.vw.ascii = false
	r.marks, r.dst0 = r.marks[:0], 0
	r.spans = r.spans[:0]
	if n > 0 {
		r.spans = append(r.spans, Span{Out: 0, Lo: 0, Hi: int64(n)})
	}
}

// hasAmp reports whether b holds an '&', eight bytes at a time: a word
// XORed with eight '&' has a zero byte exactly where b has one, and
// (x - 0x01..01) &^ x & 0x80..80 is not zero exactly when x has a zero
// byte. The last word overlaps the one before it when len(b) is not a
// multiple of eight.
func hasAmp(b []byte) bool {
	const lo, hi, amp = 0x0101010101010101, 0x8080808080808080, 0x2626262626262626
	if len(b) < 8 {
		if cap(b) >= 8 {
			// One word read into b's capacity (the caller's buffer goes
			// on), the lanes past len(b) masked: a borrow only carries
			// towards higher lanes, so the lanes below len(b) are exact.
			x := binary.LittleEndian.Uint64(b[:8]) ^ amp
			return (x-lo)&^x&hi&(1<<(8*len(b))-1) != 0
		}
		for _, c := range b {
			if c == '&' {
				return true
			}
		}
		return false
	}
	for i := 0; ; i += 8 {
		if i+8 > len(b) {
			i = len(b) - 8
		}
		x := binary.LittleEndian.Uint64(b[i:]) ^ amp
		if (x-lo)&^x&hi != 0 {
			return true
		}
		if i+8 == len(b) {
			return false
		}
	}
}
