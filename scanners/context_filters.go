package scanners

import (
	"bytes"
	"math"
)

// Value filters shared by the context rules: what is a placeholder, code,
// a word, a number, a date, a sequence, a hash; see rules_context.go.

// placeholder: template syntax, references, masks and well-known filler.
func placeholder(b []byte) bool {
	if hasPlaceholderWord(b) {
		return true
	}
	n := len(b)
	switch {
	case b[0] == '<' && b[n-1] == '>', b[0] == '[' && b[n-1] == ']', b[0] == '(' && b[n-1] == ')':
		return true
	case b[0] == '%' && b[n-1] == '%' && n > 2 && isIdent(b[1:n-1]):
		return true
	case b[0] == '$' && (n > 1 && b[1] == '(' || isIdent(b[1:]) || varPath(b[1:])):
		return true
	case b[0] == '{' && (b[n-1] == '}' && n > 2 && isIdent(b[1:n-1]) || isIdent(b[1:])):
		return true // a template reference: {SumoAccessKey} (unquoted, the value stops before the '}')
	case n == 2 && b[0] == '%':
		return true
	}
	mask := true
	for _, c := range b {
		if !setMask[c] && c != 0xE2 && c != 0x80 && c != 0xA2 { // • is E2 80 A2
			mask = false
			break
		}
	}
	return mask
}

// varPath: after a '$', a variable that a path or URL is built on:
// IDENT/… or {IDENT}/… ($REACT_APP_BASE_URL/classroom/#/forgot_password,
// ${HOME}/.config/app).
func varPath(b []byte) bool {
	brace := len(b) > 0 && b[0] == '{'
	if brace {
		b = b[1:]
	}
	i := 0
	for i < len(b) && (setWord[b[i]]) {
		i++
	}
	if i == 0 || !isIdent(b[:i]) {
		return false
	}
	if brace {
		if i == len(b) || b[i] != '}' {
			return false
		}
		i++
	}
	return i < len(b) && b[i] == '/'
}

// isIdent: [A-Za-z_][A-Za-z0-9_]*.
func isIdent(b []byte) bool {
	if len(b) == 0 || !(setLetters[b[0]] || b[0] == '_') {
		return false
	}
	for _, c := range b {
		if !setWord[c] {
			return false
		}
	}
	return true
}

// codeRef: a value that starts with a lookup of the real secret, an
// identifier path followed by '[' or '(' (os.environ["X"], os.getenv("X"),
// ENV["X"], config.get("x")): a dotted path, or one of a few lookup names.
func codeRef(b []byte) bool {
	i, seg, dots := 0, 0, 0
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case setLetters[c] || c == '_' || c == '$' || seg > 0 && '0' <= c && c <= '9':
			seg++
			if seg > ctxMaxSegment {
				return false
			}
			continue
		case c == '.' && seg > 0:
			seg = 0
			dots++
			continue
		}
		break
	}
	if i == len(b) || seg == 0 || b[i] != '[' && b[i] != '(' {
		return false
	}
	if dots > 0 {
		return true
	}
	switch string(bytes.ToLower(b[:i])) {
	case "env", "getenv", "environ", "lookup", "secret", "secrets", "vault", "var", "get", "fetch":
		return true
	}
	return false
}

// ctxMaxSegment is the longest segment of a dotted identifier path taken
// for code; longer ones are random (pat12345.<64 hex>), unless they are a
// snake_case name (longSnakeName).
const ctxMaxSegment = 24

// longSnakeName: a name of words joined by '_', in one letter case
// (REACT_APP_FIREBASE_DEV_PASSWORD, default_storage_bucket_name), each word
// at most ctxMaxSegment bytes: an environment variable's or a setting's
// name, however long, not a random string.
func longSnakeName(b []byte) bool {
	upper, lower, word, parts := false, false, 0, 1
	for _, c := range b {
		switch {
		case c == '_':
			if word == 0 {
				return false
			}
			word = 0
			parts++
			continue
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
		default:
			return false
		}
		if word++; word > ctxMaxSegment {
			return false
		}
	}
	return parts >= 2 && word > 0 && upper != lower
}

// codeLike: an unquoted value that is an expression (a call or an index) or
// a dotted path of identifiers (self.password, process.env.TOKEN), also as
// the left operand of a logical operator (n.password||"", minified
// JavaScript: ||, &&, ?? end the value), unless the path reads as a random
// string (randomMixed: a password with a dot).
func codeLike(b []byte) bool {
	if bytes.IndexByte(b, '(') >= 0 || bytes.IndexByte(b, '[') >= 0 {
		return true
	}
	if n := len(b); n > 2 && b[n-1] == b[n-2] && (b[n-1] == '|' || b[n-1] == '&' || b[n-1] == '?') {
		b = b[:n-2]
	}
	dots := 0
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != '.' {
			continue
		}
		if !isIdent(b[start:i]) || i-start > ctxMaxSegment && !longSnakeName(b[start:i]) {
			return false
		}
		if i < len(b) {
			dots++
		}
		start = i + 1
	}
	return dots > 0 && !randomMixed(b)
}

