package scanners

import (
	"regexp"
	"strings"
)

// Reference forms of the generic context rules (rules_context.go): whole
// string, no windows, no resumption. The key-name and value filters
// (keyNameOK, plausibleValue, tokenPlausible, basicCredOK, placeholder) are
// pure functions of the bytes and are shared; everything that finds where a
// key, an operator, a value or a URL part begins and ends is written again
// here.

func init() {
	refFormsMore = append(refFormsMore, refContextForms)
}

var (
	refIdentTail  = regexp.MustCompile(`[A-Za-z0-9_.-]*$`)
	refIdentHead  = regexp.MustCompile(`^[A-Za-z0-9_.-]*`)
	refSpaces     = regexp.MustCompile(`^[ \t]*`)
	refTokenRun   = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]*`)
	refSchemeTail = regexp.MustCompile(`[A-Za-z0-9+.-]*$`)
	refB64Run     = regexp.MustCompile(`^([A-Za-z0-9+/]*)(={0,2})`)
	refSchemeWord = regexp.MustCompile(`^[A-Za-z0-9-]+`)
	refARNAccount = regexp.MustCompile(`^:[0-9]{12}:$`)
)

func refContextForms() map[string][]refForm {
	assign := func(cls assignClass, kws ...string) []refForm {
		return []refForm{{keywords: kws, atKw: func(s string, p, k int) (int, int, ChecksumResult, bool) {
			return refAssign(s, p, k, cls)
		}}}
	}
	return map[string][]refForm{
		"password-assignment":  assign(classPassword, "password", "passwd", "passphrase", "_pwd", "_pass"),
		"secret-assignment":    assign(classSecret, "secret", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key"),
		"token-assignment":     assign(classToken, "token"),
		"key-assignment":       assign(classKey, "key"),
		"bearer-token":         {{keywords: []string{"bearer"}, at: refBearer}},
		"authorization-header": {{keywords: []string{"authorization"}, at: refAuthHeader}},
		"basic-auth":           {{keywords: []string{"basic"}, at: refBasic}},
		"url-credentials":      {{keywords: []string{"://", `:\/\/`}, atKw: refURLCred}},
		"cli-user-password":    {{keywords: []string{" -u ", " --user ", " --user="}, atKw: refCLIUser}},
	}
}

func refAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// refQuote: ", ', ` or \" \' at the start of s; returns the quote byte and
// the length.
func refQuote(s string) (byte, int) {
	if s != "" && strings.IndexByte("\"'`", s[0]) >= 0 {
		return s[0], 1
	}
	if len(s) >= 2 && s[0] == '\\' && (s[1] == '"' || s[1] == '\'') {
		return s[1], 2
	}
	return 0, 0
}

