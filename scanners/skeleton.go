package scanners

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run ./internal/skelgen -o skeleton_tables_gen.go

// The detection view's tables: which characters the Redactor reads as an
// ASCII character (their UTS #39 skeleton, see view.go) and which HTML
// named character references name such a character. The data is derived
// at build time (scanners/internal/skeldata, written compactly into
// skeleton_tables_gen.go by skelgen) and assembled here on first use.
//
// Only what detection needs is kept: characters that NFKC leaves alone
// (NFKC runs first and folds full-width and mathematical forms itself)
// whose skeleton is one ASCII letter, digit or one of < > / \ | [ ] _ - : =,
// and the non-ASCII angle brackets; skeldata documents the exact rule.

// skelTables is the assembled form of the generated data.
type skelTables struct {
	low    [0x800]byte                      // target of each rune below U+0800, 0 for none
	blocks [(unicode.MaxRune + 1) >> 8]bool // a block of 256 runes from U+0800 holds a pair
	bmp    [0x10000 / 64]uint64             // bit r of the Basic Multilingual Plane: r has a target
	high   map[rune]byte                    // targets of runes from U+0800
	ents   map[string]byte                  // named references (with ';' where the name has one)
	lead   [256]bool                        // UTF-8 lead bytes of the runes with a target
	lead2  [256]uint64                      // bit b of lead2[c]: some rune with a target starts with c, then a byte whose low six bits are b
	legacy []string                         // the names accepted without ';' (HTML5 legacy references)
	maxEnt int                              // longest name, ';' included
}

var skelTab = sync.OnceValue(func() *skelTables {
	t := &skelTables{high: map[rune]byte{}, ents: map[string]byte{}}
	for i := 0; i+4 <= len(skelPairs); i += 4 {
		r := rune(skelPairs[i])<<16 | rune(skelPairs[i+1])<<8 | rune(skelPairs[i+2])
		to := skelPairs[i+3]
		if r < 0x800 {
			t.low[r] = to
		} else {
			t.high[r] = to
			t.blocks[r>>8] = true
			if r < 0x10000 {
				t.bmp[r>>6] |= 1 << (r & 63)
			}
		}
		var b [utf8.UTFMax]byte
		utf8.EncodeRune(b[:], r)
		t.lead[b[0]] = true
		t.lead2[b[0]] |= 1 << (b[1] & 0x3F)
	}
	for i := 0; i < len(skelEntities); {
		n := int(skelEntities[i])
		name := skelEntities[i+1 : i+1+n]
		t.ents[name] = skelEntities[i+1+n]
		if name[n-1] != ';' {
			t.legacy = append(t.legacy, name)
		}
		t.maxEnt = max(t.maxEnt, n)
		i += n + 2
	}
	return t
})

// target returns the ASCII character detection reads r (not ASCII) as, or 0.
func (t *skelTables) target(r rune) byte {
	if r < 0x800 {
		return t.low[r]
	}
	if r < 0x10000 {
		if t.bmp[r>>6]>>(r&63)&1 == 0 {
			return 0
		}
	} else if r > unicode.MaxRune || !t.blocks[r>>8] {
		return 0
	}
	return t.high[r]
}

// SkeletonASCII returns the ASCII character that the Redactor reads r as
// when r is not ASCII: its UTS #39 skeleton, restricted as the file comment
// of skeleton.go says (Cyrillic 'а', Greek 'ρ', Cherokee 'Ꮪ', Latin 'ɡ',
// '‹' and '〈' among them).
func SkeletonASCII(r rune) (byte, bool) {
	if r < 0x80 {
		return 0, false
	}
	c := skelTab().target(r)
	return c, c != 0
}
