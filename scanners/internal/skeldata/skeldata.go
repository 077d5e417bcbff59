// Package skeldata defines the detection view's per-character data: which
// characters the redactor reads as an ASCII character (their UTS #39
// skeleton, restricted to what detection needs) and which HTML character
// references name such a character.
//
// It is the specification of the tables in scanners: the generator
// (scanners/internal/skelgen) writes them from Pairs and Entities at build
// time, and scanners' tests check the generated tables against them.
//
// Sources: the confusable mappings of Unicode Technical Standard #39
// (confusables.txt), read through the module github.com/mtibben/confusables,
// whose tables are generated from that file (Unicode 13.0.0, 2020-02-13);
// NFKC from golang.org/x/text/unicode/norm; the HTML5 named character
// references from the Go toolchain's own html package source
// (GOROOT/src/html/entity.go, the WHATWG list with and without ';').
package skeldata

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/normdata"
)

// ConfusablesVersion is the version of confusables.txt the mappings come
// from.
const ConfusablesVersion = "13.0.0"

// IsTarget reports whether detection reads other characters as c: the ASCII
// letters and digits and the punctuation of the markers and secret formats
// the rules look for. Other ASCII punctuation (quotes, '&', '.', ',') is
// left alone: typographic quotes and dots are everyday prose, and an '&'
// from a reference would start another one.
func IsTarget(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '<', '>', '/', '\\', '|', '[', ']', '_', '-', ':', '=':
		return true
	}
	return false
}

// Skeleton returns the ASCII character that detection reads r as, for a
// rune that is not ASCII, that NFKC leaves as it is (NFKC runs before
// detection and folds full-width and mathematical forms itself) and that
// the normalizer does not remove: r's UTS #39 skeleton when that is one
// ASCII character for which IsTarget holds. Skeletons map several ASCII
// characters to one prototype ('I', '1' and '|' to 'l'; '0' to 'O'), so
// for those two the character stands for the member of its class that
// its own category names: an upper-case letter for 'I' or 'O', a digit for
// '1' or '0', a lower-case or other letter for 'l', anything else for '|'.
func Skeleton(r rune) (byte, bool) {
	if r < utf8.RuneSelf || r > unicode.MaxRune || 0xD800 <= r && r <= 0xDFFF {
		return 0, false
	}
	if _, strip := normdata.StripClass(r); strip {
		return 0, false
	}
	s := string(r)
	if norm.NFKC.String(s) != s {
		return 0, false
	}
	if r == 0x2581 {
		// LOWER ONE EIGHTH BLOCK, SentencePiece's word separator: DeepSeek
		// spells its control tokens with it ("<｜tool▁calls▁begin｜>").
		return '_', true
	}
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || 0x31C0 <= r && r <= 0x31EF {
		// Strokes and kana that UTS #39 maps to '/', '\' and '=' are
		// everyday Japanese and Chinese text.
		return 0, false
	}
	sk := confusables.Skeleton(s)
	if p, _ := utf8.DecodeRuneInString(sk); len(sk) == utf8.RuneLen(p) {
		if c, ok := angleProtos[p]; ok {
			return c, true
		}
	}
	if len(sk) != 1 || sk[0] >= utf8.RuneSelf {
		return 0, false
	}
	c := sk[0]
	switch c {
	case 'l':
		switch {
		case unicode.IsUpper(r):
			c = 'I'
		case unicode.IsDigit(r):
			c = '1'
		case unicode.IsLetter(r):
			c = 'l'
		default:
			c = '|'
		}
	case 'O':
		if unicode.IsDigit(r) {
			c = '0'
		}
	}
	if !IsTarget(c) {
		return 0, false
	}
	return c, true
}

// A Pair is a rune and the ASCII character detection reads it as.
type Pair struct {
	R  rune
	To byte
}

// Pairs returns every rune for which Skeleton holds, in order.
func Pairs() []Pair {
	var ps []Pair
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if c, ok := Skeleton(r); ok {
			ps = append(ps, Pair{r, c})
		}
	}
	return ps
}

// RefTarget returns the character detection reads a character reference
// to r as: r itself when it is a target, the NFKC form of r when that is
// one target character (&ascr; is U+1D4B6, read as "a"), else Skeleton.
func RefTarget(r rune) (byte, bool) {
	if r < utf8.RuneSelf {
		return byte(r), IsTarget(byte(r))
	}
	if r > unicode.MaxRune || 0xD800 <= r && r <= 0xDFFF {
		return 0, false
	}
	if _, strip := normdata.StripClass(r); strip {
		return 0, false
	}
	if n := norm.NFKC.String(string(r)); n != string(r) {
		if len(n) == 1 && IsTarget(n[0]) {
			return n[0], true
		}
		return 0, false
	}
	return Skeleton(r)
}

// An Entity is an HTML named character reference (its name with the ';'
// when the name has one) and the character detection reads it as.
type Entity struct {
	Name string
	To   byte
}

// Entities returns the named references of HTML5 whose character
// RefTarget reads as a target character, sorted by name. It reads them
// from the source of the Go toolchain's html package.
func Entities() ([]Entity, error) {
	path := filepath.Join(runtime.GOROOT(), "src", "html", "entity.go")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		return nil, err
	}
	var es []Entity
	var perr error
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		k, ok1 := kv.Key.(*ast.BasicLit)
		v, ok2 := kv.Value.(*ast.BasicLit)
		if !ok1 || !ok2 || k.Kind != token.STRING || v.Kind != token.CHAR {
			return true
		}
		name, err1 := strconv.Unquote(k.Value)
		val, _, _, err2 := strconv.UnquoteChar(v.Value[1:len(v.Value)-1], '\'')
		if err1 != nil || err2 != nil {
			perr = fmt.Errorf("skeldata: %s: cannot read entry %s", path, k.Value)
			return false
		}
		if c, ok := RefTarget(val); ok {
			es = append(es, Entity{name, c})
		}
		return true
	})
	if perr != nil {
		return nil, perr
	}
	if len(es) == 0 {
		return nil, fmt.Errorf("skeldata: %s: no entities found", path)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es, nil
}

// angleProtos are the UTS #39 prototypes that stand for an angle bracket
// without being ASCII: U+3008 and U+27E8 map to ❬ (U+276C), and 《 ⟪ ❰ ⧼
// are prototypes of their own. Detection reads every character with such
// a prototype as '<' or '>'. « and » (U+00AB, U+00BB) are not among them:
// they are the quotation marks of French, Russian and other prose.
var angleProtos = map[rune]byte{
	0x276C: '<', 0x276D: '>', // ❬ ❭ (and 〈 〉 ⟨ ⟩)
	0x2770: '<', 0x2771: '>', // ❰ ❱
	0x29FC: '<', 0x29FD: '>', // ⧼ ⧽
	0x300A: '<', 0x300B: '>', // 《 》
	0x27EA: '<', 0x27EB: '>', // ⟪ ⟫
}