// randomMixed: at least 12 letters and digits (other bytes are skipped)
// holding upper case, lower case and digits, whose class changes between
// neighbours at half of them or more. A random base62 string changes class
// at about 60% of its characters, a camelCase identifier path at about a
// third (cfg.Auth0ClientSecret: 7 of 20).
func randomMixed(b []byte) bool {
	n, changes := 0, 0
	var prev byte
	var u, l, d bool
	for _, c := range b {
		var cl byte
		switch {
		case 'A' <= c && c <= 'Z':
			cl, u = 1, true
		case 'a' <= c && c <= 'z':
			cl, l = 2, true
		case '0' <= c && c <= '9':
			cl, d = 3, true
		default:
			continue
		}
		if prev != 0 && cl != prev {
			changes++
		}
		prev = cl
		n++
	}
	return n >= 12 && u && l && d && 2*changes >= n
}

// wordLike: letters only (spaces allowed between words).
func wordLike(b []byte) bool {
	for _, c := range b {
		if !setLetters[c] && c != ' ' {
			return false
		}
	}
	return true
}

// timestampLike: an ISO 8601 / RFC 3339 date or date-time, such as
// 2025-06-01, 2025-06-01T12:30:00Z, 2025-06-01 12:30:00.123+02:00 (a
// "refreshTokenExpiresAt" or "lastToken" member holds one, not a secret).
func timestampLike(b []byte) bool {
	digits := func(i, n int) bool {
		if i+n > len(b) {
			return false
		}
		for j := i; j < i+n; j++ {
			if b[j] < '0' || b[j] > '9' {
				return false
			}
		}
		return true
	}
	if !digits(0, 4) || len(b) < 10 || b[4] != '-' || !digits(5, 2) || b[7] != '-' || !digits(8, 2) {
		return false
	}
	i := 10
	if i == len(b) {
		return true
	}
	if b[i] != 'T' && b[i] != 't' && b[i] != ' ' || !digits(i+1, 2) || i+3 >= len(b) || b[i+3] != ':' || !digits(i+4, 2) {
		return false
	}
	i += 6
	if i < len(b) && b[i] == ':' {
		if !digits(i+1, 2) {
			return false
		}
		i += 3
		if i < len(b) && (b[i] == '.' || b[i] == ',') {
			j := i + 1
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
	}
	switch {
	case i == len(b):
		return true
	case b[i] == 'Z' || b[i] == 'z':
		return i+1 == len(b)
	case b[i] == '+' || b[i] == '-':
		if !digits(i+1, 2) {
			return false
		}
		i += 3
		if i < len(b) && b[i] == ':' {
			i++
		}
		return i == len(b) || digits(i, 2) && i+2 == len(b)
	}
	return false
}

// numberLike: an optionally signed integer or decimal.
func numberLike(b []byte) bool {
	i := 0
	if b[0] == '-' || b[0] == '+' {
		i++
	}
	digits, dots := 0, 0
	for ; i < len(b); i++ {
		switch {
		case '0' <= b[i] && b[i] <= '9':
			digits++
		case b[i] == '.' && dots == 0:
			dots++
		default:
			return false
		}
	}
	return digits > 0
}

// sequenceLike: at least two thirds of the neighbouring byte pairs repeat or
// step by one (aaaa, abcdef, 123456, abc123).
func sequenceLike(b []byte) bool {
	if len(b) < 2 {
		return true
	}
	n := 0
	for i := 1; i < len(b); i++ {
		if d := int(b[i]) - int(b[i-1]); d >= -1 && d <= 1 {
			n++
		}
	}
	return 3*n >= 2*(len(b)-1)
}

// entropy returns the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	var counts [256]uint16
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, k := range counts {
		if k != 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// uuidLike: 8-4-4-4-12 hex digits.
func uuidLike(b []byte) bool {
	if len(b) != 36 {
		return false
	}
	for i, c := range b {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !setHex[c] {
			return false
		}
	}
	return true
}

// hexLike: 32, 40 or 64 hex digits (MD5, SHA-1 / git, SHA-256 hashes).
func hexLike(b []byte) bool {
	if len(b) != 32 && len(b) != 40 && len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !setHex[c] {
			return false
		}
	}
	return true
}

var setHex = makeSet("0-9a-fA-F")

// containsFold reports whether b contains the lower-case ASCII w, ignoring
// ASCII case.
func containsFold(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		j := 0
		for j < len(w) && lowerASCII(b[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}
