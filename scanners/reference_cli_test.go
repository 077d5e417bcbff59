package scanners

import (
	"regexp"
	"strings"
)

// Reference forms of the command-line and credentials-file rules
// (rules_context_cli.go), with regexps over the whole string.

func init() {
	refFormsMore = append(refFormsMore, refCLIForms)
}

var (
	refCliValueRe = regexp.MustCompile("^(?:'([^'\n]+)'|\"([^\"\n]+)\"|((?:[^\t\n\r\f \"'`;|&<>\\\\]|\\\\[^nrt]|\\\\$)+))")
	refCliMyP     = regexp.MustCompile(`(?:^|[ \t])-p[^ \t-]`)
	refCliPsP     = regexp.MustCompile(`(?:^|[ \t])-p(?:[ \t]+([^ \t])|([^ \t-]))`)
	refCliWord    = regexp.MustCompile(`[^ \t]+`)
	refCliLineEnd = regexp.MustCompile(`\n|\r|\\[nr]`)
	refIdentByte  = regexp.MustCompile(`^[A-Za-z0-9_.-]$`)
	refNetrcWord  = regexp.MustCompile(`(?:[^ \t\n\r\f\\]|\\[^nrt]|\\$)+`)
	refPgpassLine = regexp.MustCompile(`^((?:[^:\\ \t\n]|\\.)+):((?:[^:\\ \t\n]|\\.)+):((?:[^:\\ \t\n]|\\.)+):((?:[^:\\ \t\n]|\\.)+):`)
	refPgpassPort = regexp.MustCompile(`^(?:\*|[0-9]{1,5})$`)
)

// refCliValue: the shell word at s[i:] (cliValue).
func refCliValue(s string, i int) (int, int, bool) {
	m := refCliValueRe.FindStringSubmatchIndex(s[i:])
	if m == nil {
		return 0, 0, false
	}
	for g := 1; g <= 3; g++ {
		if m[2*g] >= 0 {
			a, b := i+m[2*g], i+m[2*g+1]
			if b-a > cliLineMax-1 {
				return 0, 0, false
			}
			return a, b, true
		}
	}
	return 0, 0, false
}

func refCliLine(s string, i int) int {
	e := min(len(s), i+cliLineMax)
	if m := refCliLineEnd.FindStringIndex(s[i:e]); m != nil {
		return i + m[0]
	}
	return e
}

func refCliOK(v string) bool {
	return v != "" && !placeholder([]byte(v)) && v[0] != '$' && v != "*"
}

func refCLIForms() map[string][]refForm {
	return map[string][]refForm{
		"cli-password-flag": {{keywords: []string{"mysql", "mariadb", "mysqldump", "mysqladmin", "psexec", "net use"}, atKw: refCliPassword}},
		"netrc-password":    {{keywords: []string{"machine"}, atKw: refNetrc}},
		"pgpass-entry":      {{keywords: []string{":5432:", ":6432:", ":*:"}, atKw: refPgpass}},
	}
}

func refCliPassword(s string, p, k int) (int, int, ChecksumResult, bool) {
	ke := p + k
	if p > 0 && refIdentByte.MatchString(s[p-1:p]) || ke < len(s) && refIdentByte.MatchString(s[ke:ke+1]) && s[ke] != '.' {
		return 0, 0, 0, false
	}
	e := refCliLine(s, ke)
	line := s[ke:e]
	ok := func(a, b int, good bool) (int, int, ChecksumResult, bool) {
		if !good || !refCliOK(s[a:b]) {
			return 0, 0, 0, false
		}
		return a, b, ChecksumNone, true
	}
	switch strings.ToLower(s[p : p+1]) {
	case "m":
		if m := refCliMyP.FindStringIndex(line); m != nil {
			return ok(refCliValue(s, ke+m[1]-1))
		}
	case "p":
		if m := refCliPsP.FindStringSubmatchIndex(line); m != nil {
			at := m[2]
			if at < 0 {
				at = m[4]
			}
			return ok(refCliValue(s, ke+at))
		}
	case "n":
		if !strings.Contains(line, `\\`) {
			return 0, 0, 0, false
		}
		for _, w := range refCliWord.FindAllStringIndex(line, -1) {
			word := line[w[0]:w[1]]
			if word[0] == '/' || word[0] == '\\' || len(word) == 2 && word[1] == ':' && refLetter(word[0]) {
				continue
			}
			return ok(refCliValue(s, ke+w[0]))
		}
	}
	return 0, 0, 0, false
}

func refLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func refNetrc(s string, p, k int) (int, int, ChecksumResult, bool) {
	ke := p + k
	if p > 0 && refIdentByte.MatchString(s[p-1:p]) || ke >= len(s) || s[ke] != ' ' && s[ke] != '\t' {
		return 0, 0, 0, false
	}
	e := min(len(s), p+cliLineMax)
	ws := refNetrcWord.FindAllStringIndex(s[ke:e], 12)
	if len(ws) > 0 && ke+ws[len(ws)-1][1] == e && e < len(s) {
		ws = ws[:len(ws)-1] // cut by the window
	}
	login := false
	for i := 1; i+1 < len(ws); i += 2 {
		switch w := s[ke+ws[i][0] : ke+ws[i][1]]; w {
		case "login", "account", "port":
			login = login || w == "login"
		case "password":
			a, b := ke+ws[i+1][0], ke+ws[i+1][1]
			if !login || !refCliOK(s[a:b]) {
				return 0, 0, 0, false
			}
			return a, b, ChecksumNone, true
		default:
			return 0, 0, 0, false
		}
	}
	return 0, 0, 0, false
}

func refPgpass(s string, p, k int) (int, int, ChecksumResult, bool) {
	st := p
	for st > 0 && p-st <= pgpassBack && !strings.ContainsRune("\n\t \":\\", rune(s[st-1])) {
		st--
	}
	if st < p && s[st] == 'n' && st > 0 && s[st-1] == '\\' {
		st++
	}
	if st == p || p-st > pgpassBack || st > 0 && s[st-1] == ':' {
		return 0, 0, 0, false
	}
	if st > 0 && !strings.ContainsRune("\n\\\"", rune(s[st-1])) && strings.TrimLeft(s[strings.LastIndexByte(s[:st], '\n')+1:st], " \t") != "" {
		return 0, 0, 0, false
	}
	e := refCliLine(s, p)
	m := refPgpassLine.FindStringSubmatchIndex(s[st:e])
	if m == nil || st+m[3] != p || !refPgpassPort.MatchString(s[st+m[4]:st+m[5]]) {
		return 0, 0, 0, false
	}
	a := st + m[1]
	b := a + len(strings.TrimRight(s[a:e], " \t\r"))
	if b == a || !refCliOK(s[a:b]) {
		return 0, 0, 0, false
	}
	return a, b, ChecksumNone, true
}
