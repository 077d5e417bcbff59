package scanners

import (
	"regexp"
	"strings"
)

// Reference forms of kubernetes-secret-data (rules_kubernetes.go): whole
// string, regexps for each part of the manifest. placeholderBody is shared.

func init() {
	refFormsMore = append(refFormsMore, func() map[string][]refForm {
		return map[string][]refForm{"kubernetes-secret-data": {
			{keywords: []string{"kind:"}, at: refK8sKindFirst},
			{keywords: []string{"data:"}, at: refK8sDataFirst},
		}}
	})
}

var (
	refK8sSpace = regexp.MustCompile(`^(?:[ \t\r\n]|\\[ntr])*`)
	refK8sKey   = regexp.MustCompile(`^[A-Za-z0-9_.-]*`)
	refK8sTabs  = regexp.MustCompile(`^[ \t]*`)
	refK8sB64   = regexp.MustCompile(`^[A-Za-z0-9+/]*`)
	refK8sPad   = regexp.MustCompile(`^=*`)
	refK8sKind  = regexp.MustCompile(`(?i)^kind:([ \t]*)(\\?["']|)secret`)
)

func refK8sLineStart(s string, p int) bool {
	if p == 0 {
		return true
	}
	if strings.IndexByte(" \t\n\r\"", s[p-1]) >= 0 {
		return true
	}
	return strings.IndexByte("ntr", s[p-1]) >= 0 && p >= 2 && s[p-2] == '\\'
}

// refK8sWS: the whitespace run at s's start, its length, and whether it
// holds a line break (literal or escaped).
func refK8sWS(s string) (int, bool) {
	w := refK8sSpace.FindString(s)
	return len(w), strings.Contains(w, "\n") || strings.Contains(w, `\n`)
}

func refK8sKindAt(s string, p int) bool {
	m := refK8sKind.FindStringSubmatch(s[p:])
	if m == nil || len(m[1]) > ctxMaxSpace {
		return false
	}
	rest := s[p+len(m[0]):]
	if !strings.HasPrefix(rest, m[2]) {
		return false
	}
	rest = rest[len(m[2]):]
	return rest == "" || !setWord[rest[0]]
}

// refK8sValue: the first data value after "data:" ending at i.
func refK8sValue(s string, i int) (int, int, bool) {
	n, nl := refK8sWS(s[i:])
	if n > k8sMaxSpace || !nl {
		return 0, 0, false
	}
	i += n
	key := refK8sKey.FindString(s[i:])
	if key == "" || len(key) > k8sMaxKey || !strings.HasPrefix(s[i+len(key):], ":") {
		return 0, 0, false
	}
	i += len(key) + 1
	sp := refK8sTabs.FindString(s[i:])
	if sp == "" || len(sp) > ctxMaxSpace {
		return 0, 0, false
	}
	i += len(sp)
	if strings.HasPrefix(s[i:], "|") || strings.HasPrefix(s[i:], ">") {
		i++
		if strings.HasPrefix(s[i:], "-") || strings.HasPrefix(s[i:], "+") {
			i++
		}
		n, nl := refK8sWS(s[i:])
		if n > k8sMaxSpace || !nl {
			return 0, 0, false
		}
		i += n
	}
	q := ""
	for _, x := range []string{`\"`, `\'`, `"`, `'`} {
		if strings.HasPrefix(s[i:], x) {
			q = x
			break
		}
	}
	a := i + len(q)
	body := refK8sB64.FindString(s[a:])
	if len(body) < k8sMinValue || len(body) > k8sMaxValue || placeholderBody([]byte(body)) {
		return 0, 0, false
	}
	pad := refK8sPad.FindString(s[a+len(body):])
	if len(pad) > 3 {
		return 0, 0, false
	}
	e := a + len(body) + len(pad)
	if q != "" {
		if !strings.HasPrefix(s[e:], q) {
			return 0, 0, false
		}
	} else if e < len(s) && strings.IndexByte(" \t\n\r\\\"", s[e]) < 0 {
		return 0, 0, false
	}
	return a, e, true
}

func refK8sKindFirst(s string, p int) (int, int, ChecksumResult, bool) {
	if !refK8sLineStart(s, p) || !refK8sKindAt(s, p) {
		return 0, 0, 0, false
	}
	for i := p + 5; i <= p+5+k8sLook && i+5 <= len(s); i++ {
		if strings.EqualFold(s[i:i+5], "data:") && refK8sLineStart(s, i) {
			a, e, ok := refK8sValue(s, i+5)
			return a, e, ChecksumNone, ok
		}
	}
	return 0, 0, 0, false
}

func refK8sDataFirst(s string, p int) (int, int, ChecksumResult, bool) {
	if !refK8sLineStart(s, p) {
		return 0, 0, 0, false
	}
	a, e, ok := refK8sValue(s, p+5)
	if !ok {
		return 0, 0, 0, false
	}
	for i := e; i <= e+k8sLook && i < len(s); i++ {
		if refK8sLineStart(s, i) && refK8sKindAt(s, i) {
			return a, e, ChecksumNone, true
		}
	}
	return 0, 0, 0, false
}
