package scanners

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/scanners/internal/skeldata"
)

// refTextView is the reference of the detection view (view.go), built from
// its specification (package skeldata) over a whole string at once: the
// view v of a text s, and for each view offset the text offset it starts
// at (at[len(v)] is len(s)).
type refTextView struct {
	s, v string
	at   []int
}

var refEntities = sync.OnceValue(func() map[string]byte {
	es, err := skeldata.Entities()
	if err != nil {
		panic(err)
	}
	m := map[string]byte{}
	for _, e := range es {
		m[e.Name] = e.To
	}
	return m
})

// refView builds the view of s: each character with a skeleton and each
// character reference to a target, as the view.go file comment says, is
// one byte.
func refView(s string) *refTextView {
	tv := &refTextView{s: s}
	var v strings.Builder
	for i := 0; i < len(s); {
		to, n := refViewAt(s, i)
		if n == 0 {
			tv.at = append(tv.at, i)
			v.WriteByte(s[i])
			i++
			continue
		}
		tv.at = append(tv.at, i)
		v.WriteByte(to)
		i += n
	}
	tv.at = append(tv.at, len(s))
	tv.v = v.String()
	return tv
}

// refViewAt returns the view byte of the reference or character at s[i:]
// and its length, or n 0.
func refViewAt(s string, i int) (byte, int) {
	c := s[i]
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		if to, ok := skeldata.Skeleton(r); ok {
			return to, size
		}
		return 0, 0
	}
	if c != '&' {
		return 0, 0
	}
	rest := s[i+1:]
	if strings.HasPrefix(rest, "#") {
		j := 1
		hex := false
		if j < len(rest) && (rest[j] == 'x' || rest[j] == 'X') {
			hex = true
			j++
		}
		d := j
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || hex && strings.IndexByte("abcdefABCDEF", rest[j]) >= 0) {
			j++
		}
		if j == d || 1+j > viewMaxRef {
			return 0, 0
		}
		var v rune
		for _, c := range rest[d:j] {
			var x rune
			switch {
			case c <= '9':
				x = c - '0'
			default:
				x = c | 0x20 - 'a' + 10
			}
			if hex {
				v = v*16 + x
			} else {
				v = v*10 + x
			}
			if v > utf8.MaxRune {
				return 0, 0
			}
		}
		to, ok := skeldata.RefTarget(v)
		if !ok {
			return 0, 0
		}
		if j < len(rest) && rest[j] == ';' {
			j++
		}
		return to, 1 + j
	}
	j := 0
	for j < len(rest) && setAlnum[rest[j]] {
		j++
	}
	if j == 0 {
		return 0, 0
	}
	ents := refEntities()
	if j < len(rest) && rest[j] == ';' {
		if to, ok := ents[rest[:j+1]]; ok {
			return to, j + 2
		}
	}
	best, to := 0, byte(0)
	for name, c := range ents {
		if !strings.HasSuffix(name, ";") && len(name) > best && len(name) <= j && strings.HasPrefix(rest, name) {
			best, to = len(name), c
		}
	}
	if best == 0 {
		return 0, 0
	}
	return to, 1 + best
}

// text returns the text the view stretch v[a:b] stands for.
func (tv *refTextView) text(a, b int) string { return tv.s[tv.at[a]:tv.at[b]] }

// viewOff returns the view offset of text offset p, which must start a
// view byte (or be the end).
func (tv *refTextView) viewOff(p int) int {
	for k, x := range tv.at {
		if x >= p {
			return k
		}
	}
	return len(tv.at) - 1
}
