package resuri

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Template is a parsed RFC 6570 URI template (levels 1 to 4).
type Template struct {
	parts []tpart
	// prefix is the literal text before the first expression.
	prefix string
	raw    string
}

type tpart struct {
	lit  string // a literal, when op == 0 and vars == nil
	op   byte   // 0 for a simple expression, else one of +#./;?&
	vars []tvar
	expr bool
}

type tvar struct {
	name    string
	prefix  int // :n, 0 for none
	explode bool
}

// ParseTemplate parses an RFC 6570 template. Errors are *Error with
// ReasonTemplate (or ReasonTooLong).
func (p *Parser) ParseTemplate(s string) (*Template, error) {
	if len(s) > p.maxLen {
		return nil, fail(ReasonTooLong)
	}
	if !utf8.ValidString(s) {
		return nil, fail(ReasonTemplate)
	}
	t := &Template{raw: s}
	first := -1
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '{')
		if close := strings.IndexByte(s[i:], '}'); close >= 0 && (open < 0 || close < open) {
			return nil, fail(ReasonTemplate)
		}
		if open < 0 {
			t.parts = append(t.parts, tpart{lit: s[i:]})
			break
		}
		if open > 0 {
			t.parts = append(t.parts, tpart{lit: s[i : i+open]})
		}
		start := i + open + 1
		end := strings.IndexByte(s[start:], '}')
		if end < 0 {
			return nil, fail(ReasonTemplate)
		}
		if first < 0 {
			first = i + open
		}
		e, ok := parseExpr(s[start : start+end])
		if !ok {
			return nil, fail(ReasonTemplate)
		}
		t.parts = append(t.parts, e)
		i = start + end + 1
	}
	for _, pt := range t.parts {
		if !pt.expr && !validLiteral(pt.lit) {
			return nil, fail(ReasonTemplate)
		}
	}
	if first < 0 {
		first = len(s)
	}
	t.prefix = s[:first]
	// The scheme and the authority must be literal: an expression there
	// could pick any root or host.
	// The authority ends at a literal '/' or at a path expression
	// ({/var}).
	sep := strings.Index(t.prefix, "://")
	if sep <= 0 {
		return nil, fail(ReasonTemplate)
	}
	if strings.IndexByte(t.prefix[sep+3:], '/') < 0 {
		var next *tpart
		for i := range t.parts {
			if t.parts[i].expr {
				next = &t.parts[i]
				break
			}
		}
		if next == nil || next.op != '/' {
			return nil, fail(ReasonTemplate)
		}
	}
	name := strings.ToLower(t.prefix[:sep])
	if _, ok := p.schemes[name]; !ok {
		return nil, fail(ReasonScheme)
	}
	return t, nil
}

func parseExpr(e string) (tpart, bool) {
	pt := tpart{expr: true}
	if e == "" {
		return pt, false
	}
	if strings.IndexByte("+#./;?&", e[0]) >= 0 {
		pt.op = e[0]
		e = e[1:]
	} else if strings.IndexByte("=,!@|", e[0]) >= 0 {
		return pt, false // reserved for future operators
	}
	for _, spec := range strings.Split(e, ",") {
		v := tvar{}
		switch {
		case strings.HasSuffix(spec, "*"):
			v.explode = true
			spec = spec[:len(spec)-1]
		case strings.Contains(spec, ":"):
			name, n, _ := strings.Cut(spec, ":")
			if len(n) == 0 || len(n) > 4 || n[0] == '0' {
				return pt, false
			}
			for i := 0; i < len(n); i++ {
				if n[i] < '0' || n[i] > '9' {
					return pt, false
				}
				v.prefix = v.prefix*10 + int(n[i]-'0')
			}
			spec = name
		}
		if !validVarname(spec) {
			return pt, false
		}
		v.name = spec
		pt.vars = append(pt.vars, v)
	}
	return pt, true
}

// validVarname is RFC 6570's varname: varchar *( ["."] varchar ), varchar
// being ALPHA / DIGIT / "_" / pct-encoded.
func validVarname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.':
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// validLiteral refuses what RFC 6570 excludes from literals (controls,
// space, " ' % not starting an escape, < > \ ^ ` { | }).
func validLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f || c == ' ':
			return false
		case strings.IndexByte("\"'<>\\^`{|}", c) >= 0:
			return false
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
		}
	}
	return true
}

// Names returns the variable names of the template, in order of first use.
func (t *Template) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, pt := range t.parts {
		for _, v := range pt.vars {
			if !seen[v.name] {
				seen[v.name] = true
				out = append(out, v.name)
			}
		}
	}
	return out
}

