package scanners

import (
	"regexp"
	"strings"
)

// Reference form of sumologic-access-id (rules_sumologic.go).

func init() {
	refFormsMore = append(refFormsMore, func() map[string][]refForm {
		return map[string][]refForm{"sumologic-access-id": {
			{keywords: []string{"accessid", "access_id", "access-id"}, atKw: refSumoAccessID},
		}}
	})
}

var (
	refSumoName  = regexp.MustCompile(`[A-Za-z0-9_.-]*$`)
	refSumoValue = regexp.MustCompile("^[\t \"'`:=>,\\\\]{1,8}(su[A-Za-z0-9]{12})(?:[^A-Za-z0-9_]|$)")
	refSumoSep   = regexp.MustCompile("^[\t \"'`:=>,\\\\]*")
)

func refSumoAccessID(s string, p, k int) (int, int, ChecksumResult, bool) {
	name := refSumoName.FindString(s[max(0, p-sumoNameBack):p])
	if !strings.Contains(strings.ToLower(name), "sumo") {
		return 0, 0, 0, false
	}
	if len(refSumoSep.FindString(s[p+k:])) > 8 {
		return 0, 0, 0, false
	}
	m := refSumoValue.FindStringSubmatchIndex(s[p+k:])
	if m == nil {
		return 0, 0, 0, false
	}
	a, e := p+k+m[2], p+k+m[3]
	if placeholderBody([]byte(s[a+2:e])) || !(refUpper.MatchString(s[a+2:e]) && refLower.MatchString(s[a+2:e]) ||
		refUpper.MatchString(s[a+2:e]) && refDigit.MatchString(s[a+2:e]) || refLower.MatchString(s[a+2:e]) && refDigit.MatchString(s[a+2:e])) {
		return 0, 0, 0, false
	}
	return a, e, ChecksumNone, true
}
