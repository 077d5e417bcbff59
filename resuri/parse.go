package resuri

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// URI is the canonical form of an accepted URI.
type URI struct {
	Scheme string
	Kind   Kind
	// Authority is the root alias (KindRoot), host[:port] (KindHTTPS) or
	// authority (KindCustom), lower-case; "" for KindFile.
	Authority string
	// RootID is the root id of the alias or file root (KindRoot,
	// KindFile); "" otherwise.
	RootID string
	// Segments are the decoded path segments: below the root for KindRoot
	// and KindFile, the whole path otherwise.
	Segments []string
	// RelativePath is Segments joined by "/": what a path broker is asked
	// for.
	RelativePath string
	// Query is the canonical query (KindHTTPS with AllowQuery), without '?'.
	Query string
	// Canonical is the canonical URI: lower-case scheme and authority,
	// every segment escaped as ECMAScript's encodeURIComponent does (upper-
	// case hex), "localhost" and port 443 dropped.
	Canonical string
}

// Parse checks s and returns its canonical form, or an *Error.
func (p *Parser) Parse(s string) (URI, error) {
	if len(s) > p.maxLen {
		return URI{}, fail(ReasonTooLong)
	}
	if err := rawCheck(s); err != nil {
		return URI{}, err
	}
	colon := strings.Index(s, "://")
	if colon <= 0 {
		return URI{}, fail(ReasonSyntax)
	}
	name := strings.ToLower(s[:colon])
	if !validSchemeName(name) {
		return URI{}, fail(ReasonSyntax)
	}
	sc, ok := p.schemes[name]
	if !ok {
		return URI{}, fail(ReasonScheme)
	}
	rest := s[colon+3:]
	if strings.IndexByte(rest, '#') >= 0 {
		return URI{}, fail(ReasonQueryOrFragment)
	}
	var query string
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		if !sc.AllowQuery {
			return URI{}, fail(ReasonQueryOrFragment)
		}
		var err error
		if query, err = canonicalQuery(rest[q+1:]); err != nil {
			return URI{}, err
		}
		rest = rest[:q]
	}
	auth, path, _ := strings.Cut(rest, "/")
	u := URI{Scheme: name, Kind: sc.Kind, Query: query}
	switch sc.Kind {
	case KindRoot, KindCustom:
		if !validAlias(auth) {
			return URI{}, fail(ReasonAuthority)
		}
		u.Authority = strings.ToLower(auth)
		if sc.Kind == KindRoot {
			id, ok := p.roots[u.Authority]
			if !ok {
				return URI{}, fail(ReasonUnknownRoot)
			}
			u.RootID = id
		} else if hs := p.hosts[name]; hs != nil && !hs[u.Authority] {
			return URI{}, fail(ReasonUnknownRoot)
		}
	case KindFile:
		if auth != "" && !strings.EqualFold(auth, "localhost") {
			return URI{}, fail(ReasonAuthority)
		}
	case KindHTTPS:
		h, err := canonicalHost(auth)
		if err != nil {
			return URI{}, err
		}
		if hs := p.hosts[name]; hs != nil && !hs[h] {
			return URI{}, fail(ReasonUnknownRoot)
		}
		u.Authority = h
	}
	if sc.Kind == KindHTTPS && path == "" {
		// https://host and https://host/ name the root document.
		u.Canonical = "https://" + u.Authority + "/"
		if u.Query != "" {
			u.Canonical += "?" + u.Query
		}
		return u, nil
	}
	if path == "" {
		return URI{}, fail(ReasonEmptySegment)
	}
	segs, err := p.segments(path, 0)
	if err != nil {
		return URI{}, err
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(name)
	b.WriteString("://")
	b.WriteString(u.Authority)
	b.WriteByte('/')
	b.WriteString(joinEscaped(segs))
	if u.Query != "" {
		b.WriteByte('?')
		b.WriteString(u.Query)
	}
	u.Canonical = b.String()
	if sc.Kind == KindFile {
		r, ok := p.fileRoot(segs)
		if !ok {
			return URI{}, fail(ReasonUnknownRoot)
		}
		u.RootID = r.id
		segs = segs[len(r.segs):]
	}
	u.Segments = segs
	u.RelativePath = strings.Join(segs, "/")
	return u, nil
}

// fileRoot finds the longest configured root that segs lies strictly
// below (a root itself is a directory, not a resource).
func (p *Parser) fileRoot(segs []string) (fileRoot, bool) {
	for _, r := range p.fileRoots {
		if len(r.segs) >= len(segs) {
			continue
		}
		match := true
		for i, s := range r.segs {
			if segs[i] != s {
				match = false
				break
			}
		}
		if match {
			return r, true
		}
	}
	return fileRoot{}, false
}

// rawCheck refuses what no URI of any scheme may hold raw: NUL,
// backslashes, controls, characters outside RFC 3986 (except UTF-8 above
// ASCII, read as an IRI), and invalid UTF-8.
func rawCheck(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			return fail(ReasonNUL)
		case c == '\\':
			return fail(ReasonBackslash)
		case c >= 0x80:
			if !utf8.ValidString(s[i:]) {
				return fail(ReasonSyntax)
			}
			return rawCheckASCII(s[:i], s[i:])
		case !uriChar(c):
			return fail(ReasonSyntax)
		}
	}
	return nil
}