func refAssign(s string, p, k int, cls assignClass) (int, int, ChecksumResult, bool) {
	prefix := refIdentTail.FindString(s[max(0, p-ctxMaxPrefix):p])
	suffix := refIdentHead.FindString(s[p+k:])
	if len(suffix) > ctxMaxSuffix || !nameOK(cls, []byte(prefix), []byte(suffix), []byte(s[p:p+k])) {
		return 0, 0, 0, false
	}
	ns := p - len(prefix)
	if ns > 0 && s[ns-1] == '/' {
		return 0, 0, 0, false
	}
	if ns >= 14 && refARNAccount.MatchString(s[ns-14:ns]) {
		return 0, 0, 0, false
	}
	dollar := ns > 0 && s[ns-1] == '$'
	xml := ns > 0 && s[ns-1] == '<'
	flag := strings.HasPrefix(prefix, "-")
	i := p + k + len(suffix)
	name := prefix + s[p:p+k] + suffix
	weak := bareName([]byte(name), []byte(s[p:p+k]))
	if weak && ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') {
		weak = false // a URL query parameter
	}
	if weak {
		qual, deny := spacedQualifier([]byte(s[max(0, ns-qualMax):ns]), ns-qualMax <= 0)
		if deny {
			return 0, 0, 0, false
		}
		weak = !qual
	}
	if xml {
		if m := refXMLBraced.FindStringSubmatchIndex(s[i:]); m != nil {
			if m[3]-m[2] > ctxMaxValue || m[2]-2 > xmlMaxSpace || m[5]-m[4] > xmlMaxSpace || !bracedPlausible([]byte(s[i+m[2]:i+m[3]]), cls, weak) ||
				cls != classPassword && strings.Contains(s[i+m[2]:i+m[3]], "...") {
				return 0, 0, 0, false
			}
			return i + m[2], i + m[3], ChecksumNone, true
		}
		if refXMLBrace.MatchString(s[i:]) {
			return 0, 0, 0, false // braced but not closed on the line: no value
		}
		m := refXML.FindStringSubmatchIndex(s[i:])
		if m == nil || m[3]-m[2] > ctxMaxValue || m[2]-1 > xmlMaxSpace || m[5]-m[4] > xmlMaxSpace {
			return 0, 0, 0, false
		}
		a, e := i+m[2], i+m[3]
		if !plausibleValue([]byte(s[a:e]), false, cls, weak) || cls != classPassword && strings.Contains(s[a:e], "...") {
			return 0, 0, 0, false
		}
		return a, e, ChecksumNone, true
	}
	_, kq := refQuote(s[i:])
	i += kq
	sub := kq > 0 && strings.HasPrefix(s[i:], "]")
	if sub {
		i++
	}
	if kq == 0 {
		if m := refTypeAnn.FindStringSubmatch(s[i:]); m != nil && len(m[1]) <= ctxMaxSpace && len(m[3]) <= ctxMaxSpace {
			if strings.HasPrefix(s[i:], ":") {
				i++
			}
			i += len(m[1]) + len(m[2]) + len(m[3])
		}
	}
	sp := len(refSpaces.FindString(s[i:]))
	if sp > ctxMaxSpace || dollar && (kq > 0 || flag) {
		return 0, 0, 0, false
	}
	i += sp
	rest := s[i:]
	needQuote := false
	op := ""
	for _, o := range []string{":::=", "::=", "?=", "+=", ".=", ":=", "=>", "==", "!=", "=", ":"} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if dollar && op != "=" && op != ".=" && op != "+=" {
		op = ""
	}
	if sub && (op == "" || op[0] == ':') {
		return 0, 0, 0, false
	}
	switch {
	case op == ":" && strings.Contains(name, ".") && kq == 0 && sp == 0 && len(rest) > 1 && !strings.ContainsRune(" \t\"'`", rune(rest[1])):
		return 0, 0, 0, false
	case op != "":
		i += len(op)
	case kq > 0 && strings.HasPrefix(rest, ","):
		i++
		needQuote = true
	case kq == 0 && sp > 0 && strings.HasPrefix(rest, "- "):
		i++
		needQuote = true
	case kq > 0 && strings.HasPrefix(rest, "value="):
		i += 6
		needQuote = true
	case flag && sp > 0:
	default:
		return 0, 0, 0, false
	}
	sp = len(refSpaces.FindString(s[i:]))
	if sp > ctxMaxSpace {
		return 0, 0, 0, false
	}
	i += sp
	if op != "" {
		if m := refNextLine.FindString(s[i:]); m != "" {
			if q, _ := refQuote(s[i+len(m):]); q != 0 {
				i += len(m)
			}
		}
	}
	q, n := refQuote(s[i:])
	if needQuote && q == 0 {
		return 0, 0, 0, false
	}
	i += n
	var a, e int
	if q != 0 {
		j := strings.IndexFunc(s[i:], func(r rune) bool {
			return r < 0x20 || r == 0x7f || r == rune(q) || n == 2 && r == '\\'
		})
		// IndexFunc decodes runes; every byte that ends the value is ASCII,
		// and invalid bytes decode as U+FFFD, which does not end it.
		// A carriage return right before the closing quote ends the value.
		cr := j > 0 && j <= ctxMaxValue && n == 1 && s[i+j] == '\r' && i+j+1 < len(s) && s[i+j+1] == q
		if !cr {
			if j < 0 || j == 0 || j > ctxMaxValue {
				return 0, 0, 0, false
			}
			c := s[i+j]
			if c < 0x20 || c == 0x7f {
				return 0, 0, 0, false
			}
			if n == 2 && c == '\\' && !strings.HasPrefix(s[i+j:], "\\"+string(q)) {
				return 0, 0, 0, false
			}
		}
		a, e = i, i+j
	} else {
		j := strings.IndexFunc(s[i:], func(r rune) bool {
			return r <= 0x20 || r == 0x7f || strings.ContainsRune("\"'`,;&)]}<>\\", r)
		})
		if j < 0 {
			j = len(s) - i
		}
		if j > ctxMaxValue {
			return 0, 0, 0, false
		}
		v := strings.TrimRight(s[i:i+j], ".:")
		if v == "" {
			return 0, 0, 0, false
		}
		a, e = i, i+len(v)
	}
	if q == '`' && strings.Contains(s[a:e], " ") {
		return 0, 0, 0, false
	}
	if cls != classPassword && (strings.Contains(s[a:e], "...") || strings.HasPrefix(s[e:], "...")) {
		return 0, 0, 0, false // elided
	}
	if q != 0 && cls != classPassword && strings.Contains(s[a:e], " ") {
		if !bracedPlausible([]byte(s[a:e]), cls, weak) {
			return 0, 0, 0, false
		}
	} else if !plausibleValue([]byte(s[a:e]), q != 0, cls, weak) {
		return 0, 0, 0, false
	}
	return a, e, ChecksumNone, true
}

