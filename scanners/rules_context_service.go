package scanners

import "bytes"

// The service-credential rule: a random value in single quotes right after a
// service's name, with or without an operator (mailgun '…', kanban '…',
// railway = '…'), as trufflehog's examples and hand-written notes and logs
// set a vendor's key that has no format of its own. The name is any word
// (the vendors are too many to list), so the value alone must read as a
// credential, more strictly than after a key name: no space, 12 to
// ctxMaxValue bytes, letters and at least two digits, the filters of a named
// token (plausibleValue), no hex digest or UUID (commits, request ids), no
// word of five or more letters in it (a file or branch name such as
// report2024final), and no path or dotted name. Prose ("mailgun is a
// service", "the 'main' branch") and quoted words are left alone.

// Limits of the service-credential rule.
const (
	svcMinValue = 12 // shortest value
	svcMinName  = 3  // shortest service name
	svcMaxName  = 24 // longest service name
	svcMaxWord  = 4  // longest run of lower-case letters (after an optional capital) that may read as a word
)

// svcNotBefore: the bytes that may not end a service name and its
// operator before the space of " '" (all but a letter, a digit, '=' and
// ':'); svcKeywords holds " '" after every other byte.
var svcNotBefore = func() *byteSet {
	var s byteSet
	for i := range s {
		c := byte(i)
		s[i] = !(setAlnum[c] || c == '=' || c == ':')
	}
	return &s
}()

// svcNameStart: the bytes that may come right before a service name.
var svcNameStart = makeSet("\t\n\f\r ,;([{\"'`\\")

// svcStop are words before a quoted value that are no service's name:
// articles, verbs and words of code and of logs that quote a name, a path
// or a revision.
var svcStop = []string{
	"the", "this", "that", "these", "those", "your", "our", "their", "his", "her", "its", "any", "each", "every",
	"and", "not", "for", "with", "from", "into", "was", "were", "has", "have", "had", "are", "but", "got", "get",
	"set", "use", "using", "used", "let", "var", "val", "const", "def", "dim", "echo", "print", "printf", "puts",
	"return", "raise", "throw", "grep", "sed", "awk", "cat", "git", "run", "exec", "eval", "import", "require",
	"include", "select", "where", "like", "file", "path", "dir", "folder", "branch", "tag", "commit", "ref",
	"revision", "image", "named", "called", "value", "key", "token", "secret", "password", "user", "host",
	"table", "column", "field", "type", "class", "module", "package", "function", "method", "version", "hash",
	"digest", "checksum", "request", "trace", "span", "say", "says", "said", "see", "option", "flag", "arg",
	"string", "str", "char", "text", "word", "name", "label", "title", "id", "uuid", "sha",
}

// serviceRules is the service-credential rule.
func serviceRules() []ruleDef {
	mixed := func(n int, seed uint32) string {
		return fakeChars(base62Alphabet, n-2, seed) + "7" + fakeChars("0123456789", 1, seed+1)
	}
	lowDig := func(n int, seed uint32) string {
		return fakeChars("bcdfghjklmnpqrstvwxz0123456789", n-3, seed) + "9a4"
	}
	return []ruleDef{{
		id: "service-credential", provider: "generic", kind: KindSecret, confidence: "low",
		desc:  "a random value in single quotes right after a word, with or without = or : (mailgun '…', railway = '…'): 12 or more bytes of letters and two or more digits, no space, word, hex digest, UUID or path; the value is replaced",
		forms: []form{serviceForm()},
		examples: func() (tp, fp []string) {
			tp = []string{
				"mailgun '" + mixed(40, 1) + "'",
				"config loaded: kanban '" + mixed(12, 3) + "' kanban 'acme.io'",
				"railway = '" + mixed(36, 5) + "'",
				"mattermost '" + lowDig(26, 7) + "'",
				`{"content": "vouchery '` + lowDig(36, 9) + `'\nother '` + "x" + `'"}`,
				`\nkeenio '` + mixed(64, 11) + `'`,
			}
			fp = []string{
				"mailgun is a service",
				"the '" + mixed(24, 13) + "'",
				"file 'report2024final'",
				"branch 'feature-1234-login-page'",
				"commit '" + fakeChars("0123456789abcdef", 40, 15) + "'",
				"request '" + fakeUUID(17) + "'",
				"svc 'abcdefgh'",
				"svc '" + fakeChars(base62Alphabet, 20, 19) + " x'",
				"svc 'config/" + mixed(20, 21) + ".yaml'",
				"x.svc '" + mixed(24, 23) + "'",
				"svc 'SomeLongerIdentifier'",
			}
			return
		},
	}}
}

