package scanners

// Terminal escape sequences (ECMA-48). Tool output captured from a terminal
// carries colour codes, cursor moves, window titles and OSC 8 hyperlinks.
// Removing only the ESC control would leave "[31mERROR[0m" behind, and an
// OSC payload (a title, a hidden hyperlink target) is text a terminal never
// shows. So the Normalizer removes whole sequences:
//
//   - CSI: ESC [ (or U+009B), parameter and intermediate bytes 0x20-0x3F, a
//     final byte 0x40-0x7E;
//   - nF and Fp/Fe/Fs escapes: ESC, intermediate bytes 0x20-0x2F, a final
//     byte 0x30-0x7E (ESC 7, ESC ( B, ESC M ...);
//   - control strings: ESC ] (OSC), ESC P (DCS), ESC X (SOS), ESC ^ (PM),
//     ESC _ (APC), or their C1 forms U+009D, U+0090, U+0098, U+009E,
//     U+009F, up to BEL, ESC \ or U+009C.
//
// A byte that cannot continue the sequence ends it and is kept (then
// normalized as usual), so a stray ESC costs at most the ESC. Bounds keep a
// damaged sequence from swallowing text: a CSI or nF sequence drops at most
// escMaxSeq bytes after its ESC, a control string at most escMaxString runes.
// The ESC (or C1 introducer) counts as NormControl, the rest of the
// sequence as NormEscapeSequence, one per rune.

const (
	escNone      = iota
	escStart     // after ESC
	escCSI       // in a control sequence
	escNF        // after ESC and intermediate bytes
	escString    // in a control string
	escStringEsc // in a control string, after ESC
)

const (
	escMaxSeq    = 64   // bytes after ESC dropped as a CSI or nF sequence
	escMaxString = 2048 // runes after ESC dropped as a control string
)

// escOpenC1 starts the sequence a removed C1 control introduces.
func (n *Normalizer) escOpenC1(r rune) {
	switch r {
	case 0x9B:
		n.esc, n.escN = escCSI, 1
	case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
		n.esc, n.escN = escString, 1
	}
}

// escStep offers src[i] to the open escape sequence. It returns the number
// of bytes the sequence took (removed), or 0 when the byte ends the
// sequence without belonging to it.
func (n *Normalizer) escStep(src []byte, i int) int {
	c := src[i]
	switch n.esc {
	case escStart:
		switch {
		case c == '[':
			n.esc = escCSI
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			n.esc = escString
		case 0x20 <= c && c <= 0x2F:
			n.esc = escNF
		case 0x30 <= c && c <= 0x7E:
			n.esc = escNone
		default:
			n.esc = escNone
			return 0
		}
		n.escN = 1
	case escCSI, escNF:
		switch {
		case n.escN >= escMaxSeq:
			n.esc = escNone
			return 0
		case 0x20 <= c && c <= 0x2F || n.esc == escCSI && 0x30 <= c && c <= 0x3F:
			n.escN++
		case n.esc == escCSI && 0x40 <= c && c <= 0x7E || n.esc == escNF && 0x30 <= c && c <= 0x7E:
			n.esc = escNone
		default:
			n.esc = escNone
			return 0
		}
	case escString:
		if n.escN >= escMaxString {
			n.esc = escNone
			return 0
		}
		n.escN++
		switch {
		case c == 0x07:
			n.esc = escNone
		case c == 0x1B:
			n.esc = escStringEsc
		case c >= 0x80:
			r, size := decodeRune(src, i)
			if r == 0x9C {
				n.esc = escNone
			}
			n.stats.Removed[NormEscapeSequence]++
			return size
		}
	case escStringEsc:
		if c != '\\' {
			// The ESC ended the string and opens a new sequence.
			n.esc = escStart
			return n.escStep(src, i)
		}
		n.esc = escNone
	default:
		return 0
	}
	n.stats.Removed[NormEscapeSequence]++
	return 1
}