var (
	// refXML: '>' whitespace (or its JSON escapes) value whitespace "</".
	refXML = regexp.MustCompile(`^>(?:[\t\n\f\r ]|\\[ntr])*([^<\\\t\n\f\r ]+)((?:[\t\n\f\r ]|\\[ntr])*)</`)
	// refXMLBraced: '>' whitespace '{' content '}' whitespace "</".
	refXMLBraced = regexp.MustCompile(`^>(?:[\t\n\f\r ]|\\[ntr])*\{([^}<\n]+)\}((?:[\t\n\f\r ]|\\[ntr])*)</`)
	refXMLBrace  = regexp.MustCompile(`^>(?:[\t\n\f\r ]|\\[ntr])*\{`)
	// refNextLine: a line feed or its \n escape and the next line's indent.
	refNextLine = regexp.MustCompile(`^(?:\n|\\n)[ \t]{0,16}`)
	// refTypeAnn: [:] spaces type spaces = (not ==).
	refTypeAnn = regexp.MustCompile(`^:?([ \t]+)(string|String|str|&str|&'static str|\[\]byte|std::string)([ \t]*)=(?:[^=]|$)`)
)

// refSchemeCred: after the keyword at p (length k), spaces (1..8), a token
// run (at most ctxMaxToken) that passes tokenPlausible.
func refBearer(s string, p int) (int, int, ChecksumResult, bool) {
	if p > 0 && refAlnum(s[p-1]) {
		return 0, 0, 0, false
	}
	i := p + len("bearer")
	sp := len(refSpaces.FindString(s[i:]))
	if sp == 0 || sp > ctxMaxSpace {
		return 0, 0, 0, false
	}
	i += sp
	tok := refTokenRun.FindString(s[i:])
	if len(tok) > ctxMaxToken || !tokenPlausible([]byte(tok)) {
		return 0, 0, 0, false
	}
	return i, i + len(tok), ChecksumNone, true
}

func refAuthHeader(s string, p int) (int, int, ChecksumResult, bool) {
	if p > 0 && refAlnum(s[p-1]) {
		return 0, 0, 0, false
	}
	i := p + len("authorization")
	_, n := refQuote(s[i:])
	i += n
	sp := len(refSpaces.FindString(s[i:]))
	if sp > ctxMaxSpace || i+sp >= len(s) || s[i+sp] != ':' && s[i+sp] != '=' {
		return 0, 0, 0, false
	}
	i += sp + 1
	sp = len(refSpaces.FindString(s[i:]))
	if sp > ctxMaxSpace {
		return 0, 0, 0, false
	}
	i += sp
	_, n = refQuote(s[i:])
	i += n
	if w := refSchemeWord.FindString(s[i:]); w != "" && len(w) <= 24 && i+len(w) < len(s) && (s[i+len(w)] == ' ' || s[i+len(w)] == '\t') {
		switch strings.ToLower(w) {
		case "basic", "bearer", "digest", "aws4-hmac-sha256", "negotiate", "ntlm":
			return 0, 0, 0, false
		}
		sp = len(refSpaces.FindString(s[i+len(w):]))
		if sp > ctxMaxSpace {
			return 0, 0, 0, false
		}
		i += len(w) + sp
	}
	tok := refTokenRun.FindString(s[i:])
	e := i + len(tok)
	if len(tok) > ctxMaxToken || e < len(s) && !(s[e] <= 0x20 || s[e] == 0x7f || strings.IndexByte("\"'`,;&)]}<>\\", s[e]) >= 0) {
		return 0, 0, 0, false
	}
	if !tokenPlausible([]byte(tok)) {
		return 0, 0, 0, false
	}
	return i, e, ChecksumNone, true
}

