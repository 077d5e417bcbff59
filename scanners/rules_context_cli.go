package scanners

import "bytes"

// Passwords where a command line or a credentials file puts them without an
// assignment: mysql's glued -pPASSWORD, psexec's -p PASSWORD, net use's
// positional password, a .netrc entry and a .pgpass line. Each form parses
// the syntax of its tool from a keyword and replaces only the password.

// cliLineMax bounds how far along one command line the CLI forms read.
const cliLineMax = 512

// cliRules are cli-password-flag, netrc-password and pgpass-entry.
func cliRules() []ruleDef {
	pw := base62Alphabet + "!@%^*+=-_"
	mixed := func(n int, seed uint32) string { return fakeChars(pw, n-2, seed) + "7!" }
	return []ruleDef{
		{
			id: "cli-password-flag", provider: "generic", kind: KindSecret, confidence: "medium",
			desc:  "password on a command line: mysql, mariadb, mysqldump, mysqladmin -pPASSWORD (glued), psexec -p PASSWORD or -pPASSWORD, net use … PASSWORD /user:…; the password is replaced",
			forms: []form{cliPasswordForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"mysql -u root -p" + mixed(14, 1) + " -h db.internal",
					"mysqldump -uadmin -p'" + mixed(12, 2) + "' shop > shop.sql",
					"psexec \\\\srv01 -u CORP\\admin -p " + mixed(12, 3) + " cmd.exe",
					"PsExec.exe \\\\10.1.2.3 -u Administrator -p" + mixed(16, 7) + " -i cmd",
					"net use \\\\srv01\\share " + mixed(20, 4) + " /user:CORP\\admin",
					"NET USE Z: \\\\files\\c$ /user:admin " + mixed(20, 5),
					"mariadb --host=db -p" + mixed(16, 6),
				}
				fp = []string{
					"mysql -u root -p shop",
					"mysql -u root -p",
					"mysql -p$MYSQL_PWD -h db",
					"psexec \\\\srv01 -s -i cmd.exe",
					"net use Z: \\\\files\\share /persistent:yes",
					"net use \\\\srv01\\share * /user:admin",
					"the mysql -p flag prompts for a password",
					"mysql -uroot -p<password>",
				}
				return
			},
		},
		{
			id: "netrc-password", provider: "generic", kind: KindSecret, confidence: "high",
			desc:  ".netrc entry (machine HOST login USER password PASSWORD, on one line or several); the password is replaced",
			forms: []form{netrcForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"machine api.example.com login alice password " + mixed(20, 1),
					"machine github.com\n  login deploy\n  password " + fakeChars(base62Alphabet, 40, 2) + "\n",
					"cat ~/.netrc\nmachine ftp.example.org login anonymous password " + mixed(20, 3) + " account x",
				}
				fp = []string{
					"machine api.example.com login alice",
					"the machine learning password reset flow",
					"machine x login y password $NETRC_PASSWORD",
					"machine example.com login user password changeme",
				}
				return
			},
		},
		{
			id: "pgpass-entry", provider: "PostgreSQL", kind: KindSecret, confidence: "high",
			desc:  ".pgpass line (host:port:database:user:password with port 5432, 6432 or *); the password is replaced",
			forms: []form{pgpassForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"db.example.com:5432:app:appuser:" + mixed(12, 1),
					"$ cat ~/.pgpass\nlocalhost:5432:*:postgres:" + mixed(14, 2) + "\n*:*:*:replicator:" + mixed(16, 3),
					"  10.0.0.5:6432:billing:svc:" + mixed(10, 4),
				}
				fp = []string{
					"listening on 0.0.0.0:5432:",
					"postgres:5432:db:user",
					"db.example.com:5432:app:appuser:*",
					"at 12:30:*: ok",
					"host:5432:app:user:$PGPASS",
				}
				return
			},
		},
	}
}

// cliValue reads a shell word at d[i]: a quoted string to its closing quote
// on the line (then the quotes are not part of it), or a run of bytes other
// than whitespace, quotes, ';', '|', '&', '<', '>' and '`'. ok is false when
// the word is empty or unterminated within the line.
func cliValue(d []byte, i int) (start, end int, ok bool) {
	if i >= len(d) {
		return 0, 0, false
	}
	if q := d[i]; q == '\'' || q == '"' {
		j := i + 1
		for j < len(d) && d[j] != q && d[j] != '\n' && j-i < cliLineMax {
			j++
		}
		if j >= len(d) || d[j] != q || j == i+1 {
			return 0, 0, false
		}
		return i + 1, j, true
	}
	j := i
	for j < len(d) && !cliStop[d[j]] && escSpace(d, j) == 0 && j-i < cliLineMax {
		j++
	}
	return i, j, j > i
}