// rawCheckASCII checks the rest of s after the first byte above ASCII,
// whose UTF-8 is known valid.
func rawCheckASCII(_ string, rest string) error {
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == 0:
			return fail(ReasonNUL)
		case c == '\\':
			return fail(ReasonBackslash)
		case c < 0x80 && !uriChar(c):
			return fail(ReasonSyntax)
		}
	}
	return nil
}

// uriChar reports whether an ASCII byte may appear raw in a URI (RFC 3986
// unreserved, reserved and '%').
func uriChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

// segments splits and checks a path (without its leading slash). base is
// the index of the first segment, for errors.
func (p *Parser) segments(path string, base int) ([]string, error) {
	n := strings.Count(path, "/") + 1
	if n > p.maxSegs {
		return nil, fail(ReasonTooLong)
	}
	segs := make([]string, 0, n)
	for i := 0; ; i++ {
		raw, rest, more := strings.Cut(path, "/")
		d, err := p.segment(raw, base+i)
		if err != nil {
			return nil, err
		}
		segs = append(segs, d)
		if !more {
			return segs, nil
		}
		path = rest
	}
}

// segment checks one raw segment and returns it decoded.
func (p *Parser) segment(raw string, i int) (string, error) {
	if raw == "" {
		return "", failAt(ReasonEmptySegment, i)
	}
	if encodedSeparator(raw) {
		return "", failAt(ReasonEncodedSeparator, i)
	}
	d, ok := percentDecode(raw)
	if !ok {
		return "", failAt(ReasonBadEncoding, i)
	}
	if len(d) > p.maxSegLen {
		return "", failAt(ReasonTooLong, i)
	}
	if d == "." || d == ".." {
		return "", failAt(ReasonDotSegment, i)
	}
	if hasEscape(d) {
		return "", failAt(ReasonDoubleEncoding, i)
	}
	for _, r := range d {
		switch {
		case r == '/' || r == '\\':
			return "", failAt(ReasonEncodedSeparator, i)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r):
			return "", failAt(ReasonControl, i)
		case lookalikeSeparator(r):
			return "", failAt(ReasonLookalike, i)
		}
	}
	if !norm.NFC.IsNormalString(d) {
		return "", failAt(ReasonNotNFC, i)
	}
	if k := norm.NFKC.String(d); k == "." || k == ".." || strings.ContainsAny(k, "/\\") {
		return "", failAt(ReasonLookalike, i)
	}
	if last := d[len(d)-1]; last == '.' || last == ' ' {
		return "", failAt(ReasonAmbiguousSegment, i)
	}
	return d, nil
}

// lookalikeSeparator lists characters that are not '/' or '\' under NFKC
// but are drawn like them.
func lookalikeSeparator(r rune) bool {
	switch r {
	case '\u2044', // FRACTION SLASH
		'\u2215',           // DIVISION SLASH
		'\u2216',           // SET MINUS
		'\u29F5',           // REVERSE SOLIDUS OPERATOR
		'\u29F8',           // BIG SOLIDUS
		'\u29F9',           // BIG REVERSE SOLIDUS
		'\u3033', '\u3035', // VERTICAL KANA REPEAT marks drawn as slashes
		'\u27CB', '\u27CD', // MATHEMATICAL RISING / FALLING DIAGONAL
		'\uFE68': // SMALL REVERSE SOLIDUS
		return true
	}
	return false
}

// encodedSeparator reports %2F, %5C or %00 in any letter case.
func encodedSeparator(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		a, b := s[i+1], s[i+2]|0x20
		if a == '2' && b == 'f' || a == '5' && b == 'c' || a == '0' && s[i+2] == '0' {
			return true
		}
	}
	return false
}

// hasEscape reports a %XX escape in a decoded segment.
func hasEscape(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2]) {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// percentDecode decodes %XX escapes (as decodeURIComponent does: every
// '%' must start an escape, and the result must be valid UTF-8).
func percentDecode(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

const upperHex = "0123456789ABCDEF"

// escapeComponent escapes s as encodeURIComponent does.
func escapeComponent(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
}

// joinEscaped joins decoded segments, each escaped.
func joinEscaped(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		escapeComponent(&b, s)
	}
	return b.String()
}

// canonicalHost checks an https authority: no user info, an ASCII host of
// LDH labels or a dotted IPv4 address, an optional port (443 dropped).
func canonicalHost(auth string) (string, error) {
	if auth == "" || strings.ContainsAny(auth, "@[]%") {
		return "", fail(ReasonAuthority)
	}
	host, port, hasPort := strings.Cut(auth, ":")
	host = strings.ToLower(host)
	if len(host) > 253 {
		return "", fail(ReasonAuthority)
	}
	for _, label := range strings.Split(host, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", fail(ReasonAuthority)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", fail(ReasonAuthority)
			}
		}
	}
	if !hasPort {
		return host, nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || port[0] == '0' || port[0] == '+' {
		return "", fail(ReasonAuthority)
	}
	if n == 443 {
		return host, nil
	}
	return host + ":" + port, nil
}

// canonicalQuery checks a query (valid escapes, valid UTF-8, no NUL or
// control characters once decoded) and upper-cases its hex digits.
func canonicalQuery(q string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(q) || !isHex(q[i+1]) || !isHex(q[i+2]) {
			return "", fail(ReasonBadEncoding)
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[unhex(q[i+1])])
		b.WriteByte(upperHex[unhex(q[i+2])])
		i += 2
	}
	d, ok := percentDecode(q)
	if !ok {
		return "", fail(ReasonBadEncoding)
	}
	for _, r := range d {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return "", fail(ReasonControl)
		}
	}
	return b.String(), nil
}