func refBasic(s string, p int) (int, int, ChecksumResult, bool) {
	if p > 0 && refAlnum(s[p-1]) {
		return 0, 0, 0, false
	}
	i := p + len("basic")
	sp := len(refSpaces.FindString(s[i:]))
	if sp == 0 || sp > ctxMaxSpace {
		return 0, 0, 0, false
	}
	i += sp
	m := refB64Run.FindStringSubmatch(s[i:])
	body, pad := m[1], m[2]
	e := i + len(body) + len(pad)
	if len(body) < 8 || len(body) > 1024 || e < len(s) && refB64Pad.MatchString(s[e:e+1]) {
		return 0, 0, 0, false
	}
	if !basicCredOK([]byte(body)) {
		return 0, 0, 0, false
	}
	return i, e, ChecksumNone, true
}

func refURLCred(s string, p, k int) (int, int, ChecksumResult, bool) {
	scheme := refSchemeTail.FindString(s[:p])
	if scheme == "" || len(scheme) > urlMaxScheme || !refAlnum(scheme[0]) || '0' <= scheme[0] && scheme[0] <= '9' {
		return 0, 0, 0, false
	}
	i := p + k
	user := strings.IndexFunc(s[i:], func(r rune) bool { return !refURLUserRune(r) })
	if user < 0 || user > urlMaxUser || s[i+user] != ':' {
		return 0, 0, 0, false
	}
	ps := i + user + 1
	run := strings.IndexFunc(s[ps:], func(r rune) bool { return !refURLUserRune(r) && r != ':' && r != '@' })
	if run < 0 {
		run = len(s) - ps
	}
	if run > urlMaxPass {
		return 0, 0, 0, false
	}
	at := strings.LastIndexByte(s[ps:ps+run], '@')
	if at < 0 {
		return 0, 0, 0, false
	}
	pass := s[ps : ps+at]
	if len(pass) < 3 || placeholder([]byte(pass)) {
		return 0, 0, 0, false
	}
	for _, w := range []string{"password", "pass", "passwd", "pwd", "pw", "secret", "user", "username", "changeme"} {
		if strings.EqualFold(pass, w) {
			return 0, 0, 0, false
		}
	}
	return ps, ps + at, ChecksumNone, true
}

func refURLUserRune(r rune) bool {
	return r < 0x80 && (refAlnum(byte(r)) || strings.ContainsRune("-._~!$&'()*+,;=%", r))
}

// refCLIUserByte: a byte of a -u user (printable, no space, quote, colon,
// apostrophe or bracket).
func refCLIUserByte(c byte) bool {
	return c > ' ' && c < 0x7f && !strings.ContainsRune("\"'`:[]", rune(c))
}

func refCLIUser(s string, p, k int) (int, int, ChecksumResult, bool) {
	i := p + k
	if s[i-1] == ' ' {
		sp := len(refSpaces.FindString(s[i:]))
		if sp > ctxMaxSpace {
			return 0, 0, 0, false
		}
		i += sp
	}
	q, n := refQuote(s[i:])
	i += n
	u := i
	for i < len(s) && refCLIUserByte(s[i]) && !(n == 2 && s[i] == '\\') {
		i++
	}
	user := s[u:i]
	if user == "" && q == 0 || len(user) > cliMaxUser || i >= len(s) || s[i] != ':' {
		return 0, 0, 0, false
	}
	a := i + 1
	cq, cn := q, n
	if q == 0 {
		cq, cn = refQuote(s[a:])
		a += cn
	}
	e := a
	for e < len(s) && s[e] > ' ' && s[e] != 0x7f && !strings.ContainsRune("\"'`[]", rune(s[e])) && !(cn == 2 && s[e] == '\\') {
		e++
	}
	closed := cq == 0 || cn == 1 && strings.HasPrefix(s[e:], string(cq)) || cn == 2 && strings.HasPrefix(s[e:], "\\"+string(cq))
	if a == e {
		if q == 0 || !closed || user == "" ||
			!(refUpper.MatchString(user) && refLower.MatchString(user) && refDigit.MatchString(user)) || user[0] == '$' || user[0] == '<' ||
			!plausibleValue([]byte(user), true, classSecret, false) {
			return 0, 0, 0, false
		}
		return u, i, ChecksumNone, true
	}
	if e-a > cliMaxPass || !closed {
		return 0, 0, 0, false
	}
	pass := s[a:e]
	for _, w := range []string{"password", "pass", "passwd", "pwd", "pw", "secret", "user", "username", "changeme"} {
		if strings.EqualFold(pass, w) {
			return 0, 0, 0, false
		}
	}
	if !plausibleValue([]byte(pass), cq != 0, classPassword, false) || user != "" && (user[0] == '$' || user[0] == '<') {
		return 0, 0, 0, false
	}
	return a, e, ChecksumNone, true
}