// escSpace returns the length of the whitespace at d[i]: 1 for a space,
// tab or line break, 2 for its JSON escape (\n, \r, \t: text read from a
// JSON document as is), else 0.
func escSpace(d []byte, i int) int {
	switch d[i] {
	case ' ', '\t', '\n', '\r', '\f':
		return 1
	case '\\':
		if i+1 < len(d) && (d[i+1] == 'n' || d[i+1] == 'r' || d[i+1] == 't') {
			return 2
		}
	}
	return 0
}

// cliStop ends an unquoted shell word.
var cliStop = makeSet("\t\n\r \"'`;|&<>")

// cliPasswordOK: the password is not a reference, a mask or a placeholder
// (placeholder: $VAR, %VAR%, <password>), and not '*' (net use's prompt).
func cliPasswordOK(b []byte) bool {
	return len(b) > 0 && !placeholder(b) && b[0] != '$' && !bytes.Equal(b, []byte("*"))
}

// cliLineEnd returns the end of the command line that starts at i: a line
// break, or cliLineMax bytes on.
func cliLineEnd(d []byte, i int) int {
	e := min(len(d), i+cliLineMax)
	for j := i; j < e; j++ {
		if d[j] == '\n' || d[j] == '\r' || d[j] == '\\' && j+1 < len(d) && (d[j+1] == 'n' || d[j+1] == 'r') {
			return j
		}
	}
	return e
}

// cliWords splits d[i:e] at spaces and tabs into words (start offsets). A
// quoted word is read by cliValue from its start.
func cliWords(d []byte, i, e int) []int {
	var ws []int
	for i < e {
		for i < e && (d[i] == ' ' || d[i] == '\t') {
			i++
		}
		if i >= e {
			break
		}
		ws = append(ws, i)
		for i < e && d[i] != ' ' && d[i] != '\t' {
			i++
		}
	}
	return ws
}

func cliPasswordForm() form {
	return form{
		keywords: []string{"mysql", "mariadb", "mysqldump", "mysqladmin", "psexec", "net use"},
		back:     1,
		ahead:    cliLineMax + 16,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setIdent[d[ks-1]] || ke < len(d) && setIdent[d[ke]] && d[ke] != '.' {
				return noMatch // a word inside a longer name (mysqlclient, internet user)
			}
			e := cliLineEnd(d, ke)
			if e == len(d) && !v.atEnd && e-ke < cliLineMax {
				return result{status: resMore}
			}
			kw := lowerASCII(d[ks])
			ws := cliWords(d, ke, e)
			switch kw {
			case 'm': // mysql family: -pPASSWORD, glued
				for _, w := range ws {
					if w+2 < e && d[w] == '-' && d[w+1] == 'p' && d[w+2] != ' ' && d[w+2] != '-' {
						s, t, ok := cliValue(d, w+2)
						if ok && cliPasswordOK(d[s:t]) {
							return result{status: resMatch, start: s, end: t}
						}
						return noMatch
					}
				}
			case 'p': // psexec -p PASSWORD or -pPASSWORD
				for k, w := range ws {
					if w+2 > e || string(d[w:w+2]) != "-p" {
						continue
					}
					at := -1
					switch {
					case w+2 == e || d[w+2] == ' ' || d[w+2] == '\t':
						if k+1 < len(ws) {
							at = ws[k+1]
						}
					case d[w+2] != '-':
						at = w + 2
					}
					if at < 0 {
						continue
					}
					s, t, ok := cliValue(d, at)
					if ok && cliPasswordOK(d[s:t]) {
						return result{status: resMatch, start: s, end: t}
					}
					return noMatch
				}
			case 'n': // net use [device] \\host\share [password|*] [/options]
				for _, w := range ws {
					c := d[w]
					switch {
					case c == '/' || c == '\\':
						continue // an option (/user:…, /persistent:…) or the share
					case w+2 <= e && setLetters[c] && d[w+1] == ':' && (w+2 == e || d[w+2] == ' ' || d[w+2] == '\t'):
						continue // a device such as Z:
					}
					s, t, ok := cliValue(d, w)
					if ok && cliPasswordOK(d[s:t]) && netUseShare(d, ke, e) {
						return result{status: resMatch, start: s, end: t}
					}
					return noMatch
				}
			}
			return noMatch
		},
	}
}