// String returns the template as written.
func (t *Template) String() string { return t.raw }

// Expand expands the template with vars (each a string, a []string list or
// a map[string]string of pairs, taken in key order; absent or empty lists
// and maps are undefined) and parses the expansion: the result is the
// canonical form of the URI the template names, or the error a plain URI
// would have.
func (p *Parser) Expand(t *Template, vars map[string]any) (URI, error) {
	s, ok := t.expand(vars, p.maxLen)
	if !ok {
		return URI{}, fail(ReasonTemplate)
	}
	return p.Parse(s)
}

// ExpandString is RFC 6570 expansion alone, without the check; false if a
// value has an unsupported type or the expansion passes max bytes.
func (t *Template) ExpandString(vars map[string]any, max int) (string, bool) {
	return t.expand(vars, max)
}

type opSpec struct {
	first, sep string
	named      bool
	ifemp      string
	reserved   bool
}

func spec(op byte) opSpec {
	switch op {
	case '+':
		return opSpec{"", ",", false, "", true}
	case '#':
		return opSpec{"#", ",", false, "", true}
	case '.':
		return opSpec{".", ".", false, "", false}
	case '/':
		return opSpec{"/", "/", false, "", false}
	case ';':
		return opSpec{";", ";", true, "", false}
	case '?':
		return opSpec{"?", "&", true, "=", false}
	case '&':
		return opSpec{"&", "&", true, "=", false}
	}
	return opSpec{"", ",", false, "", false}
}

func (t *Template) expand(vars map[string]any, max int) (string, bool) {
	var b strings.Builder
	for _, pt := range t.parts {
		if !pt.expr {
			encodeTo(&b, pt.lit, true)
		} else if !expandExpr(&b, pt, vars) {
			return "", false
		}
		if b.Len() > max {
			return "", false
		}
	}
	return b.String(), true
}

func expandExpr(b *strings.Builder, pt tpart, vars map[string]any) bool {
	sp := spec(pt.op)
	first := true
	for _, v := range pt.vars {
		val, ok := vars[v.name]
		if !ok || val == nil {
			continue
		}
		var list []string
		var pairs [][2]string
		var str string
		isStr := false
		switch x := val.(type) {
		case string:
			str, isStr = x, true
		case []string:
			if len(x) == 0 {
				continue
			}
			list = x
		case map[string]string:
			if len(x) == 0 {
				continue
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				pairs = append(pairs, [2]string{k, x[k]})
			}
		default:
			return false
		}
		if first {
			b.WriteString(sp.first)
			first = false
		} else {
			b.WriteString(sp.sep)
		}
		switch {
		case isStr:
			if sp.named {
				b.WriteString(v.name)
				if str == "" {
					b.WriteString(sp.ifemp)
					continue
				}
				b.WriteByte('=')
			}
			if v.prefix > 0 {
				str = prefixChars(str, v.prefix)
			}
			encodeTo(b, str, sp.reserved)
		case !v.explode:
			if sp.named {
				b.WriteString(v.name)
				b.WriteByte('=')
			}
			if list != nil {
				for i, item := range list {
					if i > 0 {
						b.WriteByte(',')
					}
					encodeTo(b, item, sp.reserved)
				}
			} else {
				for i, kv := range pairs {
					if i > 0 {
						b.WriteByte(',')
					}
					encodeTo(b, kv[0], sp.reserved)
					b.WriteByte(',')
					encodeTo(b, kv[1], sp.reserved)
				}
			}
		default:
			if list != nil {
				for i, item := range list {
					if i > 0 {
						b.WriteString(sp.sep)
					}
					if sp.named {
						b.WriteString(v.name)
						if item == "" {
							b.WriteString(sp.ifemp)
							continue
						}
						b.WriteByte('=')
					}
					encodeTo(b, item, sp.reserved)
				}
			} else {
				for i, kv := range pairs {
					if i > 0 {
						b.WriteString(sp.sep)
					}
					encodeTo(b, kv[0], sp.reserved)
					if sp.named && kv[1] == "" {
						b.WriteString(sp.ifemp)
						continue
					}
					b.WriteByte('=')
					encodeTo(b, kv[1], sp.reserved)
				}
			}
		}
	}
	return true
}

func prefixChars(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// encodeTo writes s with the characters outside the allowed set percent-
// encoded: unreserved only, or unreserved and reserved with existing
// escapes kept (the + and # operators, and literals).
func encodeTo(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		unreserved := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
		if unreserved || reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		if reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteString(s[i : i+3])
			i += 2
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
}
