package scanners

import (
	"regexp"
	"strings"
)

// Reference form of the service-credential rule (rules_context_service.go):
// regexps over the whole string. The value filter (serviceValue) is a pure
// function of the value and is shared; where the name and the value begin
// and end is written again here.

func init() { refFormsMore = append(refFormsMore, refService) }

var (
	// refSvcValue: " '", then printable bytes but space and ', then '.
	refSvcValue = regexp.MustCompile(`^ '([!-&(-~]+)'`)
	// refSvcName: the name, an optional operator after spaces, at the end of
	// the text before the keyword; group 1 is what precedes the name (a
	// start byte, a JSON escape, or nothing at the start of the text).
	refSvcName = regexp.MustCompile("(^|\\\\[ntr]|[\\t\\n\\f\\r ,;(\\[{\"'`\\\\])([A-Za-z][A-Za-z0-9]*)(?:[ \\t]*[=:]{1,2})?$")
)

func refService() map[string][]refForm {
	return map[string][]refForm{
		"service-credential": {{keywords: []string{" '"}, at: func(s string, p int) (int, int, ChecksumResult, bool) {
			m := refSvcValue.FindStringSubmatchIndex(s[p:])
			if m == nil || m[3]-m[2] > ctxMaxValue || m[3]-m[2] < svcMinValue {
				return 0, 0, 0, false
			}
			a, e := p+m[2], p+m[3]
			n := refSvcName.FindStringSubmatchIndex(s[:p])
			if n == nil {
				return 0, 0, 0, false
			}
			name := s[n[4]:n[5]]
			if s[n[2]:n[3]] == `\` && len(name) > 1 && strings.IndexByte("ntr", name[0]) >= 0 {
				return 0, 0, 0, false // an escape's letter and a name that is none
			}
			ops := strings.TrimLeft(s[n[5]:p], " \t")
			if len(s[n[5]:p])-len(ops) > ctxMaxSpace || len(name) < svcMinName || len(name) > svcMaxName {
				return 0, 0, 0, false
			}
			letters := 0
			for _, c := range name {
				if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
					letters++
				}
			}
			if letters < 3 {
				return 0, 0, 0, false
			}
			for _, w := range svcStop {
				if strings.EqualFold(name, w) {
					return 0, 0, 0, false
				}
			}
			if !serviceValue([]byte(s[a:e])) {
				return 0, 0, 0, false
			}
			return a, e, ChecksumNone, true
		}}},
	}
}