// netUseShare reports whether a net use line names a share (\\host…), so
// that a word of prose after "net use" is no password.
func netUseShare(d []byte, i, e int) bool {
	return bytes.Contains(d[i:e], []byte(`\\`))
}

func netrcForm() form {
	return form{
		keywords: []string{"machine"},
		back:     1,
		ahead:    cliLineMax + 16,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if v.more(ke) {
				return result{status: resMore}
			}
			if ks > 0 && setIdent[d[ks-1]] || ke >= len(d) || d[ke] != ' ' && d[ke] != '\t' {
				return noMatch
			}
			e := min(len(d), ks+cliLineMax)
			if e == len(d) && !v.atEnd {
				return result{status: resMore}
			}
			// machine NAME, then pairs of a netrc keyword and its value,
			// across spaces and line breaks.
			var words [][2]int
			for i := ke; i < e && len(words) < 12; {
				for i < e && escSpace(d, i) > 0 {
					i += escSpace(d, i)
				}
				j := i
				for j < e && escSpace(d, j) == 0 {
					j++
				}
				if j == e && e < len(d) || j == i {
					break
				}
				words = append(words, [2]int{i, j})
				i = j
			}
			login := false
			for k := 1; k+1 < len(words); k += 2 {
				w := string(d[words[k][0]:words[k][1]])
				val := words[k+1]
				switch w {
				case "login", "account", "port":
					login = login || w == "login"
				case "password":
					b := d[val[0]:val[1]]
					if !login || !cliPasswordOK(b) {
						return noMatch
					}
					return result{status: resMatch, start: val[0], end: val[1]}
				default:
					return noMatch
				}
			}
			return noMatch
		},
	}
}

// pgpassBack bounds the host field of a .pgpass line (a catalog reads at
// most CustomWindow bytes before a keyword).
const pgpassBack = 100

func pgpassForm() form {
	return form{
		keywords: []string{":5432:", ":6432:", ":*:"},
		back:     pgpassBack + 1,
		ahead:    cliLineMax + 16,
		check: func(v *view, ks, ke int) result {
			d := v.data
			// The line starts at the keyword's host field (or, for ":*:",
			// a host field "*" before it).
			s := ks
			for s > 0 && ks-s <= pgpassBack && !pgpassHostStop[d[s-1]] {
				s--
			}
			if s < ks && d[s] == 'n' && s > 0 && d[s-1] == '\\' {
				s++ // after a \n escape
			}
			if s == ks || ks-s > pgpassBack || s > 0 && d[s-1] == ':' {
				return noMatch // no host, or the keyword is a later field
			}
			if s > 0 && d[s-1] != '\n' && d[s-1] != '\\' && d[s-1] != '"' && !blankBefore(d, s) {
				return noMatch
			}
			e := cliLineEnd(d, ks)
			if e == len(d) && !v.atEnd && e-ks < cliLineMax {
				return result{status: resMore}
			}
			// host:port:database:user:password; '\:' escapes a colon.
			var cuts []int
			for i := s; i < e && len(cuts) < 4; i++ {
				switch d[i] {
				case '\\':
					i++
				case ':':
					cuts = append(cuts, i)
				case ' ', '\t':
					return noMatch
				}
			}
			if len(cuts) < 4 {
				return noMatch
			}
			port := d[cuts[0]+1 : cuts[1]]
			if !(string(port) == "*" || len(port) > 0 && len(port) <= 5 && allIn(port, setDigits)) || cuts[0] != ks {
				return noMatch
			}
			for k := 1; k < 4; k++ {
				if cuts[k] == cuts[k-1]+1 {
					return noMatch // an empty field
				}
			}
			p0 := cuts[3] + 1
			p1 := e
			for p1 > p0 && (d[p1-1] == ' ' || d[p1-1] == '\t' || d[p1-1] == '\r') {
				p1--
			}
			if p1 == p0 || !cliPasswordOK(d[p0:p1]) {
				return noMatch
			}
			return result{status: resMatch, start: p0, end: p1}
		},
	}
}

// pgpassHostStop ends the host field of a .pgpass line, read backwards.
var pgpassHostStop = makeSet("\n\t \":\\")

// blankBefore reports whether only spaces and tabs stand between the line
// start and d[s].
func blankBefore(d []byte, s int) bool {
	for i := s - 1; i >= 0 && d[i] != '\n'; i-- {
		if d[i] != ' ' && d[i] != '\t' {
			return false
		}
	}
	return true
}

// allIn reports whether every byte of b is in set.
func allIn(b []byte, set *byteSet) bool {
	for _, c := range b {
		if !set[c] {
			return false
		}
	}
	return true
}