// svcKeywords: the keyword " '" after each byte that may end a service
// name or its operator (a letter, a digit, '=' or ':'; the automaton folds
// case, so the lower-case letters stand for both). " '" alone, rejected
// after any other byte, stopped the automaton at every ", '" and "(['" of
// code (Code/1MiB of BenchmarkSanitize: about 2,400 hits a MiB, none a
// candidate); with the byte before the space in the keyword those bytes
// never stop it.
var svcKeywords = func() []string {
	var kws []string
	for c := byte(0); c < 0x80; c++ {
		if (setAlnum[c] || c == '=' || c == ':') && !('A' <= c && c <= 'Z') {
			kws = append(kws, string([]byte{c, ' ', '\''}))
		}
	}
	return kws
}()

// serviceForm: keyword " '" after a letter, a digit, '=' or ':'
// (svcKeywords, so svcNotBefore needs no check: the quote alone as the
// keyword would stop the automaton at every quote of code and of decoded
// text, which costs more); after it a
// value of printable ASCII other than space and ' up to a closing ', at most
// ctxMaxValue; before it an optional operator (one or two of = and :, then
// at most ctxMaxSpace spaces or tabs back to the name), and a name of
// svcMinName..svcMaxName letters and digits that starts with a letter, holds
// at least three letters, is not one of svcStop, and starts the text or
// follows a byte of svcNameStart or a JSON escape \n \t \r (whose letter
// is not part of the name). The value must pass serviceValue.
func serviceForm() form {
	return form{
		keywords: svcKeywords,
		back:     2 + svcMaxName + 2 + ctxMaxSpace,
		ahead:    3 + ctxMaxValue + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			ks++ // the space: the keyword's first byte ends the name or operator
			if svcNotBefore[d[ks-1]] {
				return noMatch
			}
			i := ke
			for i < len(d) && i-ke <= ctxMaxValue && d[i] > ' ' && d[i] < 0x7f && d[i] != '\'' {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i >= len(d) || d[i] != '\'' || i-ke > ctxMaxValue || i-ke < svcMinValue {
				return noMatch
			}
			if !serviceName(d, ks, v.base == 0) || !serviceValue(d[ke:i]) {
				return noMatch
			}
			return result{status: resMatch, start: ke, end: i}
		},
	}
}

// serviceName reads back from the space at ks: an optional operator and
// spaces, then the name; it applies the rules of serviceForm. whole says
// d starts where the text does.
func serviceName(d []byte, ks int, whole bool) bool {
	j := ks
	if d[j-1] == '=' || d[j-1] == ':' {
		j--
		if j > 0 && (d[j-1] == '=' || d[j-1] == ':') {
			j--
		}
		s := j
		for j > 0 && s-j < ctxMaxSpace && setCtxSpace[d[j-1]] {
			j--
		}
	}
	e := j
	for j > 0 && e-j <= svcMaxName+1 && setAlnum[d[j-1]] {
		j--
	}
	// A JSON escape's letter before the name is not part of it.
	esc := j > 0 && d[j-1] == '\\' && e-j > 1 && (d[j] == 'n' || d[j] == 't' || d[j] == 'r')
	if esc {
		j++
	}
	name := d[j:e]
	if len(name) < svcMinName || len(name) > svcMaxName || !setLetters[name[0]] {
		return false
	}
	switch {
	case esc:
	case j == 0:
		if !whole {
			return false
		}
	case !svcNameStart[d[j-1]]:
		return false
	}
	letters := 0
	for _, c := range name {
		if setLetters[c] {
			letters++
		}
	}
	if letters < 3 {
		return false
	}
	for _, w := range svcStop {
		if bytes.EqualFold(name, []byte(w)) {
			return false
		}
	}
	return true
}

// serviceValue: the value filters of the service-credential rule (see the
// top of this file).
func serviceValue(b []byte) bool {
	if !plausibleValue(b, true, classToken, false) || uuidLike(b) || hexLike(b) {
		return false
	}
	digits, letters := 0, 0
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case setLetters[c]:
			letters++
		case c == '/' || c == '.' || c == '\\':
			return false // a path, a file or a dotted name
		}
	}
	return digits >= 2 && letters >= 4 && !hasWord(b)
}

// hasWord reports a run of lower-case letters, after an optional capital,
// longer than svcMaxWord that holds two vowels or more and no four
// consonants in a row: a word in a name (report2024final, feature-login),
// which random strings rarely hold (their letter runs are short, or, when
// long, hold consonant clusters no word has).
func hasWord(b []byte) bool {
	for i := 0; i < len(b); {
		j := i
		if 'A' <= b[j] && b[j] <= 'Z' {
			j++
		}
		k := j
		vowels, cons, maxCons := 0, 0, 0
		for k < len(b) && 'a' <= b[k] && b[k] <= 'z' {
			switch b[k] {
			case 'a', 'e', 'i', 'o', 'u':
				vowels++
				cons = 0
			default:
				cons++
				maxCons = max(maxCons, cons)
			}
			k++
		}
		if k-i > svcMaxWord && vowels >= 2 && maxCons < 4 {
			return true
		}
		if k == i {
			k++
		}
		i = k
	}
	return false
}
